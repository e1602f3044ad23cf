// Suite HostPins: the cpu plugin and the logging stub (a device of another backend whose memory
// is host memory it logs its calls on). Copies between cpu-device memory and the stub's memory are
// host-direct (the stub's memcpy_async into or out of the cpu allocation); the loader registers a
// cpu allocation with the stub (host_register, logged) during a copy of at least 1 MiB once such
// copies have moved half its size, once per allocation and backend, and unregisters it when the
// memory is freed (the stub logs the range's first byte, read before the free) or the stub device
// that registered it is reset. A refused registration leaves the copies as they were.
#include "loader_test_util.h"
#include "status_assertions.h"

#include <cstring>
#include <thread>
#include <vector>

namespace infinirt_loader_test {
namespace {

constexpr infiniDevice_t kStub = INFINI_DEVICE_CAMBRICON;
constexpr size_t kMiB = size_t(1) << 20;

class HostPins : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_OK(infinirtSetDevice(kStub, 0));
        log_ = StubLog();
        ASSERT_TRUE(log_.IsOpen()) << "the logging stub at " STUB_LOGGING_PATH " is not loaded";
    }
    void TearDown() override {
        for (void *p : stub_) {
            EXPECT_OK(infinirtFree(p));
        }
    }

    // `size` bytes of cpu:0 memory, each byte `fill`.
    void *CpuMemory(size_t size, int fill) {
        void *p = nullptr;
        EXPECT_OK(infinirtSetDevice(INFINI_DEVICE_CPU, 0));
        EXPECT_OK(infinirtMalloc(&p, size));
        if (p != nullptr) {
            std::memset(p, fill, size);
        }
        return p;
    }
    // `size` bytes of the stub's device `id`, freed by TearDown.
    void *StubMemory(size_t size, int id = 0) {
        void *p = nullptr;
        EXPECT_OK(infinirtSetDevice(kStub, id));
        EXPECT_OK(infinirtMalloc(&p, size));
        stub_.push_back(p);
        return p;
    }
    std::vector<std::string> Registers() const { return log_.LinesStartingWith("host_register "); }
    std::vector<std::string> Unregisters() const { return log_.LinesStartingWith("host_unregister "); }

    StubLog log_;
    std::vector<void *> stub_;
};

TEST_F(HostPins, LargeCopyRegistersOnceAndFreeUnregistersFirst) {
    const size_t size = 4 * kMiB;
    void *cpu = CpuMemory(size, 0x5a);
    void *stub = StubMemory(size);
    ASSERT_NE(cpu, nullptr);
    log_.Clear();
    ASSERT_OK(infinirtMemcpyPeer(stub, kStub, 0, cpu, INFINI_DEVICE_CPU, 0, size));
    const std::vector<std::string> registers = Registers();
    ASSERT_EQ(registers.size(), 1u) << log_.Text();
    EXPECT_EQ(registers[0],
              "host_register device=0 ptr=" + PointerText(cpu) + " size=" + std::to_string(size) + " flags=0");
    EXPECT_EQ(static_cast<unsigned char *>(stub)[size - 1], 0x5a);
    // Later copies, both ways and through every entry, find it registered.
    ASSERT_OK(infinirtMemcpyPeer(cpu, INFINI_DEVICE_CPU, 0, stub, kStub, 0, size));
    ASSERT_OK(infinirtMemcpy(stub, cpu, size, INFINIRT_MEMCPY_DEFAULT));
    ASSERT_OK(infinirtMemcpyPeerAsync(cpu, INFINI_DEVICE_CPU, 0, stub, kStub, 0, size, nullptr));
    EXPECT_EQ(Registers().size(), 1u) << log_.Text();
    EXPECT_TRUE(Unregisters().empty()) << log_.Text();
    // The memory is infinirt's: a program cannot register it itself.
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtHostRegister(kStub, 0, cpu, size, 0));
    ASSERT_OK(infinirtFree(cpu));
    const std::vector<std::string> unregisters = Unregisters();
    ASSERT_EQ(unregisters.size(), 1u) << log_.Text();
    EXPECT_EQ(unregisters[0], "host_unregister device=0 ptr=" + PointerText(cpu) + " first=90");
}

TEST_F(HostPins, SmallCopiesNeverRegister) {
    const size_t size = 4 * kMiB;
    void *cpu = CpuMemory(size, 1);
    void *stub = StubMemory(size);
    log_.Clear();
    const size_t small = kMiB - 1;
    for (int i = 0; i < 16; ++i) { // four times the allocation's size, in copies below 1 MiB
        ASSERT_OK(infinirtMemcpyPeer(stub, kStub, 0, cpu, INFINI_DEVICE_CPU, 0, small));
    }
    EXPECT_TRUE(Registers().empty()) << log_.Text();
    ASSERT_OK(infinirtFree(cpu));
    EXPECT_TRUE(Unregisters().empty()) << log_.Text();
}

