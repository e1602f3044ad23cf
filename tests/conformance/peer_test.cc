// Peers: access and copies between every ordered pair of two devices found (cpu_0 x cpu_1 with
// INFINIRT_CPU_DEVICE_COUNT=2, cpu x opencl, nvidia_0 x nvidia_1, nvidia x opencl, nvidia x cpu,
// ...): infinirtDeviceCanAccessPeer / GetPeerAttribute / Enable / DisablePeerAccess,
// infinirtMemcpyPeer(Async) at 1 byte, odd unaligned sizes and 64 MiB with and without peer access,
// plain infinirtMemcpy/MemcpyAsync between two devices' allocations, the ordering of synchronous
// copies after both default streams, asynchronous copies ordered by events on both sides, and bad
// input. Every copy's data is checked on the host.
#include "device_test.h"
#include "resources.h"

#include <cstring>

namespace infinirt_test {
namespace {

using DevicePair = std::pair<DeviceParam, DeviceParam>;

constexpr size_t kBig = size_t(64) << 20;

class Peer : public ::testing::TestWithParam<DevicePair> {
protected:
    const DeviceParam &a() const { return GetParam().first; }  // the source
    const DeviceParam &b() const { return GetParam().second; } // the destination

    void SetUp() override {
        if (SkipUnlessDeclared(a(), {Feature::kMemory, Feature::kStreams, Feature::kEvents}) ||
            SkipUnlessDeclared(b(), {Feature::kMemory, Feature::kStreams, Feature::kEvents})) {
            return;
        }
        ASSERT_OK(infinirtSetDevice(a().type, a().id));
    }

    bool SameBackend() const { return a().type == b().type; }

    // Whether the device's memory is host memory, as its properties say (memory_is_host).
    static bool MemoryIsHost(const DeviceParam &d) {
        infinirtDeviceProperties_t p{};
        p.struct_size = sizeof p;
        EXPECT_OK(infinirtGetDeviceProperties(d.type, d.id, &p));
        return p.memory_is_host == 1;
    }

    // Device memory of `d`, allocated with `d` current (the current device is left on a()).
    ::testing::AssertionResult MallocOn(const DeviceParam &d, DeviceBuffer &buffer, size_t size) {
        if (infinirtSetDevice(d.type, d.id) != INFINI_STATUS_SUCCESS ||
            buffer.Malloc(size) != INFINI_STATUS_SUCCESS || infinirtSetDevice(a().type, a().id) != INFINI_STATUS_SUCCESS) {
            return ::testing::AssertionFailure() << "allocating " << size << " bytes on " << InstanceName(d) << ": "
                                                 << infinirtGetLastErrorMessage();
        }
        return ::testing::AssertionSuccess();
    }

    // Whether the bytes at `p` (device memory) are `expected`.
    ::testing::AssertionResult Holds(const void *p, const std::vector<uint8_t> &expected) {
        std::vector<uint8_t> back(expected.size(), 0xee);
        if (infinirtMemcpy(back.data(), p, back.size(), INFINIRT_MEMCPY_D2H) != INFINI_STATUS_SUCCESS) {
            return ::testing::AssertionFailure() << "reading back: " << infinirtGetLastErrorMessage();
        }
        for (size_t i = 0; i < back.size(); ++i) {
            if (back[i] != expected[i]) {
                return ::testing::AssertionFailure() << "byte " << i << " of " << back.size() << " is "
                                                     << int(back[i]) << ", expected " << int(expected[i]);
            }
        }
        return ::testing::AssertionSuccess();
    }

