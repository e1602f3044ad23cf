// Stream priorities: the range, creation with a priority, and what a stream reports.
#include "device_test.h"
#include "kernel_images.h"
#include "resources.h"

#include <algorithm>
#include <vector>

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
        ScopedStream s;
        ASSERT_OK(s.CreateWithPriority(p));
        int got = 99;
        ASSERT_OK(infinirtStreamGetPriority(&got, s));
        EXPECT_EQ(got, p);
        // The stream works.
        EXPECT_OK(infinirtStreamSynchronize(s));
    }
    ScopedStream plain;
    ASSERT_OK(plain.Create());
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

// cpu makes priorities real: its kernel pool takes blocks of higher-priority launches first. A
// short launch on the greatest priority, issued after a long one on the least, finishes before
// the long one's remaining blocks.
TEST_P(StreamPriority, CpuRunsTheHigherPriorityLaunchFirst) {
    if (type() != INFINI_DEVICE_CPU) {
        GTEST_SKIP() << "the ordering is cpu's (other backends leave it to their hardware)";
    }
    REQUIRE_FEATURES(Feature::kKernels);
    ScopedModule module;
    infinirtKernel_t ticket = nullptr;
    ASSERT_TRUE(LoadKernel(GetParam(), &module, "ticket", &ticket));
    int least = 0;
    int greatest = 0;
    ASSERT_OK(infinirtDeviceGetStreamPriorityRange(&least, &greatest, type(), id()));
    ASSERT_LT(greatest, least);
    ScopedStream low;
    ScopedStream high;
    ASSERT_OK(low.CreateWithPriority(least));
    ASSERT_OK(high.CreateWithPriority(greatest));

    constexpr uint32_t kLong = 256;
    constexpr uint32_t kShort = 4;
    DeviceBuffer counter;
    DeviceBuffer long_tickets;
    DeviceBuffer short_tickets;
    ASSERT_OK(counter.Malloc(sizeof(int32_t)));
    ASSERT_OK(long_tickets.Malloc(kLong * sizeof(int32_t)));
    ASSERT_OK(short_tickets.Malloc(kShort * sizeof(int32_t)));
    ASSERT_OK(infinirtMemset(counter, 0, sizeof(int32_t)));
    void *counter_ptr = counter;
    void *long_ptr = long_tickets;
    void *short_ptr = short_tickets;
    const uint64_t work = 200000; // a fraction of a millisecond per block
    const infinirtKernelArg_t long_args[] = {ValueArg(&work), PointerArg(&counter_ptr), PointerArg(&long_ptr)};
    const infinirtKernelArg_t short_args[] = {ValueArg(&work), PointerArg(&counter_ptr), PointerArg(&short_ptr)};
    const infinirtLaunchConfig_t long_config = LaunchConfig({kLong, 1, 1}, {1, 1, 1});
    const infinirtLaunchConfig_t short_config = LaunchConfig({kShort, 1, 1}, {1, 1, 1});
    ASSERT_OK(infinirtLaunchKernel(ticket, &long_config, long_args, 3, low));
    ASSERT_OK(infinirtLaunchKernel(ticket, &short_config, short_args, 3, high));
    ASSERT_OK(infinirtStreamSynchronize(high));
    ASSERT_OK(infinirtStreamSynchronize(low));

    std::vector<int32_t> long_order(kLong);
    std::vector<int32_t> short_order(kShort);
    ASSERT_OK(Download(&long_order, long_tickets));
    ASSERT_OK(Download(&short_order, short_tickets));
    const int32_t short_done = *std::max_element(short_order.begin(), short_order.end());
    const auto after = std::count_if(long_order.begin(), long_order.end(), [&](int32_t t) { return t > short_done; });
    EXPECT_GE(after, static_cast<long>(kLong / 2))
        << "the short high-priority launch finished as ticket " << short_done << ", after all but " << after
        << " of the long launch's " << kLong << " blocks";
}

INSTANTIATE_ON_ALL_DEVICES(StreamPriority);

} // namespace
} // namespace infinirt_test
