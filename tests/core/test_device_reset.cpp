// The C++ layer after infinirtDeviceReset, called through the C ABI behind its back: the context
// keeps working on the device (a new context stream, new allocators), blocks handed out before
// the reset can still be dropped, and nothing the reset freed is freed again. On cpu (host
// allocator) and device 0 of every other type found (the caching allocators): opencl here, the
// GPUs in scripts/gpu-verify.sh.
#include <infinicore/context/context.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

namespace {

using infinicore::Device;
namespace ctx = infinicore::context;

std::vector<Device> ResetDevices() {
    std::vector<Device> out;
    for (Device::Type t : {Device::Type::CPU, Device::Type::NVIDIA, Device::Type::AMD, Device::Type::OPENCL}) {
        int count = 0;
        if (infinirtGetDeviceCount(static_cast<infiniDevice_t>(t), &count) == INFINI_STATUS_SUCCESS && count >= 1) {
            out.push_back(Device(t, 0));
        }
    }
    return out;
}

void ExpectRoundTrip(const std::shared_ptr<infinicore::Memory> &memory, unsigned char value) {
    std::vector<unsigned char> in(memory->size(), value);
    std::vector<unsigned char> out(memory->size(), 0);
    ctx::memcpyH2D(memory->data(), in.data(), in.size(), false);
    ctx::memcpyD2H(out.data(), memory->data(), out.size());
    EXPECT_EQ(in, out);
}

class DeviceReset : public ::testing::TestWithParam<Device> {};

TEST_P(DeviceReset, ContextKeepsWorkingAfterAReset) {
    const Device device = GetParam();
    ctx::setDevice(device);
    std::shared_ptr<infinicore::Memory> held = ctx::allocateMemory(size_t{1} << 20);
    ExpectRoundTrip(held, 0x11);
    {
        std::shared_ptr<infinicore::Memory> cached = ctx::allocateMemory(4096); // back to the cache
        ExpectRoundTrip(cached, 0x22);
    }
    std::shared_ptr<infinicore::Memory> pinned = ctx::allocatePinnedHostMemory(4096);
    const infinirtStream_t before = ctx::getStream();

    ASSERT_EQ(infinirtDeviceReset(device.cType(), static_cast<int>(device.getIndex())), INFINI_STATUS_SUCCESS);

    const infinirtStream_t after = ctx::getStream();
    EXPECT_NE(after, before);
    EXPECT_EQ(infinirtStreamSynchronize(after), INFINI_STATUS_SUCCESS);
    std::shared_ptr<infinicore::Memory> fresh = ctx::allocateMemory(4096);
    std::shared_ptr<infinicore::Memory> fresh_large = ctx::allocateMemory(size_t{1} << 20);
    ExpectRoundTrip(fresh, 0x33);
    ExpectRoundTrip(fresh_large, 0x44);

    // The blocks of before the reset go without being freed again: the new ones stay infinirt's.
    held.reset();
    pinned.reset();
    ctx::trimMemory();
    ctx::syncDevice();
    if (device.getType() != Device::Type::CPU) {
        infinirtPointerAttributes_t attributes{};
        attributes.struct_size = sizeof attributes;
        for (const auto &m : {fresh, fresh_large}) {
            EXPECT_EQ(infinirtPointerGetAttributes(&attributes, m->data()), INFINI_STATUS_SUCCESS);
            EXPECT_EQ(attributes.kind, INFINIRT_MEMORY_DEVICE);
        }
    }
    ExpectRoundTrip(fresh, 0x55);
    ExpectRoundTrip(fresh_large, 0x66);

    // A second reset restarts it again.
    fresh.reset();
    ASSERT_EQ(infinirtDeviceReset(device.cType(), static_cast<int>(device.getIndex())), INFINI_STATUS_SUCCESS);
    EXPECT_NE(ctx::getStream(), after);
    ExpectRoundTrip(ctx::allocateMemory(8192), 0x77);
    fresh_large.reset();
    ctx::trimMemory();
}

INSTANTIATE_TEST_SUITE_P(Devices, DeviceReset, ::testing::ValuesIn(ResetDevices()),
                         [](const ::testing::TestParamInfo<Device> &info) {
                             return Device::toString(info.param.getType());
                         });

} // namespace
