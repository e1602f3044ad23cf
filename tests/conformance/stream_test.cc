// Streams: in-order execution, query, synchronisation, destruction waiting for work, and ordering
// across streams through StreamWaitEvent.
#include "device_test.h"
#include "resources.h"

#include <chrono>
#include <cstring>
#include <thread>

namespace infinirt_test {
namespace {

class Stream : public DeviceTest {
protected:
    Stream() : DeviceTest({Feature::kStreams}) {}
};

constexpr size_t kSize = 1 << 20;

TEST_P(Stream, CreateSynchronizeDestroy) {
    infinirtStream_t s = nullptr;
    ASSERT_OK(infinirtStreamCreate(&s));
    ASSERT_NE(s, nullptr);
    EXPECT_OK(infinirtStreamSynchronize(s));
    EXPECT_OK(infinirtStreamDestroy(s));
}

// Declared: an idle stream, created or default, is SUCCESS. Not declared: NOT_IMPLEMENTED with a
// message for both, and the test skips with the reason.
// A stream names its own device; NULL names the current device; bad input is refused.
TEST_P(Stream, GetDevice) {
    ScopedStream s;
    ASSERT_OK(s.Create());
    infiniDevice_t type = INFINI_DEVICE_TYPE_COUNT;
    int id = -1;
    ASSERT_OK(infinirtStreamGetDevice(s, &type, &id));
    EXPECT_EQ(type, this->type());
    EXPECT_EQ(id, this->id());
    type = INFINI_DEVICE_TYPE_COUNT;
    id = -1;
    ASSERT_OK(infinirtStreamGetDevice(nullptr, &type, &id));
    EXPECT_EQ(type, this->type());
    EXPECT_EQ(id, this->id());
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtStreamGetDevice(s, nullptr, &id));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtStreamGetDevice(s, &type, nullptr));
    type = INFINI_DEVICE_TYPE_COUNT;
    id = -7;
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE,
                  infinirtStreamGetDevice(reinterpret_cast<infinirtStream_t>(uintptr_t{0x1234}), &type, &id));
    EXPECT_EQ(type, INFINI_DEVICE_TYPE_COUNT);
    EXPECT_EQ(id, -7);
}

TEST_P(Stream, QueryOfIdleStreams) {
    ScopedStream s;
    ASSERT_OK(s.Create());
    if (const char *reason = UndeclaredReason(backend(), Feature::kStreamQuery)) {
        EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtStreamQuery(s));
        EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtStreamQuery(nullptr));
        GTEST_SKIP() << "backend \"" << backend() << "\" does not declare stream_query: " << reason;
    }
    EXPECT_OK(infinirtStreamQuery(s));
    EXPECT_OK(infinirtStreamQuery(nullptr));
}

TEST_P(Stream, ManyStreamsAtOnce) {
    REQUIRE_FEATURES(Feature::kMemory);
    constexpr int kStreams = 32;
    std::vector<infinirtStream_t> streams(kStreams, nullptr);
    for (auto &s : streams) {
        ASSERT_OK(infinirtStreamCreate(&s));
    }
    Defer destroy([&] {
        for (auto s : streams) {
            if (s != nullptr) {
                infinirtStreamDestroy(s);
            }
        }
    });
    for (int i = 0; i + 1 < kStreams; ++i) {
        EXPECT_NE(streams[i], streams[i + 1]);
    }
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kStreams * 64));
    for (int i = 0; i < kStreams; ++i) {
        ASSERT_OK(infinirtMemsetAsync(static_cast<uint8_t *>(d.get()) + i * 64, i, 64, streams[i]));
    }
    for (auto s : streams) {
        ASSERT_OK(infinirtStreamSynchronize(s));
    }
    std::vector<uint8_t> back(kStreams * 64);
    ASSERT_OK(infinirtMemcpy(back.data(), d, back.size(), INFINIRT_MEMCPY_D2H));
    for (size_t i = 0; i < back.size(); ++i) {
        ASSERT_EQ(back[i], i / 64) << "byte " << i;
    }
}

TEST_P(Stream, QueryIsSuccessAfterSynchronize) {
    REQUIRE_FEATURES(Feature::kMemory, Feature::kStreamQuery);
    ScopedStream s;
    ASSERT_OK(s.Create());
    ScopedBusyWork busy(s);
    ASSERT_TRUE(busy.Enqueue());
    const infiniStatus_t pending = infinirtStreamQuery(s);
    EXPECT_TRUE(pending == INFINI_STATUS_SUCCESS || pending == INFINI_STATUS_NOT_READY)
        << infinirtGetErrorName(pending);
    ASSERT_OK(infinirtStreamSynchronize(s));
    EXPECT_OK(infinirtStreamQuery(s));
}

