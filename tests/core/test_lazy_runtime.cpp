// Runtimes are created on first use of their device only. CTest runs each test in a fresh
// process with INFINIRT_CPU_DEVICE_COUNT=2 (and, for the second, INFINICORE_DEFAULT_DEVICE=cpu:1).
#include "infinicore/context/context.hpp"
#include "infinicore/device_event.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <thread>

namespace infinicore::test {
namespace {

namespace ctx = infinicore::context;
const Device cpu0(Device::Type::CPU, 0), cpu1(Device::Type::CPU, 1);

bool envIs(const char *name, const char *value) {
    const char *v = std::getenv(name);
    return v != nullptr && std::strcmp(v, value) == 0;
}

// Everything a program does with one device.
void useCurrentDevice() {
    auto device = ctx::allocateMemory(4096);
    auto pinned = ctx::allocatePinnedHostMemory(4096);
    ctx::memcpyH2D(device->data(), pinned->data(), 4096);
    DeviceEvent event;
    event.record();
    event.synchronize();
    ctx::syncStream();
    ctx::trimMemory();
    (void)ctx::memoryStats(ctx::getDevice());
}

TEST(LazyRuntime, UsingOnlyCpu1NeverCreatesARuntimeOnCpu0) {
    if (!envIs("INFINIRT_CPU_DEVICE_COUNT", "2") || std::getenv("INFINICORE_DEFAULT_DEVICE") != nullptr) {
        GTEST_SKIP() << "needs INFINIRT_CPU_DEVICE_COUNT=2 and no INFINICORE_DEFAULT_DEVICE (set by CTest)";
    }
    ASSERT_EQ(ctx::getDeviceCount(Device::Type::CPU), 2u);
    EXPECT_EQ(ctx::getDevice(), cpu0); // the process default, not created by asking
    EXPECT_FALSE(ctx::hasRuntime(cpu0));
    ctx::setDevice(cpu1);
    EXPECT_FALSE(ctx::hasRuntime(cpu1)); // setDevice alone creates nothing
    useCurrentDevice();
    (void)ctx::memoryStats(cpu0); // asking about a device does not create its runtime
    std::thread([] {
        EXPECT_EQ(ctx::getDevice(), cpu0); // a new thread starts on the process default
        ctx::setDevice(cpu1);
        useCurrentDevice();
    }).join();
    EXPECT_TRUE(ctx::hasRuntime(cpu1));
    EXPECT_FALSE(ctx::hasRuntime(cpu0));
    EXPECT_EQ(ctx::getDevice(), cpu1);
}

TEST(LazyRuntime, DefaultDeviceFromTheEnvironmentOnEveryThread) {
    if (!envIs("INFINIRT_CPU_DEVICE_COUNT", "2") || !envIs("INFINICORE_DEFAULT_DEVICE", "cpu:1")) {
        GTEST_SKIP() << "needs INFINIRT_CPU_DEVICE_COUNT=2 and INFINICORE_DEFAULT_DEVICE=cpu:1 (set by CTest)";
    }
    EXPECT_EQ(ctx::getDevice(), cpu1);
    useCurrentDevice();
    std::thread([] {
        EXPECT_EQ(ctx::getDevice(), cpu1);
        useCurrentDevice();
    }).join();
    EXPECT_TRUE(ctx::hasRuntime(cpu1));
    EXPECT_FALSE(ctx::hasRuntime(cpu0));
}

} // namespace
} // namespace infinicore::test
