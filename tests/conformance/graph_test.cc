// Stream capture: work on a capturing stream is recorded, not run; an instantiated graph replays
// it in stream order as many times as it is launched, reading the sources as they are at launch.
#include "device_test.h"
#include "resources.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>

namespace infinirt_test {
namespace {

class Graph : public DeviceTest {
protected:
    Graph() : DeviceTest({Feature::kMemory, Feature::kStreams, Feature::kStreamCapture}) {}
};

constexpr size_t kSize = 256 * 1024;
constexpr size_t kMemsetOffset = 1000;
constexpr size_t kMemsetLength = 3000;

TEST_P(Graph, CaptureInstantiateAndReplay) {
    REQUIRE_FEATURES(Feature::kEvents);
    ScopedStream s;
    ScopedStream other;
    ASSERT_OK(s.Create());
    ASSERT_OK(other.Create());
    ScopedEvent done;
    ASSERT_OK(done.Create());
    PinnedBuffer src;
    PinnedBuffer dst;
    ASSERT_OK(src.MallocHost(kSize));
    ASSERT_OK(dst.MallocHost(kSize));
    DeviceBuffer a;
    DeviceBuffer b;
    ASSERT_OK(a.Malloc(kSize));
    ASSERT_OK(b.Malloc(kSize));
    Defer drain([&] {
        infinirtStreamSynchronize(s);
        infinirtStreamSynchronize(other);
    });

    std::memset(dst, 0xcc, kSize);
    ASSERT_OK(infinirtStreamBeginCapture(s, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL));
    ASSERT_OK(infinirtMemcpyAsync(a, src, kSize, INFINIRT_MEMCPY_H2D, s));
    ASSERT_OK(infinirtMemsetAsync(static_cast<uint8_t *>(a.get()) + kMemsetOffset, 0xee, kMemsetLength, s));
    ASSERT_OK(infinirtMemcpyAsync(b, a, kSize, INFINIRT_MEMCPY_D2D, s));
    ASSERT_OK(infinirtMemcpyAsync(dst, b, kSize, INFINIRT_MEMCPY_D2H, s));
    ASSERT_OK(infinirtEventRecord(done, s));
    ScopedGraph graph;
    ASSERT_OK(graph.EndCapture(s));
    ASSERT_NE(graph.get(), nullptr);

    ASSERT_OK(infinirtStreamSynchronize(s));
    const std::vector<uint8_t> untouched(kSize, 0xcc);
    EXPECT_EQ(0, std::memcmp(dst, untouched.data(), kSize)) << "captured work ran during capture";

    ScopedGraphExec exec;
    char log[256] = {};
    ASSERT_OK(exec.Instantiate(graph, nullptr, log, sizeof(log))) << "log: " << log;
    ASSERT_NE(exec.get(), nullptr);

    for (int launch = 0; launch < 3; ++launch) {
        std::vector<uint8_t> expected = Pattern(kSize, static_cast<uint8_t>(40 + launch));
        std::memcpy(src, expected.data(), kSize);
        std::memset(expected.data() + kMemsetOffset, 0xee, kMemsetLength);
        std::memset(dst, 0, kSize);
        // Launch through both spellings and on a stream other than the captured one.
        infinirtStream_t on = launch == 2 ? other : s;
        if (launch == 1) {
            ASSERT_OK(infinirtGraphLuanch(exec, on));
        } else {
            ASSERT_OK(infinirtGraphLaunch(exec, on));
        }
        ASSERT_OK(infinirtStreamSynchronize(on));
        EXPECT_EQ(0, std::memcmp(dst, expected.data(), kSize)) << "launch " << launch;
        infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
        ASSERT_OK(infinirtEventQuery(done, &status));
        EXPECT_EQ(status, INFINIRT_EVENT_COMPLETE) << "launch " << launch;
    }

    exec.Disown();
    EXPECT_OK(infinirtGraphExecDestroy(exec));
    graph.Disown();
    EXPECT_OK(infinirtGraphDestroy(graph));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphLaunch(exec, s));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphExecDestroy(exec));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphDestroy(graph));
    infinirtGraphExec_t again = nullptr;
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphInstantiate(&again, graph, nullptr, nullptr, 0));
    EXPECT_EQ(again, nullptr);
}