TEST_P(Stream, DefaultStreamQueryAndSynchronize) {
    REQUIRE_FEATURES(Feature::kMemory, Feature::kStreamQuery);
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    ASSERT_OK(infinirtMemsetAsync(d, 1, kSize, nullptr));
    ASSERT_OK(infinirtStreamSynchronize(nullptr));
    EXPECT_OK(infinirtStreamQuery(nullptr));
}

// Once StreamQuery reports SUCCESS, the stream's copies into pinned memory are visible to the
// host without any further call.
TEST_P(Stream, QuerySuccessMeansWorkIsDone) {
    REQUIRE_FEATURES(Feature::kMemory, Feature::kStreamQuery);
    ScopedStream s;
    ASSERT_OK(s.Create());
    PendingCopy copy(s);
    ASSERT_NO_FATAL_FAILURE(copy.Enqueue(kSize, 0x7d));
    ASSERT_TRUE(PollUntilDone([&] { return infinirtStreamQuery(s); }));
    const std::vector<uint8_t> expected(kSize, 0x7d);
    EXPECT_EQ(0, std::memcmp(copy.host, expected.data(), kSize));
}

// StreamDestroy waits for pending work before destroying.
TEST_P(Stream, DestroyWaitsForPendingWork) {
    REQUIRE_FEATURES(Feature::kMemory);
    infinirtStream_t s = nullptr;
    ASSERT_OK(infinirtStreamCreate(&s));
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    PinnedBuffer h;
    ASSERT_OK(h.MallocHost(kSize));
    std::memset(h, 0, kSize);
    BusyWork busy;
    Defer free_busy([&] { FreeBusyWork(busy); });
    const ::testing::AssertionResult enqueued = EnqueueBusyWork(s, kBusyBytes, kBusyRounds, &busy);
    const infiniStatus_t memset_status = infinirtMemsetAsync(d, 0x19, kSize, s);
    const infiniStatus_t copy_status = infinirtMemcpyAsync(h, d, kSize, INFINIRT_MEMCPY_D2H, s);
    ASSERT_OK(infinirtStreamDestroy(s));
    ASSERT_TRUE(enqueued);
    ASSERT_EQ(memset_status, INFINI_STATUS_SUCCESS);
    ASSERT_EQ(copy_status, INFINI_STATUS_SUCCESS);
    const std::vector<uint8_t> expected(kSize, 0x19);
    EXPECT_EQ(0, std::memcmp(h, expected.data(), kSize));
}

// Stream A is kept busy and then writes `value`; B waits on an event recorded after that write
// and copies the buffer out. Without the wait B would copy before A's write has run.
TEST_P(Stream, WaitEventOrdersAcrossStreams) {
    REQUIRE_FEATURES(Feature::kMemory, Feature::kEvents);
    ScopedStream a;
    ScopedStream b;
    ASSERT_OK(a.Create());
    ASSERT_OK(b.Create());
    ScopedEvent e;
    ASSERT_OK(e.CreateWithFlags(INFINIRT_EVENT_DISABLE_TIMING));
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    PinnedBuffer h;
    ASSERT_OK(h.MallocHost(kSize));
    ScopedBusyWork busy(a, /*also_synchronize=*/{b});
    ASSERT_OK(infinirtMemset(d, 0, kSize));
    for (int round = 1; round <= 3; ++round) {
        std::memset(h, 0, kSize);
        ASSERT_TRUE(busy.Enqueue());
        ASSERT_OK(infinirtMemsetAsync(d, 0x30 + round, kSize, a));
        ASSERT_OK(infinirtEventRecord(e, a));
        ASSERT_OK(infinirtStreamWaitEvent(b, e));
        ASSERT_OK(infinirtMemcpyAsync(h, d, kSize, INFINIRT_MEMCPY_D2H, b));
        ASSERT_OK(infinirtStreamSynchronize(b));
        const std::vector<uint8_t> expected(kSize, static_cast<uint8_t>(0x30 + round));
        EXPECT_EQ(0, std::memcmp(h, expected.data(), kSize)) << "round " << round;
        ASSERT_OK(infinirtStreamSynchronize(a));
        busy.Free();
    }
}

