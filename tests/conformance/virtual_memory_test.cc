// Virtual memory: physical allocations mapped out of order into one reservation are infinirt
// memory across the seams between them (copies, memsets, a kernel, attributes), and every refusal
// of infinirt.h. On a backend without it (NOT_IMPLEMENTED with a reason) the tests skip; cpu and
// cuda must have it.
#include "kernel_images.h"

#include <cstring>
#include <vector>

namespace infinirt_test {
namespace {

// The minimum granularity of the device under test, or skips when the backend has no virtual
// memory.
#define GRANULARITY_OR_SKIP(g)                                                                                   \
    do {                                                                                                         \
        OK_OR_SKIP_UNLESS_CPU_OR_CUDA(                                                                           \
            infinirtMemGetAllocationGranularity(&(g), type(), id(), INFINIRT_MEM_GRANULARITY_MINIMUM));          \
        ASSERT_GT((g), 0u);                                                                                      \
    } while (0)

// A reservation of three granules with two physical allocations mapped in it, the second one
// first: [granule 1, granule 2] from `second`, then granule 0 from `first`.
class VirtualMemory : public KernelTest {
protected:

    void MapThree() {
        ASSERT_OK(infinirtMemAddressReserve(&base_, type(), id(), 4 * g_, 0));
        ASSERT_OK(infinirtMemCreate(&first_, type(), id(), g_, 0));
        ASSERT_OK(infinirtMemCreate(&second_, type(), id(), 2 * g_, 0));
        ASSERT_OK(infinirtMemMap(At(1), 2 * g_, second_, 0));
        ASSERT_OK(infinirtMemMap(At(0), g_, first_, 0));
    }
    void TearDown() override {
        if (base_ != nullptr) {
            infinirtMemUnmap(At(0), 3 * g_);
            infinirtMemAddressFree(base_, 4 * g_);
        }
        for (infinirtPhysicalMem_t m : {first_, second_}) {
            if (m != nullptr) {
                infinirtMemRelease(m);
            }
        }
    }
    unsigned char *At(size_t granule) const { return static_cast<unsigned char *>(base_) + granule * g_; }

    size_t g_ = 0;
    void *base_ = nullptr;
    infinirtPhysicalMem_t first_ = nullptr;
    infinirtPhysicalMem_t second_ = nullptr;
};

TEST_P(VirtualMemory, CopiesAndMemsetsAcrossTheSeam) {
    GRANULARITY_OR_SKIP(g_);
    size_t recommended = 0;
    ASSERT_OK(infinirtMemGetAllocationGranularity(&recommended, type(), id(), INFINIRT_MEM_GRANULARITY_RECOMMENDED));
    EXPECT_EQ(recommended % g_, 0u);
    MapThree();

    infinirtPointerAttributes_t a{};
    a.struct_size = sizeof a;
    ASSERT_OK(infinirtPointerGetAttributes(&a, At(1) + 5));
    EXPECT_EQ(a.kind, INFINIRT_MEMORY_DEVICE);
    EXPECT_EQ(a.device_type, type());
    EXPECT_EQ(a.device_id, id());
    EXPECT_EQ(a.base, At(0)) << "the contiguous mapped range";
    EXPECT_EQ(a.size, 3 * g_);
    ASSERT_OK(infinirtPointerGetAttributes(&a, At(3)));
    EXPECT_EQ(a.kind, INFINIRT_MEMORY_UNKNOWN) << "the unmapped granule is not memory";

    // A memset and copies that cross both seams.
    const size_t span = 2 * g_ + 128;
    unsigned char *start = At(0) + g_ / 2;
    ASSERT_OK(infinirtMemset(start, 0x5a, span));
    std::vector<unsigned char> back(span, 0);
    ASSERT_OK(infinirtMemcpy(back.data(), start, span, INFINIRT_MEMCPY_D2H));
    for (size_t i = 0; i < span; ++i) {
        ASSERT_EQ(back[i], 0x5a) << "at byte " << i;
    }
    std::vector<unsigned char> up(span);
    for (size_t i = 0; i < span; ++i) {
        up[i] = static_cast<unsigned char>(i * 13);
    }
    ScopedStream s;
    ASSERT_OK(s.Create());
    ASSERT_OK(infinirtMemcpyAsync(start, up.data(), span, INFINIRT_MEMCPY_H2D, s));
    ASSERT_OK(infinirtMemsetAsync(At(1) - 8, 0x11, 16, s));
    ASSERT_OK(infinirtMemcpyAsync(back.data(), start, span, INFINIRT_MEMCPY_D2H, s));
    ASSERT_OK(infinirtStreamSynchronize(s));
    for (size_t i = 0; i < span; ++i) {
        const size_t at = g_ / 2 + i;
        const bool filled = at >= g_ - 8 && at < g_ + 8;
        ASSERT_EQ(back[i], filled ? 0x11 : up[i]) << "at byte " << i;
    }
    // Device to device across the seams, within the mapped range.
    ASSERT_OK(infinirtMemcpy(At(0), At(1) + g_ / 2, g_, INFINIRT_MEMCPY_D2D));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemset(At(2), 0, g_ + 1)) << "past the mapped range";
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(g_));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFree(At(0))) << "mapped memory is given back by unmapping";
}

