// Events: status before and after completion, synchronisation, re-recording, timing and flags.
#include "device_test.h"
#include "resources.h"

#include <cstring>

namespace infinirt_test {
namespace {

class Event : public DeviceTest {};

constexpr size_t kSize = 1 << 20;

// EventQuery folded into the SUCCESS / NOT_READY convention PollUntilDone understands.
infiniStatus_t QueryAsStatus(infinirtEvent_t e) {
    infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
    const infiniStatus_t rc = infinirtEventQuery(e, &status);
    if (rc != INFINI_STATUS_SUCCESS) {
        return rc;
    }
    if (status == INFINIRT_EVENT_COMPLETE) {
        return INFINI_STATUS_SUCCESS;
    }
    return status == INFINIRT_EVENT_NOT_READY ? INFINI_STATUS_NOT_READY : INFINI_STATUS_INTERNAL_ERROR;
}

TEST_P(Event, NeverRecordedIsComplete) {
    REQUIRE_FEATURES(Feature::kEvents);
    ScopedEvent e;
    ASSERT_OK(e.Create());
    ASSERT_NE(e.get(), nullptr);
    infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
    ASSERT_OK(infinirtEventQuery(e, &status));
    EXPECT_EQ(status, INFINIRT_EVENT_COMPLETE);
    EXPECT_OK(infinirtEventSynchronize(e));
}

TEST_P(Event, CompleteAfterSynchronize) {
    REQUIRE_FEATURES(Feature::kEvents, Feature::kStreams, Feature::kMemory);
    ScopedStream s;
    ASSERT_OK(s.Create());
    ScopedEvent e;
    ASSERT_OK(e.Create());
    PendingCopy copy(s);
    ASSERT_NO_FATAL_FAILURE(copy.Enqueue(kSize, 0x2f));
    ASSERT_OK(infinirtEventRecord(e, s));
    infinirtEventStatus_t before = INFINIRT_EVENT_COMPLETE;
    ASSERT_OK(infinirtEventQuery(e, &before));
    EXPECT_TRUE(before == INFINIRT_EVENT_COMPLETE || before == INFINIRT_EVENT_NOT_READY) << before;
    ASSERT_OK(infinirtEventSynchronize(e));
    const std::vector<uint8_t> expected(kSize, 0x2f);
    EXPECT_EQ(0, std::memcmp(copy.host, expected.data(), kSize));
    infinirtEventStatus_t after = INFINIRT_EVENT_NOT_READY;
    ASSERT_OK(infinirtEventQuery(e, &after));
    EXPECT_EQ(after, INFINIRT_EVENT_COMPLETE);
}

// Once EventQuery reports COMPLETE, the work recorded before the event is visible to the host.
TEST_P(Event, QueryCompleteMeansWorkIsDone) {
    REQUIRE_FEATURES(Feature::kEvents, Feature::kStreams, Feature::kMemory);
    ScopedStream s;
    ASSERT_OK(s.Create());
    ScopedEvent e;
    ASSERT_OK(e.CreateWithFlags(INFINIRT_EVENT_DISABLE_TIMING));
    PendingCopy copy(s);
    ASSERT_NO_FATAL_FAILURE(copy.Enqueue(kSize, 0x4e));
    ASSERT_OK(infinirtEventRecord(e, s));
    ASSERT_TRUE(PollUntilDone([&] { return QueryAsStatus(e); }));
    const std::vector<uint8_t> expected(kSize, 0x4e);
    EXPECT_EQ(0, std::memcmp(copy.host, expected.data(), kSize));
}

TEST_P(Event, RecordOnDefaultStream) {
    REQUIRE_FEATURES(Feature::kEvents, Feature::kStreams, Feature::kMemory);
    ScopedEvent e;
    ASSERT_OK(e.Create());
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    PinnedBuffer h;
    ASSERT_OK(h.MallocHost(kSize));
    std::memset(h, 0, kSize);
    Defer drain([&] { infinirtStreamSynchronize(nullptr); });
    ASSERT_OK(infinirtMemsetAsync(d, 0x15, kSize, nullptr));
    ASSERT_OK(infinirtMemcpyAsync(h, d, kSize, INFINIRT_MEMCPY_D2H, nullptr));
    ASSERT_OK(infinirtEventRecord(e, nullptr));
    ASSERT_OK(infinirtEventSynchronize(e));
    const std::vector<uint8_t> expected(kSize, 0x15);
    EXPECT_EQ(0, std::memcmp(h, expected.data(), kSize));
}

// Recording again moves the event to the new point in the stream.
TEST_P(Event, ReRecordTracksTheLatestWork) {
    REQUIRE_FEATURES(Feature::kEvents, Feature::kStreams, Feature::kMemory);
    ScopedStream s;
    ASSERT_OK(s.Create());
    ScopedEvent e;
    ASSERT_OK(e.Create());
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    PinnedBuffer h;
    ASSERT_OK(h.MallocHost(kSize));
    ScopedBusyWork busy(s);
    ASSERT_OK(infinirtMemsetAsync(d, 0x01, kSize, s));
    ASSERT_OK(infinirtEventRecord(e, s));
    ASSERT_OK(infinirtEventSynchronize(e));
    std::memset(h, 0, kSize);
    ASSERT_TRUE(busy.Enqueue());
    ASSERT_OK(infinirtMemsetAsync(d, 0x02, kSize, s));
    ASSERT_OK(infinirtMemcpyAsync(h, d, kSize, INFINIRT_MEMCPY_D2H, s));
    ASSERT_OK(infinirtEventRecord(e, s));
    ASSERT_OK(infinirtEventSynchronize(e));
    const std::vector<uint8_t> expected(kSize, 0x02);
    EXPECT_EQ(0, std::memcmp(h, expected.data(), kSize));
}

TEST_P(Event, ElapsedTimeOfOrderedEvents) {
    REQUIRE_FEATURES(Feature::kEvents, Feature::kStreams, Feature::kMemory, Feature::kEventTiming);
    ScopedStream s;
    ASSERT_OK(s.Create());
    ScopedEvent start;
    ScopedEvent end;
    ASSERT_OK(start.Create());
    ASSERT_OK(end.CreateWithFlags(INFINIRT_EVENT_DEFAULT));
    ScopedBusyWork busy(s);
    ASSERT_OK(infinirtEventRecord(start, s));
    ASSERT_TRUE(busy.Enqueue(kBusyBytes, kBusyRounds / 4));
    ASSERT_OK(infinirtEventRecord(end, s));
    ASSERT_OK(infinirtEventSynchronize(end));
    float ms = -1.0f;
    ASSERT_OK(infinirtEventElapsedTime(&ms, start, end));
    EXPECT_GE(ms, 0.0f);
}

TEST_P(Event, ElapsedTimeRefusesDisableTiming) {
    REQUIRE_FEATURES(Feature::kEvents, Feature::kStreams, Feature::kEventTiming);
    ScopedEvent timed;
    ScopedEvent untimed;
    ASSERT_OK(timed.Create());
    ASSERT_OK(untimed.CreateWithFlags(INFINIRT_EVENT_DISABLE_TIMING));
    ASSERT_OK(infinirtEventRecord(timed, nullptr));
    ASSERT_OK(infinirtEventRecord(untimed, nullptr));
    ASSERT_OK(infinirtStreamSynchronize(nullptr));
    float ms = -42.0f;
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtEventElapsedTime(&ms, timed, untimed));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtEventElapsedTime(&ms, untimed, timed));
    EXPECT_EQ(ms, -42.0f) << "output written on failure";
}