    // MemcpyPeer of `size` bytes at src offset `so` and dst offset `dof`; the bytes around the
    // destination range stay as they were.
    void CopyAndCheck(size_t size, size_t so, size_t dof, uint8_t seed) {
        DeviceBuffer src, dst;
        ASSERT_TRUE(MallocOn(a(), src, size + so));
        ASSERT_TRUE(MallocOn(b(), dst, size + dof + 1));
        const std::vector<uint8_t> data = Pattern(size + so, seed);
        ASSERT_OK(infinirtMemcpy(src, data.data(), data.size(), INFINIRT_MEMCPY_H2D));
        ASSERT_OK(infinirtMemset(dst, 0xa5, size + dof + 1));
        ASSERT_OK(infinirtMemcpyPeer(static_cast<char *>(dst.get()) + dof, b().type, b().id,
                                     static_cast<const char *>(src.get()) + so, a().type, a().id, size))
            << size << " bytes";
        std::vector<uint8_t> expected(size + dof + 1, 0xa5);
        std::memcpy(expected.data() + dof, data.data() + so, size);
        EXPECT_TRUE(Holds(dst, expected)) << size << " bytes, src offset " << so << ", dst offset " << dof;
    }

    void CopyEverySize(uint8_t seed) {
        for (size_t size : {size_t(1), size_t(3), size_t(4099), size_t(1000003), kBig}) {
            CopyAndCheck(size, size % 7, size % 5, seed);
            if (HasFatalFailure()) {
                return;
            }
        }
        // Across the staging chunk boundary (8 MiB), odd and unaligned.
        CopyAndCheck((size_t(8) << 20) * 2 + 12345, 1, 3, seed);
    }
};

TEST_P(Peer, CanAccessAndAttributesAgree) {
    int can = -1;
    ASSERT_OK(infinirtDeviceCanAccessPeer(&can, a().type, a().id, b().type, b().id));
    EXPECT_TRUE(can == 0 || can == 1);
    if (!SameBackend()) {
        EXPECT_EQ(can, 0) << "devices of two backends cannot access each other";
    }
    int self = -1;
    ASSERT_OK(infinirtDeviceCanAccessPeer(&self, a().type, a().id, a().type, a().id));
    EXPECT_EQ(self, 0) << "a device is not its own peer";
    int value = -1;
    ASSERT_OK(infinirtDeviceGetPeerAttribute(&value, INFINIRT_PEER_ATTR_ACCESS_SUPPORTED, a().type, a().id, b().type,
                                             b().id));
    EXPECT_EQ(value, can);
    ASSERT_OK(infinirtDeviceGetPeerAttribute(&value, INFINIRT_PEER_ATTR_COPY_WITHOUT_STAGING, a().type, a().id,
                                             b().type, b().id));
    if (!SameBackend()) {
        // Host-direct where one device's memory is host memory (the other backend copies to and
        // from it), else staged.
        EXPECT_EQ(value, MemoryIsHost(a()) || MemoryIsHost(b()) ? 1 : 0)
            << "copies between two backends are staged unless one device's memory is host memory";
    }
    for (infinirtPeerAttribute_t attr : {INFINIRT_PEER_ATTR_NATIVE_ATOMICS_SUPPORTED, INFINIRT_PEER_ATTR_PERFORMANCE_RANK}) {
        value = -1;
        ASSERT_OK(infinirtDeviceGetPeerAttribute(&value, attr, a().type, a().id, b().type, b().id));
        EXPECT_GE(value, 0);
        if (!SameBackend()) {
            EXPECT_EQ(value, 0);
        }
    }
}

TEST_P(Peer, MemcpyPeerWithoutAccess) { CopyEverySize(11); }

TEST_P(Peer, MemcpyPeerWithAccessEnabled) {
    int can = 0;
    ASSERT_OK(infinirtDeviceCanAccessPeer(&can, b().type, b().id, a().type, a().id));
    if (!can) {
        EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtDeviceEnablePeerAccess(b().type, b().id, a().type, a().id, 0));
        GTEST_SKIP() << InstanceName(b()) << " cannot access " << InstanceName(a()) << " (covered without access)";
    }
    ASSERT_OK(infinirtDeviceEnablePeerAccess(b().type, b().id, a().type, a().id, 0));
    EXPECT_OK(infinirtDeviceEnablePeerAccess(b().type, b().id, a().type, a().id, 0)) << "enabling twice is success";
    ASSERT_OK(infinirtDeviceEnablePeerAccess(a().type, a().id, b().type, b().id, 0));
    CopyEverySize(23);
    EXPECT_OK(infinirtDeviceDisablePeerAccess(b().type, b().id, a().type, a().id));
    EXPECT_OK(infinirtDeviceDisablePeerAccess(a().type, a().id, b().type, b().id));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtDeviceDisablePeerAccess(a().type, a().id, b().type, b().id))
        << "access is no longer enabled";
    // Still copies (through the driver or staged) with access disabled again.
    CopyAndCheck(4099, 1, 2, 31);
}