// Launches are stream-ordered with the work around them.
TEST_P(Graph, LaunchIsOrderedWithSurroundingWork) {
    ScopedStream s;
    ASSERT_OK(s.Create());
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    PinnedBuffer h;
    ASSERT_OK(h.MallocHost(kSize));
    ScopedBusyWork busy(s);
    ASSERT_OK(infinirtStreamBeginCapture(s, INFINIRT_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(infinirtMemsetAsync(d, 0x71, kSize, s));
    ScopedGraph graph;
    ASSERT_OK(graph.EndCapture(s));
    ScopedGraphExec exec;
    ASSERT_OK(exec.Instantiate(graph));

    std::memset(h, 0, kSize);
    ASSERT_OK(infinirtMemset(d, 0, kSize));
    ASSERT_TRUE(busy.Enqueue());
    ASSERT_OK(infinirtGraphLaunch(exec, s));
    ASSERT_OK(infinirtMemcpyAsync(h, d, kSize, INFINIRT_MEMCPY_D2H, s));
    ASSERT_OK(infinirtStreamSynchronize(s));
    const std::vector<uint8_t> expected(kSize, 0x71);
    EXPECT_EQ(0, std::memcmp(h, expected.data(), kSize));
}

TEST_P(Graph, EveryCaptureModeIsAccepted) {
    ScopedStream s;
    ASSERT_OK(s.Create());
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(64));
    for (infinirtStreamCaptureMode_t mode : {INFINIRT_STREAM_CAPTURE_MODE_GLOBAL, INFINIRT_STREAM_CAPTURE_MODE_THREAD_LOCAL,
                                             INFINIRT_STREAM_CAPTURE_MODE_RELAXED}) {
        ASSERT_OK(infinirtStreamBeginCapture(s, mode));
        ASSERT_OK(infinirtMemsetAsync(d, static_cast<int>(mode) + 1, 64, s));
        infinirtGraph_t graph = nullptr;
        ASSERT_OK(infinirtStreamEndCapture(s, &graph));
        infinirtGraphExec_t exec = nullptr;
        ASSERT_OK(infinirtGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
        ASSERT_OK(infinirtGraphLaunch(exec, s));
        ASSERT_OK(infinirtStreamSynchronize(s));
        std::vector<uint8_t> back(64, 0);
        ASSERT_OK(infinirtMemcpy(back.data(), d, 64, INFINIRT_MEMCPY_D2H));
        EXPECT_EQ(back, std::vector<uint8_t>(64, static_cast<uint8_t>(mode + 1))) << "mode " << mode;
        EXPECT_OK(infinirtGraphExecDestroy(exec));
        EXPECT_OK(infinirtGraphDestroy(graph));
    }
}

TEST_P(Graph, DefaultStreamCannotBeCaptured) {
    EXPECT_REFUSED(infinirtStreamBeginCapture(nullptr, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL));
    // The default stream still runs work normally.
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(64));
    EXPECT_OK(infinirtMemsetAsync(d, 1, 64, nullptr));
    EXPECT_OK(infinirtStreamSynchronize(nullptr));
}

// A synchronising call on a capturing stream is refused and ends the capture as invalid; the
// stream is usable normally afterwards.
TEST_P(Graph, SynchronizeWhileCapturingIsRefused) {
    ScopedStream s;
    ASSERT_OK(s.Create());
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(64));
    ASSERT_OK(infinirtStreamBeginCapture(s, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL));
    ASSERT_OK(infinirtMemsetAsync(d, 9, 64, s));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtStreamSynchronize(s));
    infinirtGraph_t graph = nullptr;
    if (infinirtStreamEndCapture(s, &graph) == INFINI_STATUS_SUCCESS) {
        EXPECT_OK(infinirtGraphDestroy(graph));
    }
    ASSERT_OK(infinirtMemsetAsync(d, 3, 64, s));
    ASSERT_OK(infinirtStreamSynchronize(s));
    std::vector<uint8_t> back(64, 0);
    ASSERT_OK(infinirtMemcpy(back.data(), d, 64, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(back, std::vector<uint8_t>(64, 3));
}

// Freeing waits for the owning device (as cudaFree does), so while a stream of the device captures
// infinirtFree and infinirtFreeHost are refused as infinirtDeviceSynchronize is (BAD_PARAM, with a
// message), from any thread and in every mode: nothing is freed, the capture stays valid, and the
// same pointers free normally once it ends. (On cuda, the free's device-wide wait failed with
// CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidated the capture.)
TEST_P(Graph, FreeDuringCaptureIsRefused) {
    for (infinirtStreamCaptureMode_t mode : {INFINIRT_STREAM_CAPTURE_MODE_GLOBAL, INFINIRT_STREAM_CAPTURE_MODE_THREAD_LOCAL,
                                             INFINIRT_STREAM_CAPTURE_MODE_RELAXED}) {
        SCOPED_TRACE(mode);
        ScopedStream s;
        ASSERT_OK(s.Create());
        DeviceBuffer d;
        ASSERT_OK(d.Malloc(64));
        void *victim = nullptr;
        void *pinned = nullptr;
        ASSERT_OK(infinirtMalloc(&victim, 64));
        ASSERT_OK(infinirtMallocHost(&pinned, 64));
        ASSERT_OK(infinirtStreamBeginCapture(s, mode));
        ASSERT_OK(infinirtMemsetAsync(d, 6, 64, s));
        EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFree(victim));
        infiniStatus_t other_free = INFINI_STATUS_SUCCESS;
        infiniStatus_t other_free_host = INFINI_STATUS_SUCCESS;
        std::string other_message;
        std::thread([&] {
            if (infinirtSetDevice(type(), id()) == INFINI_STATUS_SUCCESS) {
                other_free = infinirtFree(victim);
                other_message = infinirtGetLastErrorMessage();
                other_free_host = infinirtFreeHost(pinned);
            }
        }).join();
        EXPECT_EQ(other_free, INFINI_STATUS_BAD_PARAM) << "Free from another thread during capture";
        EXPECT_EQ(other_free_host, INFINI_STATUS_BAD_PARAM) << "FreeHost from another thread during capture";
        EXPECT_NE(other_message.find("capturing"), std::string::npos) << other_message;
        ScopedGraph graph;
        ASSERT_OK(graph.EndCapture(s)) << "the refused frees must leave the capture valid";
        // Nothing was freed: the memory is still infinirt's, and frees normally now.
        infinirtPointerAttributes_t attributes{};
        attributes.struct_size = sizeof attributes;
        EXPECT_OK(infinirtPointerGetAttributes(&attributes, victim));
        EXPECT_OK(infinirtMemset(victim, 1, 64));
        EXPECT_OK(infinirtFree(victim));
        EXPECT_OK(infinirtFreeHost(pinned));
        ScopedGraphExec exec;
        ASSERT_OK(exec.Instantiate(graph));
        ASSERT_OK(infinirtGraphLaunch(exec, s));
        ASSERT_OK(infinirtStreamSynchronize(s));
        std::vector<uint8_t> back(64, 0);
        ASSERT_OK(infinirtMemcpy(back.data(), d, 64, INFINIRT_MEMCPY_D2H));
        EXPECT_EQ(back, std::vector<uint8_t>(64, 6));
    }
}

