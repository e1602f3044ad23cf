// Ranges in memory infinirt allocated (issue 16, items 8 and 12): a copy or fill that overruns the
// allocation it starts in is refused with BAD_PARAM naming the sizes, before any backend call (on
// cuda a SIZE_MAX memset reached the driver and poisoned the context; on cpu it crashed), and an
// allocation larger than the device's memory is OUT_OF_MEMORY.
#include "device_test.h"
#include "resources.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace infinirt_test {
namespace {

class Ranges : public DeviceTest {
protected:
    Ranges() : DeviceTest({Feature::kMemory}) {}
};

constexpr size_t kSize = 4096;

// The refusal names the allocation's size.
#define EXPECT_OVERRUN(expr)                                                                            \
    do {                                                                                                \
        EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, (expr));                                                 \
        EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("4096 bytes"), std::string::npos)     \
            << infinirtGetLastErrorMessage();                                                           \
    } while (0)

TEST_P(Ranges, OverrunningFillsAndCopiesAreRefused) {
    DeviceBuffer d;
    DeviceBuffer other;
    ASSERT_OK(d.Malloc(kSize));
    ASSERT_OK(other.Malloc(kSize));
    ASSERT_OK(infinirtMemset(d, 0x5a, kSize));
    uint8_t *p = static_cast<uint8_t *>(d.get());
    std::vector<uint8_t> host(2 * kSize, 0x11);

    EXPECT_OVERRUN(infinirtMemset(d, 0, SIZE_MAX));
    EXPECT_OVERRUN(infinirtMemset(d, 0, kSize + 1));
    EXPECT_OVERRUN(infinirtMemset(p + kSize - 1, 0, 2));
    EXPECT_OVERRUN(infinirtMemcpy(other, d, SIZE_MAX, INFINIRT_MEMCPY_D2D));
    EXPECT_OVERRUN(infinirtMemcpy(d, host.data(), kSize + 1, INFINIRT_MEMCPY_H2D));
    EXPECT_OVERRUN(infinirtMemcpy(host.data(), p + 1, kSize, INFINIRT_MEMCPY_D2H));
    EXPECT_OVERRUN(infinirtMemcpy(other, d, kSize + 1, INFINIRT_MEMCPY_DEFAULT));
    if (Declares(Feature::kStreams)) {
        EXPECT_OVERRUN(infinirtMemsetAsync(d, 0, SIZE_MAX, nullptr));
        EXPECT_OVERRUN(infinirtMemsetAsync(p + 1, 0, kSize, nullptr));
        EXPECT_OVERRUN(infinirtMemcpyAsync(other, d, SIZE_MAX, INFINIRT_MEMCPY_D2D, nullptr));
        EXPECT_OVERRUN(infinirtMemcpyAsync(d, host.data(), kSize + 1, INFINIRT_MEMCPY_H2D, nullptr));
        EXPECT_OVERRUN(infinirtMemcpyAsync(host.data(), d, kSize + 1, INFINIRT_MEMCPY_D2H, nullptr));
        ASSERT_OK(infinirtStreamSynchronize(nullptr));
    }
    // Nothing was written, and the last byte and whole range are still fine.
    std::vector<uint8_t> back(kSize, 0);
    ASSERT_OK(infinirtMemcpy(back.data(), d, kSize, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(back, std::vector<uint8_t>(kSize, 0x5a));
    EXPECT_OK(infinirtMemset(p + kSize - 1, 1, 1));
    EXPECT_OK(infinirtMemcpy(other, d, kSize, INFINIRT_MEMCPY_D2D));
    // The device still works normally (on cuda: the context was not poisoned).
    ASSERT_OK(infinirtMemcpy(back.data(), other, kSize, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(back[kSize - 1], 1);
    EXPECT_EQ(back[0], 0x5a);
    EXPECT_OK(infinirtDeviceSynchronize());
}

TEST_P(Ranges, PinnedHostRangesAreCheckedToo) {
    PinnedBuffer h;
    DeviceBuffer d;
    ASSERT_OK(h.MallocHost(kSize));
    ASSERT_OK(d.Malloc(2 * kSize));
    EXPECT_OVERRUN(infinirtMemcpy(d, h, kSize + 1, INFINIRT_MEMCPY_H2D));
    EXPECT_OVERRUN(infinirtMemcpy(h, d, 2 * kSize, INFINIRT_MEMCPY_D2H));
}

// The header's rule: NULL pointers are NULL_POINTER even with size 0, then size 0 is a no-op.
TEST_P(Ranges, NullPointersWithSizeZeroAreNullPointer) {
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtMemcpy(nullptr, nullptr, 0, INFINIRT_MEMCPY_H2H));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtMemset(nullptr, 0, 0));
    uint8_t byte = 3;
    EXPECT_OK(infinirtMemcpy(&byte, &byte, 0, INFINIRT_MEMCPY_H2H));
}

// Larger than the device's total memory: OUT_OF_MEMORY, whatever the driver would have promised.
TEST_P(Ranges, AllocationsBeyondTheDeviceAreOutOfMemory) {
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    ASSERT_OK(infinirtGetMemInfo(type(), id(), &free_bytes, &total_bytes));
    ASSERT_GT(total_bytes, 0u);
    for (size_t size : {total_bytes + 4096, total_bytes * 4}) {
        SCOPED_TRACE(size);
        void *p = nullptr;
        EXPECT_STATUS(INFINI_STATUS_OUT_OF_MEMORY, infinirtMalloc(&p, size));
        EXPECT_EQ(p, nullptr);
    }
}

// This thread's lookups of the allocation record are cached (allocations and the gaps between
// them): an allocation or free made by another thread is seen by the very next call here.
TEST_P(Ranges, AnotherThreadsMallocAndFreeAreSeenAtOnce) {
    const auto attributesOf = [](const void *p) {
        infinirtPointerAttributes_t a{};
        a.struct_size = sizeof a;
        EXPECT_OK(infinirtPointerGetAttributes(&a, p));
        return a;
    };
    DeviceBuffer kept;
    ASSERT_OK(kept.Malloc(kSize));
    // The gaps below, between and above the allocations are looked up (and cached) here first.
    const uintptr_t k = reinterpret_cast<uintptr_t>(kept.get());
    for (uintptr_t p : {uintptr_t{16}, k - 1, k, k + kSize, UINTPTR_MAX - 16}) {
        attributesOf(reinterpret_cast<const void *>(p));
    }
    void *b = nullptr;
    std::thread([&] {
        ASSERT_OK(infinirtSetDevice(type(), id()));
        ASSERT_OK(infinirtMalloc(&b, kSize));
    }).join();
    ASSERT_NE(b, nullptr);
    infinirtPointerAttributes_t a = attributesOf(static_cast<char *>(b) + 1);
    EXPECT_EQ(a.kind, INFINIRT_MEMORY_DEVICE);
    EXPECT_EQ(a.base, b);
    EXPECT_EQ(a.size, kSize);
    EXPECT_OVERRUN(infinirtMemset(b, 0, kSize + 1));
    std::thread([&] { ASSERT_OK(infinirtFree(b)); }).join();
    a = attributesOf(b);
    EXPECT_EQ(a.kind, INFINIRT_MEMORY_UNKNOWN); // no backend here recognises freed memory either
    EXPECT_NE(a.base, b);
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFree(b));
}

INSTANTIATE_ON_ALL_DEVICES(Ranges);

} // namespace
} // namespace infinirt_test