TEST_F(HostPins, RegistersOnceLargeCopiesMovedHalfTheAllocation) {
    const size_t size = 8 * kMiB;
    void *cpu = CpuMemory(size, 2);
    void *stub = StubMemory(size);
    log_.Clear();
    for (int i = 0; i < 3; ++i) { // 3 MiB of 8
        ASSERT_OK(infinirtMemcpy(static_cast<char *>(cpu) + i * kMiB, stub, kMiB, INFINIRT_MEMCPY_DEFAULT));
    }
    EXPECT_TRUE(Registers().empty()) << log_.Text();
    ASSERT_OK(infinirtMemcpy(stub, static_cast<char *>(cpu) + 4 * kMiB, kMiB, INFINIRT_MEMCPY_DEFAULT));
    const std::vector<std::string> registers = Registers();
    ASSERT_EQ(registers.size(), 1u) << log_.Text();
    EXPECT_EQ(registers[0],
              "host_register device=0 ptr=" + PointerText(cpu) + " size=" + std::to_string(size) + " flags=0")
        << "the whole allocation, whatever part the copy touched";
    ASSERT_OK(infinirtFree(cpu));
    EXPECT_EQ(Unregisters().size(), 1u) << log_.Text();
}

TEST_F(HostPins, RefusedRegistrationFallsBackAndIsNotRetried) {
    const size_t size = 2 * kMiB;
    void *cpu = CpuMemory(size, 3);
    void *stub = StubMemory(size);
    log_.Clear();
    log_.FailNextHostRegister();
    ASSERT_OK(infinirtMemcpyPeer(stub, kStub, 0, cpu, INFINI_DEVICE_CPU, 0, size));
    EXPECT_EQ(static_cast<unsigned char *>(stub)[size - 1], 3);
    std::vector<std::string> registers = Registers();
    ASSERT_EQ(registers.size(), 1u) << log_.Text();
    EXPECT_NE(registers[0].find("-> refused"), std::string::npos) << registers[0];
    ASSERT_OK(infinirtMemcpyPeer(cpu, INFINI_DEVICE_CPU, 0, stub, kStub, 0, size));
    EXPECT_EQ(Registers().size(), 1u) << log_.Text();
    ASSERT_OK(infinirtFree(cpu));
    EXPECT_TRUE(Unregisters().empty()) << log_.Text();
}

TEST_F(HostPins, FreeAsyncUnregisters) {
    const size_t size = 2 * kMiB;
    void *cpu = CpuMemory(size, 4);
    void *stub = StubMemory(size);
    log_.Clear();
    ASSERT_OK(infinirtMemcpyPeer(cpu, INFINI_DEVICE_CPU, 0, stub, kStub, 0, size));
    ASSERT_EQ(Registers().size(), 1u) << log_.Text();
    infinirtStream_t stream = nullptr;
    ASSERT_OK(infinirtSetDevice(INFINI_DEVICE_CPU, 0));
    ASSERT_OK(infinirtStreamCreate(&stream));
    ASSERT_OK(infinirtFreeAsync(cpu, stream));
    EXPECT_EQ(Unregisters().size(), 1u) << log_.Text();
    ASSERT_OK(infinirtStreamSynchronize(stream));
    ASSERT_OK(infinirtStreamDestroy(stream));
}

TEST_F(HostPins, ResetOfTheRegisteringDeviceUnregisters) {
    const size_t size = 2 * kMiB;
    void *cpu = CpuMemory(size, 5);
    void *stub = nullptr;
    ASSERT_OK(infinirtSetDevice(kStub, 1));
    ASSERT_OK(infinirtMalloc(&stub, size)); // freed by the reset
    log_.Clear();
    ASSERT_OK(infinirtMemcpyPeer(stub, kStub, 1, cpu, INFINI_DEVICE_CPU, 0, size));
    ASSERT_EQ(Registers().size(), 1u) << log_.Text();
    EXPECT_NE(Registers()[0].find("host_register device=1 "), std::string::npos) << Registers()[0];
    ASSERT_OK(infinirtDeviceReset(kStub, 0)); // not the device that registered it
    EXPECT_TRUE(Unregisters().empty()) << log_.Text();
    ASSERT_OK(infinirtDeviceReset(kStub, 1));
    ASSERT_EQ(Unregisters().size(), 1u) << log_.Text();
    EXPECT_NE(Unregisters()[0].find("host_unregister device=1 "), std::string::npos) << Unregisters()[0];
    // Forgotten: the next large copy registers again, and the free unregisters that one only.
    void *other = StubMemory(size, 0);
    ASSERT_OK(infinirtMemcpyPeer(other, kStub, 0, cpu, INFINI_DEVICE_CPU, 0, size));
    EXPECT_EQ(Registers().size(), 2u) << log_.Text();
    ASSERT_OK(infinirtFree(cpu));
    EXPECT_EQ(Unregisters().size(), 2u) << log_.Text();
}

TEST_F(HostPins, ConcurrentLargeCopiesRegisterOnce) {
    const size_t size = 2 * kMiB;
    void *cpu = CpuMemory(size, 6);
    std::vector<void *> targets;
    for (int i = 0; i < 8; ++i) {
        targets.push_back(StubMemory(size));
    }
    log_.Clear();
    std::vector<infiniStatus_t> status(targets.size(), INFINI_STATUS_INTERNAL_ERROR);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < targets.size(); ++i) {
        threads.emplace_back(
            [&, i] { status[i] = infinirtMemcpyPeer(targets[i], kStub, 0, cpu, INFINI_DEVICE_CPU, 0, size); });
    }
    for (std::thread &t : threads) {
        t.join();
    }
    for (size_t i = 0; i < targets.size(); ++i) {
        EXPECT_OK(status[i]);
        EXPECT_EQ(static_cast<unsigned char *>(targets[i])[size - 1], 6);
    }
    EXPECT_EQ(Registers().size(), 1u) << log_.Text();
    ASSERT_OK(infinirtFree(cpu));
    EXPECT_EQ(Unregisters().size(), 1u) << log_.Text();
}

} // namespace
} // namespace infinirt_loader_test
