// The process default device (where every thread starts), with only the logging stub loaded:
//  DefaultDeviceNamed   INFINICORE_DEFAULT_DEVICE=cambricon:1 names a present device: it is used;
//  DefaultDeviceAbsent  INFINICORE_DEFAULT_DEVICE=cambricon:7 names no device: the rule applies
//                       (first device of the first non-cpu type with devices: cambricon:0).
#include "status_assertions.h"

#include <thread>

namespace {

void ExpectEveryThreadStartsOn(infiniDevice_t type, int id) {
    for (int round = 0; round < 2; ++round) {
        infiniStatus_t status = INFINI_STATUS_INTERNAL_ERROR;
        infiniDevice_t t = INFINI_DEVICE_TYPE_COUNT;
        int i = -1;
        std::thread([&] { status = infinirtGetDevice(&t, &i); }).join();
        ASSERT_EQ(status, INFINI_STATUS_SUCCESS);
        EXPECT_EQ(t, type);
        EXPECT_EQ(i, id);
    }
}

TEST(DefaultDeviceNamed, ThreadsStartOnTheNamedDevice) {
    infiniDevice_t t = INFINI_DEVICE_TYPE_COUNT;
    int i = -1;
    ASSERT_OK(infinirtGetDevice(&t, &i));
    EXPECT_EQ(t, INFINI_DEVICE_CAMBRICON);
    EXPECT_EQ(i, 1);
    ExpectEveryThreadStartsOn(INFINI_DEVICE_CAMBRICON, 1);
}

TEST(DefaultDeviceAbsent, FallsBackToTheFirstAcceleratorDevice) {
    infiniDevice_t t = INFINI_DEVICE_TYPE_COUNT;
    int i = -1;
    ASSERT_OK(infinirtGetDevice(&t, &i));
    EXPECT_EQ(t, INFINI_DEVICE_CAMBRICON);
    EXPECT_EQ(i, 0);
    ExpectEveryThreadStartsOn(INFINI_DEVICE_CAMBRICON, 0);
}

} // namespace
