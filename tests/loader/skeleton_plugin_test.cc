// A third-party plugin gets what infinirt's own backends get: the skeleton (backends/skeleton,
// one template device, kunlun:0, next to cpu and opencl) chooses its own image from a module file through
// module_rank_image, and its traits (get_plugin_traits) set its staging rank and the native error
// names of the failures fault injection fakes. Nothing in the loader names the skeleton.
// Run by ctest loader.skeleton and loader.skeleton.fault (INFINIRT_FAULT_INJECT=stream_create:1).
#include "infinirt.h"
#include "module_file.h"
#include "modfile_test_util.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

using modfile_test::input;

constexpr infiniDevice_t kSkeleton = INFINI_DEVICE_KUNLUN;

// The backend info of the plugin named `name`.
bool backendInfo(const char *name, infinirtBackendInfo_t &out) {
    int count = 0;
    EXPECT_EQ(infinirtGetBackendCount(&count), INFINI_STATUS_SUCCESS);
    for (int i = 0; i < count; ++i) {
        infinirtBackendInfo_t info{};
        info.struct_size = sizeof info;
        EXPECT_EQ(infinirtGetBackendInfo(i, &info), INFINI_STATUS_SUCCESS);
        if (std::strcmp(info.name, name) == 0) {
            out = info;
            return true;
        }
    }
    return false;
}

// Writes `inputs` as a module file and loads it on kunlun:0; the log comes back in `log`.
infiniStatus_t loadFile(const std::vector<infinirt::modfile::Input> &inputs, std::string &log) {
    std::vector<unsigned char> bytes;
    std::string why;
    EXPECT_TRUE(infinirt::modfile::write(inputs, bytes, why)) << why;
    char path[] = "/tmp/infinirt-skeleton-XXXXXX";
    const int fd = mkstemp(path);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    close(fd);
    infinirtModule_t module = nullptr;
    std::vector<char> text(16384);
    const infiniStatus_t st = infinirtModuleLoadFile(&module, kSkeleton, 0, path, nullptr, text.data(), text.size());
    std::remove(path);
    log = text.data();
    return st;
}

class SkeletonPlugin : public ::testing::Test {
protected:
    void SetUp() override {
        int count = 0;
        ASSERT_EQ(infinirtGetDeviceCount(kSkeleton, &count), INFINI_STATUS_SUCCESS);
        // The ctest entries load the skeleton with one template device: its absence is a failure.
        ASSERT_EQ(count, 1) << "run with INFINIRT_PLUGIN_PATH=<the skeleton's folder> and "
                               "INFINIRT_SKELETON_DEVICE_COUNT=1";
    }
};

TEST_F(SkeletonPlugin, ChoosesItsOwnImageFromAModuleFile) {
    const std::string blob(64, 'x');
    std::string log;
    // Tried in the plugin's order: the device binary for its architecture ("template"), then the
    // SPIR-V for any device; not the binary for another architecture, the PTX or cpu's image.
    // The template loads nothing (module_load is NOT_IMPLEMENTED), so every candidate is tried.
    EXPECT_EQ(loadFile({input("skeleton", INFINIRT_MODULE_FORMAT_SPIRV, "any", blob),
                        input("skeleton", INFINIRT_MODULE_FORMAT_DEVICE_BINARY, "other", blob),
                        input("skeleton", INFINIRT_MODULE_FORMAT_DEVICE_BINARY, "template", blob),
                        input("skeleton", INFINIRT_MODULE_FORMAT_PTX, "any", blob),
                        input("cpu", INFINIRT_MODULE_FORMAT_HOST_SO, "any", blob)},
                       log),
              INFINI_STATUS_NOT_IMPLEMENTED)
        << log;
    const size_t binary = log.find("entry 2 (skeleton DEVICE_BINARY template");
    const size_t spirv = log.find("entry 0 (skeleton SPIRV any");
    ASSERT_NE(binary, std::string::npos) << log;
    ASSERT_NE(spirv, std::string::npos) << log;
    EXPECT_LT(binary, spirv) << "the device binary for the device's architecture is tried first:\n" << log;
    EXPECT_EQ(log.find("entry 1 ("), std::string::npos) << log;
    EXPECT_EQ(log.find("entry 3 ("), std::string::npos) << log;
    EXPECT_EQ(log.find("entry 4 ("), std::string::npos) << log;

    // None fits: the refusal lists each image with the plugin's own reason.
    EXPECT_EQ(loadFile({input("skeleton", INFINIRT_MODULE_FORMAT_DEVICE_BINARY, "other", blob),
                        input("skeleton", INFINIRT_MODULE_FORMAT_PTX, "any", blob)},
                       log),
              INFINI_STATUS_DEVICE_ARCHITECTURE_NOT_SUPPORTED);
    EXPECT_NE(log.find("a device binary for other; the device is template"), std::string::npos) << log;
    EXPECT_NE(log.find("the skeleton backend loads DEVICE_BINARY and SPIRV, not PTX"), std::string::npos) << log;
}