// The default stream can wait on an event of a created stream, and the other way round.
TEST_P(Stream, WaitEventWithDefaultStream) {
    REQUIRE_FEATURES(Feature::kMemory, Feature::kEvents);
    ScopedStream a;
    ASSERT_OK(a.Create());
    ScopedEvent e;
    ASSERT_OK(e.Create());
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    PinnedBuffer h;
    ASSERT_OK(h.MallocHost(kSize));
    std::memset(h, 0, kSize);
    ScopedBusyWork busy(a, /*also_synchronize=*/{nullptr});
    ASSERT_TRUE(busy.Enqueue());
    ASSERT_OK(infinirtMemsetAsync(d, 0x44, kSize, a));
    ASSERT_OK(infinirtEventRecord(e, a));
    ASSERT_OK(infinirtStreamWaitEvent(nullptr, e));
    ASSERT_OK(infinirtMemcpyAsync(h, d, kSize, INFINIRT_MEMCPY_D2H, nullptr));
    ASSERT_OK(infinirtStreamSynchronize(nullptr));
    const std::vector<uint8_t> expected(kSize, 0x44);
    EXPECT_EQ(0, std::memcmp(h, expected.data(), kSize));
}

// Waiting on an event that was never recorded does not block (such an event is COMPLETE).
TEST_P(Stream, WaitOnNeverRecordedEventDoesNotBlock) {
    REQUIRE_FEATURES(Feature::kEvents);
    ScopedStream s;
    ASSERT_OK(s.Create());
    ScopedEvent e;
    ASSERT_OK(e.Create());
    ASSERT_OK(infinirtStreamWaitEvent(s, e));
    EXPECT_OK(infinirtStreamSynchronize(s));
}

// DeviceSynchronize waits for every stream of the current device.
TEST_P(Stream, DeviceSynchronizeWaitsForAllStreams) {
    REQUIRE_FEATURES(Feature::kMemory, Feature::kStreamQuery);
    constexpr int kStreams = 3;
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    infinirtStream_t streams[kStreams] = {};
    void *hosts[kStreams] = {};
    BusyWork busy[kStreams];
    Defer cleanup([&] {
        for (int i = 0; i < kStreams; ++i) {
            if (streams[i] != nullptr) {
                infinirtStreamDestroy(streams[i]);
            }
            FreeBusyWork(busy[i]);
            infinirtFreeHost(hosts[i]);
        }
    });
    ASSERT_OK(infinirtMemset(d, 0x6b, kSize));
    for (int i = 0; i < kStreams; ++i) {
        ASSERT_OK(infinirtStreamCreate(&streams[i]));
        ASSERT_OK(infinirtMallocHost(&hosts[i], kSize));
        std::memset(hosts[i], 0, kSize);
        ASSERT_TRUE(EnqueueBusyWork(streams[i], kBusyBytes / 2, kBusyRounds / 2, &busy[i]));
        ASSERT_OK(infinirtMemcpyAsync(hosts[i], d, kSize, INFINIRT_MEMCPY_D2H, streams[i]));
    }
    ASSERT_OK(infinirtDeviceSynchronize());
    const std::vector<uint8_t> expected(kSize, 0x6b);
    for (int i = 0; i < kStreams; ++i) {
        EXPECT_EQ(0, std::memcmp(hosts[i], expected.data(), kSize)) << "stream " << i;
        EXPECT_OK(infinirtStreamQuery(streams[i]));
    }
}

// Declared: the native queue of a created stream (non-NULL) and of the default stream. Not
// declared: NOT_IMPLEMENTED with a message for both, output untouched, and the test skips.
TEST_P(Stream, NativeHandle) {
    ScopedStream s;
    ASSERT_OK(s.Create());
    void *native = nullptr;
    if (const char *reason = UndeclaredReason(backend(), Feature::kNativeHandles)) {
        EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtStreamGetNativeHandle(s, &native));
        EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtStreamGetNativeHandle(nullptr, &native));
        EXPECT_EQ(native, nullptr) << "output written on failure";
        GTEST_SKIP() << "backend \"" << backend() << "\" does not declare native_handles: " << reason;
    }
    ASSERT_OK(infinirtStreamGetNativeHandle(s, &native));
    EXPECT_NE(native, nullptr) << "a created stream has a native queue";
    // The default stream's native object may legitimately be NULL (CUDA's legacy stream is 0).
    EXPECT_OK(infinirtStreamGetNativeHandle(nullptr, &native));
}

INSTANTIATE_ON_ALL_DEVICES(Stream);

} // namespace
} // namespace infinirt_test