// A plain Memcpy/MemcpyAsync between two devices' allocations takes the peer path, whatever kind
// it names (D2D or DEFAULT) and whatever device is current.
TEST_P(Peer, PlainMemcpyBetweenDevices) {
    const size_t size = 3 * 1000 * 1000 + 1;
    DeviceBuffer src, dst;
    ASSERT_TRUE(MallocOn(a(), src, size));
    ASSERT_TRUE(MallocOn(b(), dst, size));
    const std::vector<uint8_t> data = Pattern(size, 41);
    ASSERT_OK(infinirtMemcpy(src, data.data(), size, INFINIRT_MEMCPY_H2D));
    for (infinirtMemcpyKind_t kind : {INFINIRT_MEMCPY_D2D, INFINIRT_MEMCPY_DEFAULT}) {
        ASSERT_OK(infinirtMemset(dst, 0, size));
        ASSERT_OK(infinirtMemcpy(dst, src, size, kind));
        EXPECT_TRUE(Holds(dst, data)) << "infinirtMemcpy kind " << kind;
    }
    // Async on a stream of either device.
    for (const DeviceParam *owner : {&a(), &b()}) {
        ASSERT_OK(infinirtSetDevice(owner->type, owner->id));
        ScopedStream s;
        ASSERT_OK(s.Create());
        ASSERT_OK(infinirtMemset(dst, 0, size));
        ASSERT_OK(infinirtMemcpyAsync(dst, src, size, INFINIRT_MEMCPY_D2D, s));
        ASSERT_OK(infinirtStreamSynchronize(s));
        EXPECT_TRUE(Holds(dst, data)) << "infinirtMemcpyAsync on a stream of " << InstanceName(*owner);
    }
}

// A synchronous copy waits for the work already queued on both devices' default streams: a fill
// of the source queued on the source's default stream lands before it, and one of the destination
// queued on the destination's default stream cannot land after it.
TEST_P(Peer, SyncCopyIsOrderedAfterBothDefaultStreams) {
    DeviceBuffer src, dst;
    ASSERT_TRUE(MallocOn(a(), src, kBig));
    ASSERT_TRUE(MallocOn(b(), dst, kBig));
    for (int plain = 0; plain < 2; ++plain) {
        ASSERT_OK(infinirtMemset(src, 0, kBig));
        ASSERT_OK(infinirtMemset(dst, 0, kBig));
        ASSERT_OK(infinirtSetDevice(a().type, a().id));
        ASSERT_OK(infinirtMemsetAsync(src, 0x3c, kBig, nullptr));
        ASSERT_OK(infinirtSetDevice(b().type, b().id));
        ASSERT_OK(infinirtMemsetAsync(dst, 0x77, kBig, nullptr));
        if (plain) {
            ASSERT_OK(infinirtMemcpy(dst, src, kBig, INFINIRT_MEMCPY_D2D));
        } else {
            ASSERT_OK(infinirtMemcpyPeer(dst, b().type, b().id, src, a().type, a().id, kBig));
        }
        ASSERT_OK(infinirtDeviceSynchronize());
        EXPECT_TRUE(Holds(dst, std::vector<uint8_t>(kBig, 0x3c))) << (plain ? "infinirtMemcpy" : "infinirtMemcpyPeer");
    }
}

