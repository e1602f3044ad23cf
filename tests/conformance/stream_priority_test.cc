// Stream priorities: the range, creation with a priority, and what a stream reports.
#include "device_test.h"
#include "resources.h"

namespace infinirt_test {
namespace {

class StreamPriority : public DeviceTest {
protected:
    StreamPriority() : DeviceTest({Feature::kStreams}) {}
};

TEST_P(StreamPriority, RangeIsOrderedAsCudaNumbersIt) {
    int least = 99;
    int greatest = 99;
    ASSERT_OK(infinirtDeviceGetStreamPriorityRange(&least, &greatest, type(), id()));
    EXPECT_LE(greatest, least);
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtDeviceGetStreamPriorityRange(nullptr, &greatest, type(), id()));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtDeviceGetStreamPriorityRange(&least, nullptr, type(), id()));
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtDeviceGetStreamPriorityRange(&least, &greatest, type(), -1));
}

TEST_P(StreamPriority, EveryPriorityOfTheRangeRoundTrips) {
    int least = 0;
    int greatest = 0;
    ASSERT_OK(infinirtDeviceGetStreamPriorityRange(&least, &greatest, type(), id()));
    for (int p = greatest; p <= least; ++p) {
        infinirtStream_t s = nullptr;
        ASSERT_OK(infinirtStreamCreateWithPriority(&s, p));
        Defer destroy([&] { infinirtStreamDestroy(s); });
        int got = 99;
        ASSERT_OK(infinirtStreamGetPriority(&got, s));
        EXPECT_EQ(got, p);
        // The stream works.
        EXPECT_OK(infinirtStreamSynchronize(s));
    }
    infinirtStream_t plain = nullptr;
    ASSERT_OK(infinirtStreamCreate(&plain));
    Defer destroy([&] { infinirtStreamDestroy(plain); });
    int got = 99;
    ASSERT_OK(infinirtStreamGetPriority(&got, plain));
    EXPECT_EQ(got, 0);
    ASSERT_OK(infinirtStreamGetPriority(&got, nullptr));
    EXPECT_EQ(got, 0);
}

TEST_P(StreamPriority, OutOfRangeIsRefusedNotClamped) {
    int least = 0;
    int greatest = 0;
    ASSERT_OK(infinirtDeviceGetStreamPriorityRange(&least, &greatest, type(), id()));
    infinirtStream_t s = nullptr;
    EXPECT_REFUSED(infinirtStreamCreateWithPriority(&s, least + 1));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtStreamCreateWithPriority(&s, least + 1));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtStreamCreateWithPriority(&s, greatest - 1));
    EXPECT_EQ(s, nullptr);
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtStreamCreateWithPriority(nullptr, least));
}

TEST_P(StreamPriority, BadHandlesAreRefused) {
    int got = 99;
    infinirtStream_t s = nullptr;
    ASSERT_OK(infinirtStreamCreate(&s));
    ASSERT_OK(infinirtStreamDestroy(s));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamGetPriority(&got, s));
    EXPECT_EQ(got, 99);
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtStreamGetPriority(nullptr, nullptr));
}

INSTANTIATE_ON_ALL_DEVICES(StreamPriority);

} // namespace
} // namespace infinirt_test
