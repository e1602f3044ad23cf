// The opencl backend without OpenCL: it loads, serves 0 devices and records why. Each test runs
// in its own process with the environment ctest gives it (see CMakeLists.txt).
#include "infinirt.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace {

// The backend info of the plugin named "opencl"; fails the test if there is none.
infinirtBackendInfo_t openclBackend() {
    int count = 0;
    EXPECT_EQ(infinirtGetBackendCount(&count), INFINI_STATUS_SUCCESS);
    for (int i = 0; i < count; ++i) {
        infinirtBackendInfo_t info{};
        info.struct_size = sizeof(info);
        EXPECT_EQ(infinirtGetBackendInfo(i, &info), INFINI_STATUS_SUCCESS);
        if (std::strcmp(info.name, "opencl") == 0) {
            return info;
        }
    }
    ADD_FAILURE() << "no opencl backend found";
    return infinirtBackendInfo_t{};
}

void expectUnavailable(const char *reason_part) {
    const infinirtBackendInfo_t info = openclBackend();
    EXPECT_EQ(info.state, INFINIRT_BACKEND_UNAVAILABLE);
    EXPECT_EQ(info.device_count, 0);
    EXPECT_NE(std::string(info.reason).find(reason_part), std::string::npos) << "reason: " << info.reason;
    int devices = -1;
    EXPECT_EQ(infinirtGetDeviceCount(INFINI_DEVICE_OPENCL, &devices), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(devices, 0);
    EXPECT_EQ(infinirtSetDevice(INFINI_DEVICE_OPENCL, 0), INFINI_STATUS_DEVICE_NOT_FOUND);
}

TEST(OpenclUnavailable, NoIcdLoader) { expectUnavailable("libOpenCL.so.1"); }

TEST(OpenclUnavailable, NoPlatform) { expectUnavailable("CL_PLATFORM_NOT_FOUND_KHR"); }

} // namespace