// A copy on the destination's stream waits (StreamWaitEvent, across devices) for a fill on the
// source's stream; a refill of the source on the source's stream waits for the copy's event. The
// copy sees the first fill and not the second; then the same with the copy on the source's stream.
TEST_P(Peer, AsyncCopiesOrderedByEventsOnBothSides) {
    REQUIRE_FEATURES_OF(b(), Feature::kStreams);
    const size_t size = 16 * 1000 * 1000 + 3;
    DeviceBuffer src, dst;
    ASSERT_TRUE(MallocOn(a(), src, size));
    ASSERT_TRUE(MallocOn(b(), dst, size));
    ASSERT_OK(infinirtMemset(dst, 0, size));
    ASSERT_OK(infinirtSetDevice(a().type, a().id));
    ScopedStream sa;
    ScopedEvent filled, refilled;
    ASSERT_OK(sa.Create());
    ASSERT_OK(filled.Create());
    ASSERT_OK(refilled.Create());
    ASSERT_OK(infinirtSetDevice(b().type, b().id));
    ScopedStream sb;
    ScopedEvent copied;
    ASSERT_OK(sb.Create());
    ASSERT_OK(copied.Create());

    // A: fill, record. B: wait, copy, record. A: wait, refill.
    ASSERT_OK(infinirtMemsetAsync(src, 0x61, size, sa));
    ASSERT_OK(infinirtEventRecord(filled, sa));
    ASSERT_OK(infinirtStreamWaitEvent(sb, filled));
    ASSERT_OK(infinirtMemcpyPeerAsync(dst, b().type, b().id, src, a().type, a().id, size, sb));
    ASSERT_OK(infinirtEventRecord(copied, sb));
    ASSERT_OK(infinirtStreamWaitEvent(sa, copied));
    ASSERT_OK(infinirtMemsetAsync(src, 0x62, size, sa));
    ASSERT_OK(infinirtEventRecord(refilled, sa));
    ASSERT_OK(infinirtStreamSynchronize(sa));
    ASSERT_OK(infinirtStreamSynchronize(sb));
    EXPECT_TRUE(Holds(dst, std::vector<uint8_t>(size, 0x61))) << "copy on the destination's stream";

    // The copy on the source's stream, after the refill: B waits for it before its own fill.
    ASSERT_OK(infinirtMemcpyPeerAsync(dst, b().type, b().id, src, a().type, a().id, size, sa));
    ASSERT_OK(infinirtEventRecord(filled, sa));
    ASSERT_OK(infinirtStreamWaitEvent(sb, filled));
    ASSERT_OK(infinirtMemsetAsync(dst, 0x63, 7, sb));
    ASSERT_OK(infinirtStreamSynchronize(sb));
    std::vector<uint8_t> expected(size, 0x62);
    std::memset(expected.data(), 0x63, 7);
    EXPECT_TRUE(Holds(dst, expected)) << "copy on the source's stream";
}