// A device-wide synchronisation while a stream of the device captures is refused (BAD_PARAM, with a
// message), in every capture mode and from any thread, as CUDA refuses it in global mode; it
// never reaches the backend, so the capture stays valid and replays. After the capture ends, the
// device synchronises normally. (On cuda, reaching cuCtxSynchronize in that state crashed.)
TEST_P(Graph, DeviceSynchronizeDuringCaptureIsRefused) {
    for (infinirtStreamCaptureMode_t mode : {INFINIRT_STREAM_CAPTURE_MODE_GLOBAL, INFINIRT_STREAM_CAPTURE_MODE_THREAD_LOCAL,
                                             INFINIRT_STREAM_CAPTURE_MODE_RELAXED}) {
        SCOPED_TRACE(mode);
        ScopedStream s;
        ASSERT_OK(s.Create());
        DeviceBuffer d;
        ASSERT_OK(d.Malloc(64));
        ASSERT_OK(infinirtMemset(d, 0, 64));
        ASSERT_OK(infinirtStreamBeginCapture(s, mode));
        ASSERT_OK(infinirtMemsetAsync(d, 5, 64, s));
        EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtDeviceSynchronize());
        infiniStatus_t other_thread = INFINI_STATUS_SUCCESS;
        std::string other_message;
        std::thread([&] {
            if (infinirtSetDevice(type(), id()) == INFINI_STATUS_SUCCESS) {
                other_thread = infinirtDeviceSynchronize();
                other_message = infinirtGetLastErrorMessage();
            }
        }).join();
        EXPECT_EQ(other_thread, INFINI_STATUS_BAD_PARAM) << "DeviceSynchronize from another thread during capture";
        EXPECT_NE(other_message.find("capturing"), std::string::npos) << other_message;
        ScopedGraph graph;
        ASSERT_OK(graph.EndCapture(s)) << "the refused DeviceSynchronize must leave the capture valid";
        EXPECT_OK(infinirtDeviceSynchronize());
        ScopedGraphExec exec;
        ASSERT_OK(exec.Instantiate(graph));
        ASSERT_OK(infinirtGraphLaunch(exec, s));
        ASSERT_OK(infinirtStreamSynchronize(s));
        std::vector<uint8_t> back(64, 0);
        ASSERT_OK(infinirtMemcpy(back.data(), d, 64, INFINIRT_MEMCPY_D2H));
        EXPECT_EQ(back, std::vector<uint8_t>(64, 5));
    }
    EXPECT_OK(infinirtDeviceSynchronize());
}

