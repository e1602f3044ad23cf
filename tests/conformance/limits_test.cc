// Device limits: round trips where a backend has them, NOT_IMPLEMENTED naming the limit where not.
#include "device_test.h"

#include <string>

namespace infinirt_test {
namespace {

class Limits : public DeviceTest {};

const infinirtLimit_t kLimits[] = {INFINIRT_LIMIT_STACK_SIZE, INFINIRT_LIMIT_PRINTF_FIFO_SIZE,
                                   INFINIRT_LIMIT_MALLOC_HEAP_SIZE};

TEST_P(Limits, GetAnswersOrNamesTheLimit) {
    for (infinirtLimit_t limit : kLimits) {
        SCOPED_TRACE(limit);
        size_t value = 12345;
        const infiniStatus_t st = infinirtDeviceGetLimit(&value, type(), id(), limit);
        if (st == INFINI_STATUS_SUCCESS) {
            EXPECT_NE(value, 12345u);
        } else {
            EXPECT_EQ(st, INFINI_STATUS_NOT_IMPLEMENTED);
            EXPECT_EQ(value, 12345u);
            EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("INFINIRT_LIMIT_"), std::string::npos)
                << infinirtGetLastErrorMessage();
        }
    }
}

TEST_P(Limits, SetThenGetReturnsAtLeastTheValue) {
    for (infinirtLimit_t limit : kLimits) {
        SCOPED_TRACE(limit);
        size_t before = 0;
        if (infinirtDeviceGetLimit(&before, type(), id(), limit) != INFINI_STATUS_SUCCESS) {
            EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtDeviceSetLimit(type(), id(), limit, 1 << 20));
            continue;
        }
        const size_t want = before + 1024;
        const infiniStatus_t st = infinirtDeviceSetLimit(type(), id(), limit, want);
        if (st != INFINI_STATUS_SUCCESS) {
            EXPECT_EQ(st, INFINI_STATUS_NOT_IMPLEMENTED) << "a read-only limit";
            EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("INFINIRT_LIMIT_"), std::string::npos)
                << infinirtGetLastErrorMessage();
            continue;
        }
        size_t after = 0;
        ASSERT_OK(infinirtDeviceGetLimit(&after, type(), id(), limit));
        EXPECT_GE(after, want);
        EXPECT_OK(infinirtDeviceSetLimit(type(), id(), limit, before));
    }
}

TEST_P(Limits, BadInputIsRefused) {
    size_t value = 7;
    const auto unknown = static_cast<infinirtLimit_t>(3);
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtDeviceGetLimit(&value, type(), id(), unknown));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtDeviceSetLimit(type(), id(), unknown, 1));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtDeviceGetLimit(&value, type(), id(), static_cast<infinirtLimit_t>(-1)));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtDeviceGetLimit(nullptr, type(), id(), INFINIRT_LIMIT_STACK_SIZE));
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtDeviceGetLimit(&value, type(), -1, INFINIRT_LIMIT_STACK_SIZE));
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtDeviceSetLimit(type(), -1, INFINIRT_LIMIT_STACK_SIZE, 1));
    EXPECT_EQ(value, 7u);
}

INSTANTIATE_ON_ALL_DEVICES(Limits);

} // namespace
} // namespace infinirt_test
