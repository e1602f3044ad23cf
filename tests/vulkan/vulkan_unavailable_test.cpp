// The vulkan backend without Vulkan: it loads, serves 0 devices and records why, and the other
// backends are untouched. Each test runs in its own process with the environment ctest gives it
// (see CMakeLists.txt).
#include "infinirt.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace {

// The backend info of the plugin named `name`; fails the test if there is none.
infinirtBackendInfo_t backend(const char *name) {
    int count = 0;
    EXPECT_EQ(infinirtGetBackendCount(&count), INFINI_STATUS_SUCCESS);
    for (int i = 0; i < count; ++i) {
        infinirtBackendInfo_t info{};
        info.struct_size = sizeof(info);
        EXPECT_EQ(infinirtGetBackendInfo(i, &info), INFINI_STATUS_SUCCESS);
        if (std::strcmp(info.name, name) == 0) {
            return info;
        }
    }
    ADD_FAILURE() << "no " << name << " backend found";
    return infinirtBackendInfo_t{};
}

void expectUnavailable(const char *reason_part) {
    const infinirtBackendInfo_t info = backend("vulkan");
    EXPECT_EQ(info.state, INFINIRT_BACKEND_UNAVAILABLE);
    EXPECT_EQ(info.device_count, 0);
    EXPECT_NE(std::string(info.reason).find(reason_part), std::string::npos) << "reason: " << info.reason;
    int devices = -1;
    EXPECT_EQ(infinirtGetDeviceCount(INFINI_DEVICE_VULKAN, &devices), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(devices, 0);
    EXPECT_EQ(infinirtSetDevice(INFINI_DEVICE_VULKAN, 0), INFINI_STATUS_DEVICE_NOT_FOUND);
    // The cpu backend still serves its device.
    const infinirtBackendInfo_t cpu = backend("cpu");
    EXPECT_EQ(cpu.state, INFINIRT_BACKEND_LOADED);
    EXPECT_GE(cpu.device_count, 1);
}

TEST(VulkanUnavailable, NoLoader) { expectUnavailable("libvulkan-missing.so.1"); }

// The loader finds no ICD at all: vkCreateInstance fails, and the reason says how and where to look.
TEST(VulkanUnavailable, NoDriver) { expectUnavailable("vkCreateInstance failed: VK_ERROR_INCOMPATIBLE_DRIVER"); }

} // namespace
