// Handles and memory remember their device: they are used and destroyed correctly while another
// device is current. Runs once per device that has a partner (another device of the same type if
// any, else a device of another type); on a cpu-only machine that needs INFINIRT_CPU_DEVICE_COUNT=2.
#include "device_test.h"
#include "resources.h"

#include <cstring>
#include <string>
#include <vector>

namespace infinirt_test {
namespace {

using DevicePair = std::pair<DeviceParam, DeviceParam>;

class CrossDevice : public ::testing::TestWithParam<DevicePair> {
protected:
    const DeviceParam &owner() const { return GetParam().first; }
    const DeviceParam &other() const { return GetParam().second; }

    void SetUp() override {
        if (SkipUnlessDeclared(owner(), {Feature::kCrossDeviceHandles})) {
            return;
        }
        ASSERT_OK(infinirtSetDevice(owner().type, owner().id));
    }

    ::testing::AssertionResult CurrentIs(const DeviceParam &d) {
        infiniDevice_t t = INFINI_DEVICE_TYPE_COUNT;
        int i = -1;
        if (infinirtGetDevice(&t, &i) != INFINI_STATUS_SUCCESS) {
            return ::testing::AssertionFailure() << "GetDevice failed: " << infinirtGetLastErrorMessage();
        }
        if (t != d.type || i != d.id) {
            return ::testing::AssertionFailure() << "current device is " << DeviceTypeName(t) << "_" << i
                                                 << ", expected " << InstanceName(d);
        }
        return ::testing::AssertionSuccess();
    }
};

constexpr size_t kSize = 1 << 20;

TEST_P(CrossDevice, HandlesWorkWhileAnotherDeviceIsCurrent) {
    REQUIRE_FEATURES_OF(owner(), Feature::kMemory, Feature::kStreams, Feature::kEvents, Feature::kStreamQuery);
    infinirtStream_t s = nullptr;
    infinirtEvent_t e = nullptr;
    void *d = nullptr;
    void *h = nullptr;
    ASSERT_OK(infinirtStreamCreate(&s));
    ASSERT_OK(infinirtEventCreate(&e));
    ASSERT_OK(infinirtMalloc(&d, kSize));
    ASSERT_OK(infinirtMallocHost(&h, kSize));
    std::memset(h, 0, kSize);
    const std::vector<uint8_t> src = Pattern(kSize, 60);

    ASSERT_OK(infinirtSetDevice(other().type, other().id));
    ASSERT_OK(infinirtMemcpyAsync(d, src.data(), kSize, INFINIRT_MEMCPY_H2D, s));
    ASSERT_OK(infinirtMemcpyAsync(h, d, kSize, INFINIRT_MEMCPY_D2H, s));
    ASSERT_OK(infinirtEventRecord(e, s));
    ASSERT_OK(infinirtEventSynchronize(e));
    EXPECT_EQ(0, std::memcmp(h, src.data(), kSize));
    infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
    EXPECT_OK(infinirtEventQuery(e, &status));
    EXPECT_EQ(status, INFINIRT_EVENT_COMPLETE);
    EXPECT_OK(infinirtStreamQuery(s));
    EXPECT_OK(infinirtStreamSynchronize(s));
    infiniDevice_t stream_type = INFINI_DEVICE_TYPE_COUNT;
    int stream_id = -1;
    EXPECT_OK(infinirtStreamGetDevice(s, &stream_type, &stream_id));
    EXPECT_EQ(stream_type, owner().type);
    EXPECT_EQ(stream_id, owner().id);
    std::vector<uint8_t> back(kSize, 0);
    EXPECT_OK(infinirtMemcpy(back.data(), d, kSize, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(back, src);

    infinirtPointerAttributes_t attr{};
    attr.struct_size = sizeof(attr);
    ASSERT_OK(infinirtPointerGetAttributes(&attr, d));
    EXPECT_EQ(attr.device_type, owner().type);
    EXPECT_EQ(attr.device_id, owner().id);

    EXPECT_OK(infinirtEventDestroy(e));
    EXPECT_OK(infinirtStreamDestroy(s));
    EXPECT_OK(infinirtFree(d));
    EXPECT_OK(infinirtFreeHost(h));
    EXPECT_TRUE(CurrentIs(other())) << "using another device's handles moved the current device";
}

TEST_P(CrossDevice, StreamOrderedFreeOfAnotherDevicesMemory) {
    REQUIRE_FEATURES_OF(owner(), Feature::kMemory, Feature::kStreams, Feature::kStreamOrderedAlloc);
    ScopedStream s;
    ASSERT_OK(s.Create());
    void *p = nullptr;
    ASSERT_OK(infinirtMallocAsync(&p, kSize, s));
    ASSERT_OK(infinirtSetDevice(other().type, other().id));
    ASSERT_OK(infinirtMemsetAsync(p, 0x12, kSize, s));
    ASSERT_OK(infinirtFreeAsync(p, s));
    EXPECT_OK(infinirtStreamSynchronize(s));
    EXPECT_TRUE(CurrentIs(other()));
}

// An event can only be recorded on a stream of its own device.
// Issue 16, item 2: memory handed to a stream of another device is not released while that
// stream's copies may still read it: Free/FreeHost wait for that device too. Checked by the
// other device's stream being idle the moment the free returns.
TEST_P(CrossDevice, FreeWaitsForOtherDevicesQueuedWork) {
    REQUIRE_FEATURES_OF(owner(), Feature::kMemory, Feature::kStreams);
    REQUIRE_FEATURES_OF(other(), Feature::kMemory, Feature::kStreams, Feature::kStreamQuery);
    constexpr size_t kBig = 8 << 20;
    constexpr int kCopies = 16;
    void *pinned = nullptr;
    void *owned = nullptr;
    ASSERT_OK(infinirtMallocHost(&pinned, kBig));
    ASSERT_OK(infinirtMalloc(&owned, kBig));
    std::memset(pinned, 0x3c, kBig);
    ASSERT_OK(infinirtMemset(owned, 0x3c, kBig));

    ASSERT_OK(infinirtSetDevice(other().type, other().id));
    ScopedStream s;
    ASSERT_OK(s.Create());
    DeviceBuffer dst;
    ASSERT_OK(dst.Malloc(kBig));
    for (int i = 0; i < kCopies; ++i) {
        ASSERT_OK(infinirtMemcpyAsync(dst, pinned, kBig, INFINIRT_MEMCPY_H2D, s));
    }
    ASSERT_OK(infinirtFreeHost(pinned));
    EXPECT_OK(infinirtStreamQuery(s)) << "FreeHost returned while another device's stream still read the memory";
    if (owner().type == other().type) { // device memory of one device read by another's stream
        for (int i = 0; i < kCopies; ++i) {
            ASSERT_OK(infinirtMemcpyAsync(dst, owned, kBig, INFINIRT_MEMCPY_D2D, s));
        }
        ASSERT_OK(infinirtFree(owned));
        EXPECT_OK(infinirtStreamQuery(s)) << "Free returned while another device's stream still read the memory";
    } else {
        ASSERT_OK(infinirtFree(owned));
    }
    std::vector<uint8_t> back(64, 0);
    ASSERT_OK(infinirtMemcpy(back.data(), dst, 64, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(back, std::vector<uint8_t>(64, 0x3c));
}

TEST_P(CrossDevice, RecordOnAnotherDevicesStreamIsRefused) {
    REQUIRE_FEATURES_OF(owner(), Feature::kEvents);
    REQUIRE_FEATURES_OF(other(), Feature::kStreams);
    ScopedEvent e;
    ASSERT_OK(e.Create());
    ASSERT_OK(infinirtSetDevice(other().type, other().id));
    ScopedStream foreign;
    ASSERT_OK(foreign.Create());
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtEventRecord(e, foreign));
    // NULL means the current device's default stream: here the other device's, so refused too.
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtEventRecord(e, nullptr));
    ASSERT_OK(infinirtSetDevice(owner().type, owner().id));
    EXPECT_OK(infinirtEventRecord(e, nullptr));
    EXPECT_OK(infinirtEventSynchronize(e));
}

// Device-independent queries name their device explicitly and do not depend on the current one.
TEST_P(CrossDevice, ExplicitDeviceQueriesIgnoreTheCurrentDevice) {
    REQUIRE_FEATURES_OF(owner(), Feature::kMemory, Feature::kDeviceProperties);
    ASSERT_OK(infinirtSetDevice(other().type, other().id));
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    EXPECT_OK(infinirtGetMemInfo(owner().type, owner().id, &free_bytes, &total_bytes));
    EXPECT_GT(total_bytes, 0u);
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof(props);
    EXPECT_OK(infinirtGetDeviceProperties(owner().type, owner().id, &props));
    EXPECT_TRUE(CurrentIs(other()));
}

// A capturing stream waits on an event the other device records outside the capture: the wait is
// part of the graph (cuda: a wait node; record/replay: a recorded wait), and every launch waits
// for the event's latest recording then. The other device copies a fresh pattern into pinned
// memory and records the event; the graph, launched right after, copies that memory to the
// owner's device: it must see the whole pattern, launch after launch. Once the event is
// destroyed the graph's launch is refused and runs nothing.
TEST_P(CrossDevice, CaptureWaitsOnAnotherDevicesEvent) {
    REQUIRE_FEATURES_OF(owner(), Feature::kMemory, Feature::kStreams, Feature::kEvents, Feature::kStreamCapture);
    REQUIRE_FEATURES_OF(other(), Feature::kMemory, Feature::kStreams, Feature::kEvents);
    constexpr size_t kBytes = 16 << 20;
    void *pinned = nullptr;
    ASSERT_OK(infinirtMallocHost(&pinned, kBytes));
    std::memset(pinned, 0, kBytes);
    DeviceBuffer mine;
    ASSERT_OK(mine.Malloc(kBytes));
    ScopedStream s;
    ASSERT_OK(s.Create());

    ASSERT_OK(infinirtSetDevice(other().type, other().id));
    ScopedStream theirs;
    ASSERT_OK(theirs.Create());
    DeviceBuffer staged;
    ASSERT_OK(staged.Malloc(kBytes));
    infinirtEvent_t done = nullptr;
    ASSERT_OK(infinirtEventCreate(&done));
    ASSERT_OK(infinirtEventRecord(done, theirs));
    ASSERT_OK(infinirtStreamSynchronize(theirs));

    ASSERT_OK(infinirtSetDevice(owner().type, owner().id));
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof props;
    ASSERT_OK(infinirtGetDeviceProperties(owner().type, owner().id, &props));
    ASSERT_OK(infinirtStreamBeginCapture(s, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL));
    if (props.graphs_native && owner().type != other().type) {
        // Another backend's event cannot be a node of a native graph: refused, the capture goes on.
        EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtStreamWaitEvent(s, done));
        ASSERT_OK(infinirtMemcpyAsync(mine, pinned, kBytes, INFINIRT_MEMCPY_H2D, s));
        ScopedGraph graph;
        EXPECT_OK(graph.EndCapture(s)) << "the refused wait ended the capture";
        ASSERT_OK(infinirtEventDestroy(done));
        EXPECT_OK(infinirtFreeHost(pinned));
        return;
    }
    ASSERT_OK(infinirtStreamWaitEvent(s, done));
    ASSERT_OK(infinirtMemcpyAsync(mine, pinned, kBytes, INFINIRT_MEMCPY_H2D, s));
    ScopedGraph graph;
    ASSERT_OK(graph.EndCapture(s)) << "the wait on another device's event ended the capture";
    ScopedGraphExec exec;
    ASSERT_OK(exec.Instantiate(graph));

    for (uint8_t round = 1; round <= 3; ++round) {
        SCOPED_TRACE("launch " + std::to_string(round));
        const std::vector<uint8_t> pattern = Pattern(kBytes, static_cast<uint8_t>(40 + round));
        ASSERT_OK(infinirtSetDevice(other().type, other().id));
        ASSERT_OK(infinirtMemcpyAsync(staged, pattern.data(), kBytes, INFINIRT_MEMCPY_H2D, theirs));
        ASSERT_OK(infinirtMemcpyAsync(pinned, staged, kBytes, INFINIRT_MEMCPY_D2H, theirs));
        ASSERT_OK(infinirtEventRecord(done, theirs));
        ASSERT_OK(infinirtSetDevice(owner().type, owner().id));
        ASSERT_OK(infinirtGraphLaunch(exec, s));
        ASSERT_OK(infinirtStreamSynchronize(s));
        std::vector<uint8_t> back(kBytes, 0);
        ASSERT_OK(infinirtMemcpy(back.data(), mine, kBytes, INFINIRT_MEMCPY_D2H));
        EXPECT_TRUE(back == pattern) << "the graph ran before the other device's recorded work";
        ASSERT_OK(infinirtStreamSynchronize(theirs));
    }

    ASSERT_OK(infinirtEventDestroy(done));
    ASSERT_OK(infinirtMemset(mine, 0x5a, kBytes));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphLaunch(exec, s));
    ASSERT_OK(infinirtStreamSynchronize(s));
    std::vector<uint8_t> back(64, 0);
    ASSERT_OK(infinirtMemcpy(back.data(), mine, 64, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(back, std::vector<uint8_t>(64, 0x5a)) << "a refused launch ran part of the graph";
    EXPECT_OK(infinirtFreeHost(pinned));
}

INSTANTIATE_TEST_SUITE_P(Pairs, CrossDevice, ::testing::ValuesIn(DevicePairs()),
                         [](const ::testing::TestParamInfo<DevicePair> &info) {
                             return InstanceName(info.param.first) + "_with_" + InstanceName(info.param.second);
                         });
// Without a second device there is nothing to pair; that is not a failure of the suite.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CrossDevice);

} // namespace
} // namespace infinirt_test
