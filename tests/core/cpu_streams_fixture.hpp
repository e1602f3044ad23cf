// CpuStreamsTest: a fixture for allocator tests over the cpu backend's raw allocation: cpu:0 is
// current and two streams exist for the test's duration.
#ifndef INFINICORE_TESTS_CPU_STREAMS_FIXTURE_HPP
#define INFINICORE_TESTS_CPU_STREAMS_FIXTURE_HPP

#include "raw_device.hpp"

#include <gtest/gtest.h>

#include <memory>

namespace infinicore::test {

class CpuStreamsTest : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_CPU, 0), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtStreamCreate(&s1_), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtStreamCreate(&s2_), INFINI_STATUS_SUCCESS);
    }
    void TearDown() override {
        EXPECT_EQ(infinirtStreamDestroy(s1_), INFINI_STATUS_SUCCESS);
        EXPECT_EQ(infinirtStreamDestroy(s2_), INFINI_STATUS_SUCCESS);
    }
    static std::shared_ptr<detail::RawDevice> cpu() { return detail::makeInfinirtDevice(Device(Device::Type::CPU, 0)); }

    infinirtStream_t s1_ = nullptr;
    infinirtStream_t s2_ = nullptr;
};

} // namespace infinicore::test

#endif // INFINICORE_TESTS_CPU_STREAMS_FIXTURE_HPP
