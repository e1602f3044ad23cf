/* The cuda and hip plugins always load; they report their devices, or 0 and why. Runs in CI. */
#include <infinirt.h>

#include "cuda_test_support.h"

#include <cstring>

namespace {

bool FindBackend(const char *name, infinirtBackendInfo_t *out) {
    int count = 0;
    if (infinirtGetBackendCount(&count) != INFINI_STATUS_SUCCESS) {
        return false;
    }
    for (int i = 0; i < count; ++i) {
        infinirtBackendInfo_t info{};
        info.struct_size = sizeof info;
        if (infinirtGetBackendInfo(i, &info) == INFINI_STATUS_SUCCESS && std::strcmp(info.name, name) == 0) {
            *out = info;
            return true;
        }
    }
    return false;
}

TEST(GpuBackendState, CudaMatchesWhatTheDriverReports) {
    infinirtBackendInfo_t info{};
    ASSERT_TRUE(FindBackend("cuda", &info)) << "libinfinirt-cuda.so was built but the loader does not list it";
    std::string why;
    const int expected = cuda_test::DriverDeviceCount(&why);
    if (expected > 0) {
        EXPECT_EQ(info.state, INFINIRT_BACKEND_LOADED) << info.reason;
        EXPECT_EQ(info.device_count, expected);
        EXPECT_STREQ(info.reason, "");
        int count = -1;
        ASSERT_EQ(infinirtGetDeviceCount(INFINI_DEVICE_NVIDIA, &count), INFINI_STATUS_SUCCESS);
        EXPECT_EQ(count, expected);
    } else {
        EXPECT_EQ(info.state, INFINIRT_BACKEND_UNAVAILABLE);
        EXPECT_EQ(info.device_count, 0);
        EXPECT_GT(std::strlen(info.reason), 0u) << "a cuda plugin without devices must say why";
        const char *reason = nullptr;
        if (!infinirt::cuda::load(&reason)) {
            EXPECT_NE(std::strstr(info.reason, "libcuda.so.1"), nullptr) << info.reason;
        }
        int count = -1;
        ASSERT_EQ(infinirtGetDeviceCount(INFINI_DEVICE_NVIDIA, &count), INFINI_STATUS_SUCCESS);
        EXPECT_EQ(count, 0);
    }
}

#ifdef INFINIRT_TEST_HAVE_HIP
TEST(GpuBackendState, HipReportsDevicesOrWhyNot) {
    infinirtBackendInfo_t info{};
    ASSERT_TRUE(FindBackend("hip", &info)) << "libinfinirt-hip.so was built but the loader does not list it";
    int count = -1;
    ASSERT_EQ(infinirtGetDeviceCount(INFINI_DEVICE_AMD, &count), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(count, info.device_count);
    if (info.device_count > 0) {
        EXPECT_EQ(info.state, INFINIRT_BACKEND_LOADED);
        EXPECT_STREQ(info.reason, "");
    } else {
        EXPECT_EQ(info.state, INFINIRT_BACKEND_UNAVAILABLE);
        EXPECT_GT(std::strlen(info.reason), 0u) << "a hip plugin without devices must say why";
    }
}
#endif

} // namespace