TEST_P(Event, ElapsedTimeRefusesNeverRecorded) {
    REQUIRE_FEATURES(Feature::kEvents, Feature::kEventTiming);
    ScopedEvent recorded;
    ScopedEvent never;
    ASSERT_OK(recorded.Create());
    ASSERT_OK(never.Create());
    ASSERT_OK(infinirtEventRecord(recorded, nullptr));
    ASSERT_OK(infinirtEventSynchronize(recorded));
    float ms = -42.0f;
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtEventElapsedTime(&ms, recorded, never));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtEventElapsedTime(&ms, never, recorded));
    EXPECT_EQ(ms, -42.0f) << "output written on failure";
}

TEST_P(Event, EveryValidFlagCombination) {
    REQUIRE_FEATURES(Feature::kEvents);
    for (uint32_t flags : {0u, 1u, 2u, 3u}) {
        infinirtEvent_t e = nullptr;
        ASSERT_OK(infinirtEventCreateWithFlags(&e, flags));
        EXPECT_OK(infinirtEventRecord(e, nullptr));
        EXPECT_OK(infinirtEventSynchronize(e));
        EXPECT_OK(infinirtEventDestroy(e));
    }
}

TEST_P(Event, InvalidFlagsAreRefused) {
    for (uint32_t flags : {4u, 0x100u, 0x80000000u, 0xffffffffu}) {
        infinirtEvent_t e = reinterpret_cast<infinirtEvent_t>(0x1);
        EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtEventCreateWithFlags(&e, flags));
        EXPECT_EQ(e, reinterpret_cast<infinirtEvent_t>(0x1)) << "output written on failure, flags " << flags;
    }
}

// Declared: SUCCESS (what the native object is before the first record is the backend's: OpenCL
// has no event until one is recorded). Not declared: NOT_IMPLEMENTED with a message, output
// untouched, and the test skips with the reason.
TEST_P(Event, NativeHandle) {
    REQUIRE_FEATURES(Feature::kEvents);
    ScopedEvent e;
    ASSERT_OK(e.Create());
    void *native = nullptr;
    if (const char *reason = UndeclaredReason(backend(), Feature::kNativeHandles)) {
        EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtEventGetNativeHandle(e, &native));
        EXPECT_EQ(native, nullptr) << "output written on failure";
        GTEST_SKIP() << "backend \"" << backend() << "\" does not declare native_handles: " << reason;
    }
    EXPECT_OK(infinirtEventGetNativeHandle(e, &native));
    ASSERT_OK(infinirtEventRecord(e, nullptr));
    ASSERT_OK(infinirtEventSynchronize(e));
    EXPECT_OK(infinirtEventGetNativeHandle(e, &native));
    EXPECT_NE(native, nullptr) << "a recorded event has a native object";
}

INSTANTIATE_ON_ALL_DEVICES(Event);

} // namespace
} // namespace infinirt_test