TEST_F(SkeletonPlugin, RanksItselfForStaging) {
    infinirtBackendInfo_t skeleton{}, cpu{};
    ASSERT_TRUE(backendInfo("skeleton", skeleton));
    ASSERT_TRUE(backendInfo("cpu", cpu));
    EXPECT_EQ(skeleton.host_staging_rank, 2) << "the skeleton's get_plugin_traits";
    EXPECT_EQ(cpu.host_staging_rank, 0) << "the cpu plugin's traits: ordinary host memory";

    infinirtBackendInfo_t opencl{};
    if (!backendInfo("opencl", opencl) || opencl.device_count == 0) {
        GTEST_SKIP() << "the staged copy needs an opencl device (PoCL) beside the skeleton";
    }
    EXPECT_EQ(opencl.host_staging_rank, 1);
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof props;
    ASSERT_EQ(infinirtGetDeviceProperties(INFINI_DEVICE_OPENCL, 0, &props), INFINI_STATUS_SUCCESS);
    const char *knob = std::getenv("INFINIRT_OPENCL_HOST_MEMORY");
    if (knob != nullptr && std::string(knob) == "0") {
        EXPECT_EQ(props.memory_is_host, 0) << "INFINIRT_OPENCL_HOST_MEMORY=0: every OpenCL device's memory is device memory";
    }
    void *src = nullptr;
    ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_OPENCL, 0), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMalloc(&src, 64), INFINI_STATUS_SUCCESS);
    std::vector<char> dst(64);
    EXPECT_EQ(infinirtMemcpyPeer(dst.data(), kSkeleton, 0, src, INFINI_DEVICE_OPENCL, 0, 64),
              INFINI_STATUS_NOT_IMPLEMENTED);
    if (props.memory_is_host == 1) {
        // PoCL's memory is host memory: the copy is host-direct, the skeleton's own H2D from it, and
        // no bounce buffer is asked for.
        EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("memcpy_async is not implemented"), std::string::npos)
            << infinirtGetLastErrorMessage();
    } else {
        // A copy from opencl:0 to kunlun:0 is staged (two backends, neither with host memory),
        // through bounce buffers of the side ranked higher: the skeleton's pinned memory, which the
        // template cannot allocate. (Ranked the other way, opencl's buffers would be used and the
        // skeleton's memcpy_async would be the first call to fail.)
        EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("malloc_host is not implemented"), std::string::npos)
            << infinirtGetLastErrorMessage();
    }
    EXPECT_EQ(infinirtFree(src), INFINI_STATUS_SUCCESS);
}

// loader.skeleton.fault: the failure injected into the skeleton's stream_create names the native
// error its traits give.
TEST_F(SkeletonPlugin, InjectedFailuresNameItsNativeErrors) {
    const char *spec = std::getenv("INFINIRT_FAULT_INJECT");
    if (spec == nullptr || std::strcmp(spec, "stream_create:1") != 0) {
        GTEST_SKIP() << "run by loader.skeleton.fault, with INFINIRT_FAULT_INJECT=stream_create:1";
    }
    ASSERT_EQ(infinirtSetDevice(kSkeleton, 0), INFINI_STATUS_SUCCESS);
    infinirtStream_t stream = nullptr;
    EXPECT_EQ(infinirtStreamCreate(&stream), INFINI_STATUS_OUT_OF_MEMORY);
    EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("VENDOR_ERROR_OUT_OF_MEMORY (2)"), std::string::npos)
        << infinirtGetLastErrorMessage();
}

} // namespace
