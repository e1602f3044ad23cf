// The process default device (where every thread starts), with only the logging stub loaded:
//  DefaultDeviceNamed   INFINICORE_DEFAULT_DEVICE=cambricon:1 names a present device: it is used;
//  DefaultDeviceAbsent  INFINICORE_DEFAULT_DEVICE=cambricon:7 names no device: the rule applies
//                       (the first GPU or accelerator; the stub's kind is UNKNOWN, which counts as
//                       an accelerator: cambricon:0).
// With the cpu plugin and the stub (STUB_DEVICE_KINDS gives its two devices' kinds):
//  DefaultDeviceCpuKind         both stub devices are CPUs: cpu:0 wins over them;
//  DefaultDeviceSecondIsGpu     cambricon:0 is a CPU, cambricon:1 a GPU: cambricon:1;
//  DefaultDeviceAccelerator     cambricon:0 is an accelerator: cambricon:0;
// and with the stub alone:
//  DefaultDeviceOnlyCpuKind     both stub devices are CPUs and there is no cpu backend: cambricon:0.
#include "status_assertions.h"

#include <cstdlib>
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

void ExpectDefault(infiniDevice_t type, int id) {
    if (std::getenv("INFINICORE_DEFAULT_DEVICE") != nullptr) {
        GTEST_SKIP() << "INFINICORE_DEFAULT_DEVICE overrides the rule under test";
    }
    infiniDevice_t t = INFINI_DEVICE_TYPE_COUNT;
    int i = -1;
    ASSERT_OK(infinirtGetDevice(&t, &i));
    EXPECT_EQ(t, type);
    EXPECT_EQ(i, id);
    ExpectEveryThreadStartsOn(type, id);
}

TEST(DefaultDeviceCpuKind, CpuWinsOverDevicesThatAreThemselvesCpus) { ExpectDefault(INFINI_DEVICE_CPU, 0); }

TEST(DefaultDeviceSecondIsGpu, TheFirstGpuWins) { ExpectDefault(INFINI_DEVICE_CAMBRICON, 1); }

TEST(DefaultDeviceAccelerator, TheFirstAcceleratorWins) { ExpectDefault(INFINI_DEVICE_CAMBRICON, 0); }

TEST(DefaultDeviceOnlyCpuKind, WithoutTheCpuBackendTheFirstDeviceWins) { ExpectDefault(INFINI_DEVICE_CAMBRICON, 0); }

} // namespace
