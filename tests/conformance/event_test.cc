// Events: status before and after completion, synchronisation, re-recording, timing and flags.
#include "device_test.h"

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
    infinirtEvent_t e = nullptr;
    ASSERT_OK(infinirtEventCreate(&e));
    ASSERT_NE(e, nullptr);
    Defer destroy_e([&] { infinirtEventDestroy(e); });
    infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
    ASSERT_OK(infinirtEventQuery(e, &status));
    EXPECT_EQ(status, INFINIRT_EVENT_COMPLETE);
    EXPECT_OK(infinirtEventSynchronize(e));
}

TEST_P(Event, CompleteAfterSynchronize) {
    infinirtStream_t s = nullptr;
    ASSERT_OK(infinirtStreamCreate(&s));
    Defer destroy_s([&] { infinirtStreamDestroy(s); });
    infinirtEvent_t e = nullptr;
    ASSERT_OK(infinirtEventCreate(&e));
    Defer destroy_e([&] { infinirtEventDestroy(e); });
    void *d = nullptr;
    ASSERT_OK(infinirtMalloc(&d, kSize));
    Defer free_d([&] { infinirtFree(d); });
    void *h = nullptr;
    ASSERT_OK(infinirtMallocHost(&h, kSize));
    Defer free_h([&] { infinirtFreeHost(h); });
    std::memset(h, 0, kSize);
    BusyWork busy;
    Defer free_busy([&] {
        infinirtStreamSynchronize(s);
        FreeBusyWork(busy);
    });
    ASSERT_TRUE(EnqueueBusyWork(s, kBusyBytes, kBusyRounds, &busy));
    ASSERT_OK(infinirtMemsetAsync(d, 0x2f, kSize, s));
    ASSERT_OK(infinirtMemcpyAsync(h, d, kSize, INFINIRT_MEMCPY_D2H, s));
    ASSERT_OK(infinirtEventRecord(e, s));
    infinirtEventStatus_t before = INFINIRT_EVENT_COMPLETE;
    ASSERT_OK(infinirtEventQuery(e, &before));
    EXPECT_TRUE(before == INFINIRT_EVENT_COMPLETE || before == INFINIRT_EVENT_NOT_READY) << before;
    ASSERT_OK(infinirtEventSynchronize(e));
    const std::vector<uint8_t> expected(kSize, 0x2f);
    EXPECT_EQ(0, std::memcmp(h, expected.data(), kSize));
    infinirtEventStatus_t after = INFINIRT_EVENT_NOT_READY;
    ASSERT_OK(infinirtEventQuery(e, &after));
    EXPECT_EQ(after, INFINIRT_EVENT_COMPLETE);
}

// Once EventQuery reports COMPLETE, the work recorded before the event is visible to the host.
TEST_P(Event, QueryCompleteMeansWorkIsDone) {
    infinirtStream_t s = nullptr;
    ASSERT_OK(infinirtStreamCreate(&s));
    Defer destroy_s([&] { infinirtStreamDestroy(s); });
    infinirtEvent_t e = nullptr;
    ASSERT_OK(infinirtEventCreateWithFlags(&e, INFINIRT_EVENT_DISABLE_TIMING));
    Defer destroy_e([&] { infinirtEventDestroy(e); });
    void *d = nullptr;
    ASSERT_OK(infinirtMalloc(&d, kSize));
    Defer free_d([&] { infinirtFree(d); });
    void *h = nullptr;
    ASSERT_OK(infinirtMallocHost(&h, kSize));
    Defer free_h([&] { infinirtFreeHost(h); });
    std::memset(h, 0, kSize);
    BusyWork busy;
    Defer free_busy([&] {
        infinirtStreamSynchronize(s);
        FreeBusyWork(busy);
    });
    ASSERT_TRUE(EnqueueBusyWork(s, kBusyBytes, kBusyRounds, &busy));
    ASSERT_OK(infinirtMemsetAsync(d, 0x4e, kSize, s));
    ASSERT_OK(infinirtMemcpyAsync(h, d, kSize, INFINIRT_MEMCPY_D2H, s));
    ASSERT_OK(infinirtEventRecord(e, s));
    ASSERT_TRUE(PollUntilDone([&] { return QueryAsStatus(e); }));
    const std::vector<uint8_t> expected(kSize, 0x4e);
    EXPECT_EQ(0, std::memcmp(h, expected.data(), kSize));
}