TEST_P(Peer, BadInputIsRefusedWithAMessage) {
    DeviceBuffer src, dst;
    ASSERT_TRUE(MallocOn(a(), src, 4096));
    ASSERT_TRUE(MallocOn(b(), dst, 4096));
    int value = 0;
    int count = 0;
    ASSERT_OK(infinirtGetDeviceCount(b().type, &count));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtDeviceCanAccessPeer(nullptr, a().type, a().id, b().type, b().id));
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtDeviceCanAccessPeer(&value, a().type, a().id, b().type, count));
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtDeviceCanAccessPeer(&value, a().type, a().id, b().type, -1));
    EXPECT_STATUS(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED,
                  infinirtDeviceCanAccessPeer(&value, a().type, a().id, static_cast<infiniDevice_t>(99), 0));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER,
                  infinirtDeviceGetPeerAttribute(nullptr, INFINIRT_PEER_ATTR_ACCESS_SUPPORTED, a().type, a().id,
                                                 b().type, b().id));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtDeviceGetPeerAttribute(&value, static_cast<infinirtPeerAttribute_t>(4),
                                                                          a().type, a().id, b().type, b().id));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtDeviceGetPeerAttribute(&value, INFINIRT_PEER_ATTR_ACCESS_SUPPORTED,
                                                                          a().type, a().id, a().type, a().id));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtDeviceEnablePeerAccess(a().type, a().id, a().type, a().id, 0))
        << "peer access to itself";
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtDeviceDisablePeerAccess(a().type, a().id, a().type, a().id));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtDeviceEnablePeerAccess(a().type, a().id, b().type, b().id, 1))
        << "flags must be 0";
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtDeviceEnablePeerAccess(a().type, a().id, b().type, count, 0));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtDeviceDisablePeerAccess(a().type, a().id, b().type, b().id))
        << "never enabled";

    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtMemcpyPeer(nullptr, b().type, b().id, src, a().type, a().id, 1));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtMemcpyPeer(dst, b().type, b().id, nullptr, a().type, a().id, 0));
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtMemcpyPeer(dst, b().type, count, src, a().type, a().id, 1));
    EXPECT_STATUS(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED,
                  infinirtMemcpyPeer(dst, b().type, b().id, src, static_cast<infiniDevice_t>(-1), 0, 1));
    // Ranges that overrun a known allocation, at its start and from inside it.
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemcpyPeer(dst, b().type, b().id, src, a().type, a().id, 4097));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemcpyPeer(static_cast<char *>(dst.get()) + 4000, b().type, b().id,
                                                              src, a().type, a().id, 97));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemcpyPeerAsync(dst, b().type, b().id,
                                                                   static_cast<char *>(src.get()) + 1, a().type, a().id,
                                                                   4096, nullptr));
    // Memory named with the wrong device.
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemcpyPeer(src, b().type, b().id, dst, a().type, a().id, 16));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE,
                  infinirtMemcpyPeerAsync(dst, b().type, b().id, src, a().type, a().id, 16, &value));
    EXPECT_OK(infinirtMemcpyPeer(dst, b().type, b().id, src, a().type, a().id, 0)) << "size 0 is a no-op";
}

// A stream of a third device is neither end of the copy.
TEST_P(Peer, StreamOfAThirdDeviceIsRefused) {
    const std::vector<DeviceParam> devices = AllDevices();
    const DeviceParam *third = nullptr;
    for (const DeviceParam &d : devices) {
        if (!(d.type == a().type && d.id == a().id) && !(d.type == b().type && d.id == b().id) &&
            UndeclaredReason(d.backend, Feature::kStreams) == nullptr) {
            third = &d;
            break;
        }
    }
    if (third == nullptr) {
        GTEST_SKIP() << "no third device with streams";
    }
    DeviceBuffer src, dst;
    ASSERT_TRUE(MallocOn(a(), src, 64));
    ASSERT_TRUE(MallocOn(b(), dst, 64));
    ASSERT_OK(infinirtSetDevice(third->type, third->id));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemcpyPeerAsync(dst, b().type, b().id, src, a().type, a().id, 64, nullptr));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemcpyAsync(dst, src, 64, INFINIRT_MEMCPY_D2D, nullptr));
}

INSTANTIATE_TEST_SUITE_P(Pairs, Peer, ::testing::ValuesIn(AllOrderedPairs()),
                         [](const ::testing::TestParamInfo<DevicePair> &info) {
                             return InstanceName(info.param.first) + "_to_" + InstanceName(info.param.second);
                         });
// Without a second device there is nothing to pair; that is not a failure of the suite.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Peer);

} // namespace
} // namespace infinirt_test