// After MemUnmap, the range is no device address on any backend (infinirt.h): every copy, fill
// and attribute query treats it as unknown memory and refuses it, never writes it (cpu wrote the
// unmapped pages and crashed). A reserved granule never mapped is refused the same way.
TEST_P(VirtualMemory, UnmappedRangeIsNoMemory) {
    GRANULARITY_OR_SKIP(g_);
    ASSERT_OK(infinirtMemAddressReserve(&base_, type(), id(), 8 * g_, 0));
    ASSERT_OK(infinirtMemCreate(&first_, type(), id(), g_, 0));
    ASSERT_OK(infinirtMemCreate(&second_, type(), id(), 2 * g_, 0));
    ASSERT_OK(infinirtMemMap(At(0), g_, first_, 0));
    ASSERT_OK(infinirtMemMap(At(1), 2 * g_, second_, 0));
    ASSERT_OK(infinirtMemset(At(0), 1, 3 * g_));
    ASSERT_OK(infinirtMemUnmap(At(0), g_));
    ASSERT_OK(infinirtMemUnmap(At(1), 2 * g_));
    unsigned char host[64] = {};
    ScopedStream s;
    ASSERT_OK(s.Create());
    for (unsigned char *p : {At(0), At(0) + 8, At(2) + 5, At(7)}) {
        SCOPED_TRACE(testing::Message() << "granule offset " << (p - At(0)));
        EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemset(p, 0, 16));
        EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemsetAsync(p, 0, 16, s));
        EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemcpy(p, host, sizeof host, INFINIRT_MEMCPY_H2D));
        EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemcpy(host, p, sizeof host, INFINIRT_MEMCPY_D2H));
        EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemcpyAsync(host, p, sizeof host, INFINIRT_MEMCPY_DEFAULT, s));
        EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFree(p));
        infinirtPointerAttributes_t a{};
        a.struct_size = sizeof a;
        ASSERT_OK(infinirtPointerGetAttributes(&a, p));
        EXPECT_EQ(a.kind, INFINIRT_MEMORY_UNKNOWN);
    }
    ASSERT_OK(infinirtStreamSynchronize(s));
    // Mapped again, it is memory again.
    ASSERT_OK(infinirtMemMap(At(1), 2 * g_, second_, 0));
    EXPECT_OK(infinirtMemset(At(2) + 5, 0, 16));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemset(At(0), 0, 16));
    ASSERT_OK(infinirtMemUnmap(At(1), 2 * g_));
    ASSERT_OK(infinirtMemAddressFree(base_, 8 * g_));
    base_ = nullptr;
}