// Stream-ordered calls a capture cannot record, on every backend alike: infinirtMallocAsync,
// infinirtFreeAsync, infinirtGraphLaunch and infinirtStreamDestroy on a capturing stream are
// refused with BAD_PARAM and a message; nothing runs, nothing is allocated or freed, the stream
// stays usable and the capture valid (it replays what it recorded).
TEST_P(Graph, CallsACaptureCannotRecordAreRefused) {
    ScopedStream s;
    ASSERT_OK(s.Create());
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(64));
    ASSERT_OK(infinirtMemset(d, 0, 64));
    // A graph to launch, made before the capture (it sets bytes 32..63 to 4).
    ScopedStream other;
    ASSERT_OK(other.Create());
    ASSERT_OK(infinirtStreamBeginCapture(other, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL));
    ASSERT_OK(infinirtMemsetAsync(static_cast<char *>(static_cast<void *>(d)) + 32, 4, 32, other));
    ScopedGraph inner;
    ASSERT_OK(inner.EndCapture(other));
    ScopedGraphExec inner_exec;
    ASSERT_OK(inner_exec.Instantiate(inner));
    void *earlier = nullptr; // stream-ordered memory from before the capture, where the backend has it
    const bool stream_ordered = infinirtMallocAsync(&earlier, 64, s) == INFINI_STATUS_SUCCESS;
    ASSERT_OK(infinirtStreamSynchronize(s));

    ASSERT_OK(infinirtStreamBeginCapture(s, INFINIRT_STREAM_CAPTURE_MODE_RELAXED));
    ASSERT_OK(infinirtMemsetAsync(d, 8, 16, s));
    void *p = reinterpret_cast<void *>(uintptr_t{0x1234});
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMallocAsync(&p, 64, s));
    EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("capturing"), std::string::npos)
        << infinirtGetLastErrorMessage();
    EXPECT_EQ(p, reinterpret_cast<void *>(uintptr_t{0x1234})) << "a refused MallocAsync wrote its output";
    if (stream_ordered) {
        EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFreeAsync(earlier, s));
    }
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtGraphLaunch(inner_exec, s));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtStreamDestroy(s));
    EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("capturing"), std::string::npos)
        << infinirtGetLastErrorMessage();
    ScopedGraph graph;
    ASSERT_OK(graph.EndCapture(s)) << "the refused calls must leave the capture valid";
    std::vector<uint8_t> back(64, 1);
    ASSERT_OK(infinirtMemcpy(back.data(), d, 64, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(back, std::vector<uint8_t>(64, 0)) << "a refused call ran, or the capture ran its work";
    ScopedGraphExec exec;
    ASSERT_OK(exec.Instantiate(graph));
    ASSERT_OK(infinirtGraphLaunch(exec, s));
    ASSERT_OK(infinirtStreamSynchronize(s));
    ASSERT_OK(infinirtMemcpy(back.data(), d, 64, INFINIRT_MEMCPY_D2H));
    std::vector<uint8_t> want(64, 0);
    std::fill(want.begin(), want.begin() + 16, uint8_t{8});
    EXPECT_EQ(back, want) << "the replay ran other work than the memset it recorded";
    if (stream_ordered) {
        EXPECT_OK(infinirtFreeAsync(earlier, s)) << "the refused FreeAsync freed the memory";
        ASSERT_OK(infinirtStreamSynchronize(s));
    }
}

// A graph whose recorded event was destroyed fails at launch (INVALID_HANDLE) before any of its
// work is queued, on every backend (native graphs too: the loader checks the events a native
// capture used): the copy recorded before the event never runs.
TEST_P(Graph, LaunchWithDestroyedEventRunsNothing) {
    REQUIRE_FEATURES(Feature::kEvents);
    ScopedStream s;
    ASSERT_OK(s.Create());
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(64));
    infinirtEvent_t ev = nullptr;
    ASSERT_OK(infinirtEventCreate(&ev));
    ASSERT_OK(infinirtStreamBeginCapture(s, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL));
    ASSERT_OK(infinirtMemsetAsync(d, 7, 64, s));
    ASSERT_OK(infinirtEventRecord(ev, s));
    ScopedGraph graph;
    ASSERT_OK(graph.EndCapture(s));
    ScopedGraphExec exec;
    ASSERT_OK(exec.Instantiate(graph));
    ASSERT_OK(infinirtEventDestroy(ev));
    ASSERT_OK(infinirtMemset(d, 0, 64));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphLaunch(exec, s));
    ASSERT_OK(infinirtStreamSynchronize(s));
    std::vector<uint8_t> back(64, 1);
    ASSERT_OK(infinirtMemcpy(back.data(), d, 64, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(back, std::vector<uint8_t>(64, 0)) << "the memset before the destroyed event was replayed";
}

INSTANTIATE_ON_ALL_DEVICES(Graph);

} // namespace
} // namespace infinirt_test
