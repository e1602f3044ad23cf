// Kernels on vulkan beyond the conformance suite's: the argument layout's corners (arguments in a
// buffer, a block the module fixes, grids over maxComputeWorkGroupCount, pinned host memory as a
// POINTER), the SPIR-V flavours refused by name, and modules the device cannot build. The kernels
// are GLSL (tests/vulkan/kernels/), compiled at build time; on every vulkan device found (lavapipe
// in CI), skipped where there is none.
#include "infinirt.h"
#include "vulkan_devices.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#ifndef INFINIRT_VULKAN_TEST_KERNELS
#error "INFINIRT_VULKAN_TEST_KERNELS (the folder of the built test kernels, or \"\") must be defined"
#endif

namespace {

std::vector<char> readFile(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

infinirtModuleImage_t spirvImage(const void *data, size_t size) {
    infinirtModuleImage_t image{};
    image.struct_size = sizeof image;
    image.format = INFINIRT_MODULE_FORMAT_SPIRV;
    image.data = data;
    image.size = size;
    return image;
}

infinirtLaunchConfig_t config(uint32_t gx, uint32_t gy, uint32_t bx) {
    infinirtLaunchConfig_t c{};
    c.struct_size = sizeof c;
    c.grid[0] = gx;
    c.grid[1] = gy;
    c.grid[2] = 1;
    c.block[0] = bx;
    c.block[1] = c.block[2] = 1;
    return c;
}

infinirtKernelArg_t pointerArg(void *const *slot) { return {INFINIRT_KERNEL_ARG_POINTER, sizeof(void *), slot}; }
template <class T> infinirtKernelArg_t valueArg(const T *v) { return {INFINIRT_KERNEL_ARG_VALUE, sizeof(T), v}; }

class VulkanKernels : public ::testing::TestWithParam<int> {
  protected:
    void SetUp() override {
        ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_VULKAN, GetParam()), INFINI_STATUS_SUCCESS);
        if (std::string(INFINIRT_VULKAN_TEST_KERNELS).empty()) {
            GTEST_SKIP() << "the test kernels were not built (glslc or spirv-link not found)";
        }
    }
    void TearDown() override {
        for (infinirtModule_t m : modules_) {
            EXPECT_EQ(infinirtModuleUnload(m), INFINI_STATUS_SUCCESS);
        }
    }

    // Loads tests/vulkan/kernels/<name>.comp's module and returns the status; *kernel its entry point.
    infiniStatus_t load(const char *name, infinirtKernel_t *kernel, std::string *log_text = nullptr) {
        const std::vector<char> bytes = readFile(std::string(INFINIRT_VULKAN_TEST_KERNELS) + "/" + name + ".spv");
        EXPECT_FALSE(bytes.empty()) << name;
        const infinirtModuleImage_t image = spirvImage(bytes.data(), bytes.size());
        char log[2048] = {};
        infinirtModule_t module = nullptr;
        const infiniStatus_t st = infinirtModuleLoad(&module, INFINI_DEVICE_VULKAN, GetParam(), &image, 1, log, sizeof log);
        if (log_text) {
            *log_text = log;
        }
        if (st != INFINI_STATUS_SUCCESS) {
            return st;
        }
        modules_.push_back(module);
        return infinirtModuleGetKernel(kernel, module, name);
    }

    std::vector<infinirtModule_t> modules_;
};

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(VulkanKernels);

