// The C++ layer on two devices of one type that use the caching allocators (every type but cpu):
// a block of device 0 used by a stream of device 1 and then freed is not reused before that
// stream's work has run. Skipped where no such pair exists (CI); scripts/gpu-verify.sh runs it on
// two GPUs.
#include <infinicore/context/context.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using infinicore::Device;
namespace ctx = infinicore::context;

std::vector<Device::Type> PairedTypes() {
    std::vector<Device::Type> out;
    for (Device::Type t : {Device::Type::NVIDIA, Device::Type::AMD, Device::Type::OPENCL}) {
        int count = 0;
        if (infinirtGetDeviceCount(static_cast<infiniDevice_t>(t), &count) == INFINI_STATUS_SUCCESS && count >= 2) {
            out.push_back(t);
        }
    }
    return out;
}

class DevicePair : public ::testing::TestWithParam<Device::Type> {};

TEST_P(DevicePair, BlockUsedByAnotherDevicesStreamIsNotReusedBeforeItsWorkRan) {
    constexpr size_t kBytes = size_t{64} << 20;
    constexpr int kCopies = 16;
    const Device d0(GetParam(), 0), d1(GetParam(), 1);
    const infiniDevice_t type = static_cast<infiniDevice_t>(GetParam());

    ctx::setDevice(d0);
    std::shared_ptr<infinicore::Memory> used = ctx::allocateMemory(kBytes);
    ctx::setDeviceMemory(used->data(), 0x11, kBytes);

    ASSERT_EQ(infinirtSetDevice(type, 1), INFINI_STATUS_SUCCESS);
    infinirtStream_t theirs = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&theirs), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    void *dst = nullptr;
    ASSERT_EQ(infinirtMalloc(&dst, kBytes), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    for (int i = 0; i < kCopies; ++i) { // device 1 reads device 0's block, queued behind each other
        ASSERT_EQ(infinirtMemcpyAsync(dst, used->data(), kBytes, INFINIRT_MEMCPY_D2D, theirs), INFINI_STATUS_SUCCESS)
            << infinirtGetLastErrorMessage();
    }

    ctx::setDevice(d0);
    ctx::recordStream(used, theirs);
    used.reset(); // freed while device 1 still reads it
    // Allocations of the same size, written at once on device 0's context stream: none may be
    // the block device 1 still reads.
    std::vector<std::shared_ptr<infinicore::Memory>> fresh;
    for (int i = 0; i < 4; ++i) {
        fresh.push_back(ctx::allocateMemory(kBytes));
        ctx::setDeviceMemoryAsync(fresh.back()->data(), 0x22, kBytes);
    }
    ctx::syncStream();

    ASSERT_EQ(infinirtStreamSynchronize(theirs), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    std::vector<unsigned char> back(kBytes, 0);
    ASSERT_EQ(infinirtMemcpy(back.data(), dst, kBytes, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    size_t wrong = 0;
    for (unsigned char b : back) {
        wrong += b != 0x11;
    }
    EXPECT_EQ(wrong, 0u) << "device 1 read a block that device 0 reused before device 1's copies ran";
    EXPECT_EQ(infinirtFree(dst), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtStreamDestroy(theirs), INFINI_STATUS_SUCCESS);
    fresh.clear();
    ctx::trimMemory();
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DevicePair);
INSTANTIATE_TEST_SUITE_P(Types, DevicePair, ::testing::ValuesIn(PairedTypes()),
                         [](const ::testing::TestParamInfo<Device::Type> &info) {
                             return std::to_string(static_cast<int>(info.param));
                         });

} // namespace
