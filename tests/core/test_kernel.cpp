// infinicore::Module and infinicore::Kernel on the cpu backend: the variadic launch builds the
// argument list from the call's types (pointers, values, LocalMemory), the RAII module unloads.
#include "infinicore/context/context.hpp"
#include "infinicore/error.hpp"
#include "infinicore/module.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <vector>

namespace {

using infinicore::Device;
using infinicore::Kernel;
using infinicore::LaunchConfig;
using infinicore::LocalMemory;
using infinicore::Module;

struct Packet {
    int32_t tag;
    alignas(16) float v[4];
};
static_assert(sizeof(Packet) == 32 && offsetof(Packet, v) == 16, "the device layout of Packet");

std::vector<char> readFile(const char *path) {
    std::ifstream f(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

class KernelTest : public ::testing::Test {
protected:
    void SetUp() override {
        image_ = readFile(CXX_LAUNCH_KERNELS_PATH);
        ASSERT_FALSE(image_.empty()) << CXX_LAUNCH_KERNELS_PATH;
    }
    std::vector<char> image_;
    Device cpu_{Device::Type::CPU, 0};
};

TEST_F(KernelTest, VariadicLaunchPassesPointersValuesAndStructs) {
    Module module(cpu_, image_.data(), image_.size());
    Kernel k = module.kernel("scale_add");
    EXPECT_EQ(k.device(), cpu_);
    const int32_t n = 1000;
    std::vector<float> x(n), y(n, -1.0f);
    for (int i = 0; i < n; ++i) {
        x[i] = static_cast<float>(i);
    }
    const Packet p{5, {0.0f, 0.0f, 0.0f, 0.25f}};
    const int64_t big = int64_t{3} << 32;
    infinirtStream_t stream = infinicore::context::getStream();
    k.launch(LaunchConfig{{(n + 127) / 128}, {128}}, stream, y.data(), static_cast<const float *>(x.data()), 2.0f, p,
             big, n);
    infinicore::context::syncStream();
    for (int i = 0; i < n; ++i) {
        ASSERT_FLOAT_EQ(y[i], 2.0f * i + 5.0f + 0.25f + 3.0f) << "at " << i;
    }
}

TEST_F(KernelTest, LocalMemoryIsALocalArgumentAfterTheDynamicBytes) {
    Module module(cpu_, image_.data(), image_.size());
    Kernel k = module.kernel("local_probe");
    std::vector<int64_t> out(4, -1);
    LaunchConfig config{{4}, {1}};
    config.dynamicSharedBytes = 40; // the LOCAL buffer starts at 48: 40 rounded up to 16
    k.launch(config, nullptr, out.data(), LocalMemory{64});
    infinicore::context::syncStream();
    for (int64_t v : out) {
        EXPECT_EQ(v, 48 * 2 + 1);
    }
}

TEST_F(KernelTest, ErrorsCarryTheStatusAndTheMessage) {
    Module module(cpu_, image_.data(), image_.size());
    try {
        module.kernel("no_such_kernel");
        FAIL() << "an unknown kernel name did not throw";
    } catch (const infinicore::Error &e) {
        EXPECT_EQ(e.status(), INFINI_STATUS_SYMBOL_NOT_FOUND);
        EXPECT_NE(e.detail().find("no_such_kernel"), std::string::npos) << e.detail();
    }
    Kernel k = module.kernel("scale_add");
    try {
        k.launch(LaunchConfig{{0}, {1}}, nullptr);
        FAIL() << "a zero grid did not throw";
    } catch (const infinicore::Error &e) {
        EXPECT_EQ(e.status(), INFINI_STATUS_BAD_PARAM);
    }
    const char garbage[] = "\x7f" "ELF but not really an object";
    EXPECT_THROW(Module(cpu_, garbage, sizeof garbage, INFINIRT_MODULE_FORMAT_HOST_SO), infinicore::Error);
}

TEST_F(KernelTest, KernelsDieWithTheirModule) {
    Kernel k;
    {
        Module module(cpu_, image_.data(), image_.size());
        k = module.kernel("scale_add");
        EXPECT_EQ(k.attribute(INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK) > 0, true);
        Module moved(std::move(module));
        EXPECT_EQ(moved.kernel("scale_add").get(), k.get()); // one handle per name
        EXPECT_THROW(module.kernel("scale_add"), infinicore::Error); // moved from
    }
    try {
        k.attribute(INFINIRT_KERNEL_ATTR_NUM_PARAMS);
        FAIL() << "a kernel of an unloaded module still answered";
    } catch (const infinicore::Error &e) {
        EXPECT_EQ(e.status(), INFINI_STATUS_INVALID_HANDLE);
    }
}

} // namespace