// 176 bytes of arguments reach the shader through a buffer; NUM_PARAMS counts the arguments'
// block's members, not the push-constant block's one.
TEST_P(VulkanKernels, ArgumentsInABuffer) {
    infinirtKernel_t k = nullptr;
    std::string log;
    ASSERT_EQ(load("many_arguments", &k, &log), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    EXPECT_NE(log.find("in a buffer whose address is pushed"), std::string::npos) << log;
    int64_t params = 0;
    ASSERT_EQ(infinirtKernelGetAttribute(&params, INFINIRT_KERNEL_ATTR_NUM_PARAMS, k), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(params, 3);
    constexpr uint32_t n = 1000;
    void *out = nullptr;
    ASSERT_EQ(infinirtMalloc(&out, n * sizeof(float)), INFINI_STATUS_SUCCESS);
    float c[40];
    for (int i = 0; i < 40; ++i) {
        c[i] = static_cast<float>(i) - 3.0f;
    }
    infinirtStream_t s = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&s), INFINI_STATUS_SUCCESS);
    const infinirtKernelArg_t args[] = {pointerArg(&out), {INFINIRT_KERNEL_ARG_VALUE, sizeof c, c}, valueArg(&n)};
    const infinirtLaunchConfig_t cfg = config((n + 63) / 64, 1, 64);
    // Twice on one stream with other arguments in between: each launch sees its own.
    ASSERT_EQ(infinirtLaunchKernel(k, &cfg, args, 3, s), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    float c2[40];
    for (int i = 0; i < 40; ++i) {
        c2[i] = 2.0f * c[i];
    }
    const infinirtKernelArg_t args2[] = {pointerArg(&out), {INFINIRT_KERNEL_ARG_VALUE, sizeof c2, c2}, valueArg(&n)};
    ASSERT_EQ(infinirtLaunchKernel(k, &cfg, args2, 3, s), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtStreamSynchronize(s), INFINI_STATUS_SUCCESS);
    std::vector<float> got(n);
    ASSERT_EQ(infinirtMemcpy(got.data(), out, n * sizeof(float), INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    for (uint32_t i = 0; i < n; ++i) {
        ASSERT_EQ(got[i], c2[i % 40] * static_cast<float>(i + 1)) << i;
    }
    EXPECT_EQ(infinirtStreamDestroy(s), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFree(out), INFINI_STATUS_SUCCESS);
}

// A block the module fixes: that block runs, another is BAD_PARAM naming the fixed size;
// STATIC_SHARED_BYTES and MAX_THREADS_PER_BLOCK come from the module.
TEST_P(VulkanKernels, BlockTheModuleFixes) {
    infinirtKernel_t k = nullptr;
    ASSERT_EQ(load("fixed_block", &k), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    int64_t value = 0;
    ASSERT_EQ(infinirtKernelGetAttribute(&value, INFINIRT_KERNEL_ATTR_STATIC_SHARED_BYTES, k), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(value, 1024);
    ASSERT_EQ(infinirtKernelGetAttribute(&value, INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK, k), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(value, 64);
    ASSERT_EQ(infinirtKernelGetAttribute(&value, INFINIRT_KERNEL_ATTR_PREFERRED_BLOCK_MULTIPLE, k), INFINI_STATUS_SUCCESS);
    EXPECT_GE(value, 1);
    void *out = nullptr;
    ASSERT_EQ(infinirtMalloc(&out, 4 * 64 * sizeof(uint32_t)), INFINI_STATUS_SUCCESS);
    const infinirtKernelArg_t args[] = {pointerArg(&out)};
    const infinirtLaunchConfig_t wrong = config(4, 1, 32);
    EXPECT_EQ(infinirtLaunchKernel(k, &wrong, args, 1, nullptr), INFINI_STATUS_BAD_PARAM);
    EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("64x1x1"), std::string::npos)
        << infinirtGetLastErrorMessage();
    const infinirtLaunchConfig_t right = config(4, 1, 64);
    ASSERT_EQ(infinirtLaunchKernel(k, &right, args, 1, nullptr), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    std::vector<uint32_t> got(4 * 64);
    ASSERT_EQ(infinirtMemcpy(got.data(), out, got.size() * 4, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    for (uint32_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i], 63 - i % 64) << i;
    }
    EXPECT_EQ(infinirtFree(out), INFINI_STATUS_SUCCESS);
}

// A grid over maxComputeWorkGroupCount (65,535 on most devices) runs whole, in parts.
TEST_P(VulkanKernels, GridOverTheDispatchLimit) {
    infinirtKernel_t k = nullptr;
    ASSERT_EQ(load("group_ids", &k), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof props;
    ASSERT_EQ(infinirtGetDeviceProperties(INFINI_DEVICE_VULKAN, GetParam(), &props), INFINI_STATUS_SUCCESS);
    const uint32_t gx = 70001, gy = 2;
    void *out = nullptr;
    const size_t bytes = size_t{gx} * gy * sizeof(uint32_t);
    ASSERT_EQ(infinirtMalloc(&out, bytes), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemset(out, 0xff, bytes), INFINI_STATUS_SUCCESS);
    const infinirtKernelArg_t args[] = {pointerArg(&out), valueArg(&gx)};
    const infinirtLaunchConfig_t cfg = config(gx, gy, 1);
    ASSERT_EQ(infinirtLaunchKernel(k, &cfg, args, 2, nullptr), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    std::vector<uint32_t> got(size_t{gx} * gy);
    ASSERT_EQ(infinirtMemcpy(got.data(), out, bytes, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    for (uint32_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i], i) << "group " << i;
    }
    EXPECT_EQ(infinirtFree(out), INFINI_STATUS_SUCCESS);
}

// Pinned host memory (MallocHost) passed as a POINTER: the kernel writes it through its buffer's
// device address.
TEST_P(VulkanKernels, PinnedHostMemoryAsPointer) {
    infinirtKernel_t k = nullptr;
    ASSERT_EQ(load("group_ids", &k), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    void *host = nullptr;
    const uint32_t gx = 100;
    ASSERT_EQ(infinirtMallocHost(&host, gx * sizeof(uint32_t)), INFINI_STATUS_SUCCESS);
    std::memset(host, 0xff, gx * sizeof(uint32_t));
    const infinirtKernelArg_t args[] = {pointerArg(&host), valueArg(&gx)};
    const infinirtLaunchConfig_t cfg = config(gx, 1, 1);
    ASSERT_EQ(infinirtLaunchKernel(k, &cfg, args, 2, nullptr), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    ASSERT_EQ(infinirtStreamSynchronize(nullptr), INFINI_STATUS_SUCCESS);
    for (uint32_t i = 0; i < gx; ++i) {
        ASSERT_EQ(static_cast<uint32_t *>(host)[i], i);
    }
    EXPECT_EQ(infinirtFreeHost(host), INFINI_STATUS_SUCCESS);
}

// Arguments that do not fit their parameters are refused naming both, before anything runs.
TEST_P(VulkanKernels, ArgumentsMustFitTheirParameters) {
    infinirtKernel_t k = nullptr;
    ASSERT_EQ(load("group_ids", &k), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    void *out = nullptr;
    ASSERT_EQ(infinirtMalloc(&out, 64), INFINI_STATUS_SUCCESS);
    const uint64_t wide = 1;
    const uint32_t gx = 1;
    const infinirtLaunchConfig_t cfg = config(1, 1, 1);
    const infinirtKernelArg_t wrong_size[] = {pointerArg(&out), valueArg(&wide)};
    EXPECT_EQ(infinirtLaunchKernel(k, &cfg, wrong_size, 2, nullptr), INFINI_STATUS_BAD_PARAM);
    EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("uint32"), std::string::npos)
        << infinirtGetLastErrorMessage();
    const infinirtKernelArg_t pointer_to_value[] = {pointerArg(&out), pointerArg(&out)};
    EXPECT_EQ(infinirtLaunchKernel(k, &cfg, pointer_to_value, 2, nullptr), INFINI_STATUS_BAD_PARAM);
    const infinirtKernelArg_t local_to_pointer[] = {{INFINIRT_KERNEL_ARG_LOCAL, 64, nullptr}, valueArg(&gx)};
    EXPECT_EQ(infinirtLaunchKernel(k, &cfg, local_to_pointer, 2, nullptr), INFINI_STATUS_BAD_PARAM);
    EXPECT_EQ(infinirtFree(out), INFINI_STATUS_SUCCESS);
}

// More push constants than the device takes: BUILD_FAILED naming the limit, or it runs.
TEST_P(VulkanKernels, PushConstantsOverTheLimit) {
    infinirtKernel_t k = nullptr;
    std::string log;
    const infiniStatus_t st = load("big_push", &k, &log);
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof props;
    ASSERT_EQ(infinirtGetDeviceProperties(INFINI_DEVICE_VULKAN, GetParam(), &props), INFINI_STATUS_SUCCESS);
    if (st == INFINI_STATUS_SUCCESS) {
        GTEST_SKIP() << "this device takes 264 bytes of push constants";
    }
    EXPECT_EQ(st, INFINI_STATUS_BUILD_FAILED);
    EXPECT_NE(log.find("maxPushConstantsSize"), std::string::npos) << log;
    EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("264 bytes"), std::string::npos)
        << infinirtGetLastErrorMessage();
}

// SPIR-V of OpenCL's flavour (the Kernel capability) is BAD_PARAM naming it; so is Vulkan's on an
// opencl device. A module without a compute entry point is BUILD_FAILED.
TEST_P(VulkanKernels, FlavoursAndModulesWithoutKernels) {
    const uint32_t opencl_flavour[] = {0x07230203u, 0x00010000u, 0, 8, 0, (2u << 16) | 17u, 4, (2u << 16) | 17u, 6};
    infinirtModuleImage_t image = spirvImage(opencl_flavour, sizeof opencl_flavour);
    infinirtModule_t m = nullptr;
    EXPECT_EQ(infinirtModuleLoad(&m, INFINI_DEVICE_VULKAN, GetParam(), &image, 1, nullptr, 0), INFINI_STATUS_BAD_PARAM);
    EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("OpenCL SPIR-V"), std::string::npos)
        << infinirtGetLastErrorMessage();
    image.format = INFINIRT_MODULE_FORMAT_AUTO; // sniffed as SPIR-V, then the same answer
    EXPECT_EQ(infinirtModuleLoad(&m, INFINI_DEVICE_VULKAN, GetParam(), &image, 1, nullptr, 0), INFINI_STATUS_BAD_PARAM);

    // Shader capability, GLSL450 memory model, no entry point.
    const uint32_t no_entry[] = {0x07230203u, 0x00010500u, 0, 8, 0, (2u << 16) | 17u, 1, (3u << 16) | 14u, 0, 1};
    image = spirvImage(no_entry, sizeof no_entry);
    char log[256] = {};
    EXPECT_EQ(infinirtModuleLoad(&m, INFINI_DEVICE_VULKAN, GetParam(), &image, 1, log, sizeof log),
              INFINI_STATUS_BUILD_FAILED);
    EXPECT_NE(std::string(log).find("no compute"), std::string::npos) << log;

    int opencl = 0;
    if (infinirtGetDeviceCount(INFINI_DEVICE_OPENCL, &opencl) == INFINI_STATUS_SUCCESS && opencl > 0) {
        const std::vector<char> bytes = readFile(std::string(INFINIRT_VULKAN_TEST_KERNELS) + "/group_ids.spv");
        image = spirvImage(bytes.data(), bytes.size());
        EXPECT_EQ(infinirtModuleLoad(&m, INFINI_DEVICE_OPENCL, 0, &image, 1, nullptr, 0), INFINI_STATUS_BAD_PARAM);
        EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("Vulkan SPIR-V"), std::string::npos)
            << infinirtGetLastErrorMessage();
    }
}

// Names: an unknown kernel lists the entry points; module variables have no address on Vulkan.
TEST_P(VulkanKernels, NamesAndGlobals) {
    infinirtKernel_t k = nullptr;
    ASSERT_EQ(load("group_ids", &k), INFINI_STATUS_SUCCESS);
    infinirtKernel_t other = nullptr;
    EXPECT_EQ(infinirtModuleGetKernel(&other, modules_.back(), "main"), INFINI_STATUS_SYMBOL_NOT_FOUND);
    EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("\"group_ids\""), std::string::npos)
        << infinirtGetLastErrorMessage();
    void *g = nullptr;
    EXPECT_EQ(infinirtModuleGetGlobal(&g, nullptr, modules_.back(), "anything"), INFINI_STATUS_NOT_IMPLEMENTED);
    const infinirtLaunchConfig_t cfg = config(1, 1, 1);
    infinirtLaunchConfig_t cooperative = cfg;
    cooperative.flags = INFINIRT_LAUNCH_COOPERATIVE;
    void *out = nullptr;
    ASSERT_EQ(infinirtMalloc(&out, 64), INFINI_STATUS_SUCCESS);
    const uint32_t gx = 1;
    const infinirtKernelArg_t args[] = {pointerArg(&out), valueArg(&gx)};
    EXPECT_EQ(infinirtLaunchKernel(k, &cooperative, args, 2, nullptr), INFINI_STATUS_NOT_IMPLEMENTED);
    infinirtLaunchConfig_t cluster = cfg;
    cluster.cluster[0] = 2;
    EXPECT_EQ(infinirtLaunchKernel(k, &cluster, args, 2, nullptr), INFINI_STATUS_NOT_IMPLEMENTED);
    EXPECT_EQ(infinirtFree(out), INFINI_STATUS_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Devices, VulkanKernels, ::testing::ValuesIn(vulkanDevices()));

} // namespace