TEST_P(VirtualMemory, KernelAcrossTheSeam) {
    GRANULARITY_OR_SKIP(g_);
    MapThree();
    infinirtKernel_t add = nullptr;
    ASSERT_OK(GetKernel(&add, "vector_add"));
    // c = a + b over n floats (half a granule each): a crosses the first seam, b the second.
    const int32_t n = static_cast<int32_t>(g_ / 2 / sizeof(float));
    float *a = reinterpret_cast<float *>(At(1) - g_ / 4);
    float *b = reinterpret_cast<float *>(At(2) - g_ / 4);
    float *c = reinterpret_cast<float *>(At(0));
    std::vector<float> ha(n), hb(n);
    for (int32_t i = 0; i < n; ++i) {
        ha[i] = static_cast<float>(i % 512);
        hb[i] = static_cast<float>(2 * (i % 256));
    }
    ASSERT_OK(infinirtMemcpy(a, ha.data(), n * sizeof(float), INFINIRT_MEMCPY_H2D));
    ASSERT_OK(infinirtMemcpy(b, hb.data(), n * sizeof(float), INFINIRT_MEMCPY_H2D));
    ASSERT_OK(LaunchVectorAdd(add, a, b, c, n, nullptr));
    ASSERT_OK(infinirtDeviceSynchronize());
    std::vector<float> back(n);
    ASSERT_OK(infinirtMemcpy(back.data(), c, n * sizeof(float), INFINIRT_MEMCPY_D2H));
    for (int32_t i = 0; i < n; ++i) {
        ASSERT_EQ(back[i], ha[i] + hb[i]) << "at " << i;
    }
}

TEST_P(VirtualMemory, Refusals) {
    GRANULARITY_OR_SKIP(g_);
    MapThree();
    void *p = nullptr;
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemAddressReserve(&p, type(), id(), g_ + 1, 0));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemAddressReserve(&p, type(), id(), g_, 3)) << "alignment 3";
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtMemAddressReserve(nullptr, type(), id(), g_, 0));
    infinirtPhysicalMem_t m = nullptr;
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemCreate(&m, type(), id(), g_ / 2, 0));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemCreate(&m, type(), id(), g_, 0x100)) << "unknown flags";
    EXPECT_EQ(m, nullptr);
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtMemCreate(nullptr, type(), id(), g_, 0));

    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemMap(At(2), g_, first_, 0)) << "over a mapped range";
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemMap(At(3), g_, second_, 2 * g_)) << "past the physical end";
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemMap(At(3), g_ / 2, second_, 0)) << "not a granule";
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemMap(At(3), g_, second_, g_ / 2)) << "offset not a granule";
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemMap(At(4), g_, second_, 0)) << "outside the reservation";
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtMemMap(nullptr, g_, second_, 0));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemUnmap(At(1), g_)) << "half of a mapping";
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemUnmap(At(3), g_)) << "nothing mapped there";
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemAddressFree(base_, 4 * g_)) << "still mapped";
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemAddressFree(At(1), g_)) << "not a reservation";
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemSetAccess(At(0), g_, type(), id(), 0x2)) << "unknown access";
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemSetAccess(At(0), 2 * g_, type(), id(), INFINIRT_MEM_ACCESS_READWRITE))
        << "part of a mapping";
    EXPECT_OK(infinirtMemSetAccess(At(0), 3 * g_, type(), id(), INFINIRT_MEM_ACCESS_READWRITE)) << "two whole mappings";

    // Release while mapped: deferred to the last unmap; the handle stops validating at once.
    ASSERT_OK(infinirtMemRelease(second_));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtMemRelease(second_));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtMemMap(At(3), g_, second_, 0));
    second_ = nullptr;
    ASSERT_OK(infinirtMemset(At(1), 1, 2 * g_)) << "still mapped, still usable";
    ASSERT_OK(infinirtMemUnmap(At(0), 3 * g_)) << "whole mappings side by side in one call";
    ASSERT_OK(infinirtMemAddressFree(base_, 4 * g_));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemAddressFree(base_, 4 * g_)) << "freed already";
    base_ = nullptr;
}

INSTANTIATE_ON_ALL_DEVICES(VirtualMemory);

} // namespace
} // namespace infinirt_test