TEST_P(Event, RecordOnDefaultStream) {
    infinirtEvent_t e = nullptr;
    ASSERT_OK(infinirtEventCreate(&e));
    Defer destroy_e([&] { infinirtEventDestroy(e); });
    void *d = nullptr;
    ASSERT_OK(infinirtMalloc(&d, kSize));
    Defer free_d([&] { infinirtFree(d); });
    void *h = nullptr;
    ASSERT_OK(infinirtMallocHost(&h, kSize));
    Defer free_h([&] { infinirtFreeHost(h); });
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
    infinirtStream_t s = nullptr;
    ASSERT_OK(infinirtStreamCreate(&s));
    Defer destroy_s([&] { infinirtStreamDestroy(s); });
    infinirtEvent_t e = nullptr;
    ASSERT_OK(infinirtEventCreate(&e));
    Defer destroy_e([&] { infinirtEventDestroy(e); });
    void *d = nullptr;
    ASSERT_OK(infinirtMalloc(&d, kSize));
    Defer free_d([&] { infinirtFree(d); });
    void *h = nullptr;
    ASSERT_OK(infinirtMallocHost(&h, kSize));
    Defer free_h([&] { infinirtFreeHost(h); });
    BusyWork busy;
    Defer free_busy([&] {
        infinirtStreamSynchronize(s);
        FreeBusyWork(busy);
    });
    ASSERT_OK(infinirtMemsetAsync(d, 0x01, kSize, s));
    ASSERT_OK(infinirtEventRecord(e, s));
    ASSERT_OK(infinirtEventSynchronize(e));
    std::memset(h, 0, kSize);
    ASSERT_TRUE(EnqueueBusyWork(s, kBusyBytes, kBusyRounds, &busy));
    ASSERT_OK(infinirtMemsetAsync(d, 0x02, kSize, s));
    ASSERT_OK(infinirtMemcpyAsync(h, d, kSize, INFINIRT_MEMCPY_D2H, s));
    ASSERT_OK(infinirtEventRecord(e, s));
    ASSERT_OK(infinirtEventSynchronize(e));
    const std::vector<uint8_t> expected(kSize, 0x02);
    EXPECT_EQ(0, std::memcmp(h, expected.data(), kSize));
}

TEST_P(Event, ElapsedTimeOfOrderedEvents) {
    SKIP_IF_BACKEND_LACKS(backend(), Feature::kEventTiming);
    infinirtStream_t s = nullptr;
    ASSERT_OK(infinirtStreamCreate(&s));
    Defer destroy_s([&] { infinirtStreamDestroy(s); });
    infinirtEvent_t start = nullptr;
    infinirtEvent_t end = nullptr;
    ASSERT_OK(infinirtEventCreate(&start));
    Defer destroy_start([&] { infinirtEventDestroy(start); });
    ASSERT_OK(infinirtEventCreateWithFlags(&end, INFINIRT_EVENT_DEFAULT));
    Defer destroy_end([&] { infinirtEventDestroy(end); });
    BusyWork busy;
    Defer free_busy([&] {
        infinirtStreamSynchronize(s);
        FreeBusyWork(busy);
    });
    ASSERT_OK(infinirtEventRecord(start, s));
    ASSERT_TRUE(EnqueueBusyWork(s, kBusyBytes, kBusyRounds / 4, &busy));
    ASSERT_OK(infinirtEventRecord(end, s));
    ASSERT_OK(infinirtEventSynchronize(end));
    float ms = -1.0f;
    ASSERT_OK(infinirtEventElapsedTime(&ms, start, end));
    EXPECT_GE(ms, 0.0f);
}

TEST_P(Event, ElapsedTimeRefusesDisableTiming) {
    infinirtEvent_t timed = nullptr;
    infinirtEvent_t untimed = nullptr;
    ASSERT_OK(infinirtEventCreate(&timed));
    Defer destroy_timed([&] { infinirtEventDestroy(timed); });
    ASSERT_OK(infinirtEventCreateWithFlags(&untimed, INFINIRT_EVENT_DISABLE_TIMING));
    Defer destroy_untimed([&] { infinirtEventDestroy(untimed); });
    ASSERT_OK(infinirtEventRecord(timed, nullptr));
    ASSERT_OK(infinirtEventRecord(untimed, nullptr));
    ASSERT_OK(infinirtStreamSynchronize(nullptr));
    float ms = -42.0f;
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtEventElapsedTime(&ms, timed, untimed));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtEventElapsedTime(&ms, untimed, timed));
    EXPECT_EQ(ms, -42.0f) << "output written on failure";
}

TEST_P(Event, ElapsedTimeRefusesNeverRecorded) {
    infinirtEvent_t recorded = nullptr;
    infinirtEvent_t never = nullptr;
    ASSERT_OK(infinirtEventCreate(&recorded));
    Defer destroy_recorded([&] { infinirtEventDestroy(recorded); });
    ASSERT_OK(infinirtEventCreate(&never));
    Defer destroy_never([&] { infinirtEventDestroy(never); });
    ASSERT_OK(infinirtEventRecord(recorded, nullptr));
    ASSERT_OK(infinirtEventSynchronize(recorded));
    float ms = -42.0f;
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtEventElapsedTime(&ms, recorded, never));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtEventElapsedTime(&ms, never, recorded));
    EXPECT_EQ(ms, -42.0f) << "output written on failure";
}

TEST_P(Event, EveryValidFlagCombination) {
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

TEST_P(Event, NativeHandleIsSuccessOrNotImplemented) {
    infinirtEvent_t e = nullptr;
    ASSERT_OK(infinirtEventCreate(&e));
    Defer destroy_e([&] { infinirtEventDestroy(e); });
    void *native = nullptr;
    const infiniStatus_t status = infinirtEventGetNativeHandle(e, &native);
    EXPECT_TRUE(status == INFINI_STATUS_SUCCESS || status == INFINI_STATUS_NOT_IMPLEMENTED)
        << infinirtGetErrorName(status);
}

INSTANTIATE_ON_ALL_DEVICES(Event);

} // namespace
} // namespace infinirt_test
