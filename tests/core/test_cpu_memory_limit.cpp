// Out-of-memory handling against the cpu backend's INFINIRT_CPU_MEMORY_LIMIT (set to 64 MiB for
// this program by CTest): cached memory is released and the allocation retried; then the error
// carries the figures and the C ABI's message.
#include "device_caching_allocator.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace infinicore::test {
namespace {

using detail::AllocatorConfig;
using detail::DeviceCachingAllocator;

constexpr size_t MiB = 1024 * 1024;

TEST(CpuMemoryLimit, OutOfMemoryReleasesTheCacheRetriesAndThenThrows) {
    const char *limit = std::getenv("INFINIRT_CPU_MEMORY_LIMIT");
    if (limit == nullptr || std::strtoull(limit, nullptr, 10) != 64 * MiB) {
        GTEST_SKIP() << "needs INFINIRT_CPU_MEMORY_LIMIT=" << 64 * MiB << " (set by CTest)";
    }
    // Without release_before_growth, so that the cached block is still there when the device
    // refuses (the next test shows that setting avoiding the failure altogether).
    DeviceCachingAllocator alloc(detail::makeInfinirtDevice(Device(Device::Type::CPU, 0)),
                                 AllocatorConfig::parse("release_before_growth:0"));
    infinirtStream_t stream = nullptr;
    auto *a = alloc.allocate(40 * MiB, stream);
    alloc.deallocate(a); // cached by this thread
    auto *b = alloc.allocate(50 * MiB, stream); // 40 + 50 > 64: release the 40 and retry
    MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.num_alloc_retries, 1u);
    EXPECT_EQ(stats.num_device_frees, 1u);
    EXPECT_EQ(stats.reserved_bytes.current, int64_t(50 * MiB));
    try {
        alloc.allocate(30 * MiB, stream);
        FAIL() << "expected OutOfMemoryError";
    } catch (const OutOfMemoryError &e) {
        EXPECT_EQ(e.status(), INFINI_STATUS_OUT_OF_MEMORY);
        EXPECT_EQ(e.requested(), 30 * MiB);
        EXPECT_EQ(e.allocated(), 50 * MiB);
        EXPECT_EQ(e.reservedUnallocated(), 0u);
        EXPECT_EQ(e.freeBytes(), 14 * MiB);
        // The cpu backend's own explanation travels with the exception.
        EXPECT_NE(e.detail().find("INFINIRT_CPU_MEMORY_LIMIT"), std::string::npos) << e.what();
    }
    EXPECT_EQ(alloc.stats().num_ooms, 1u);
    alloc.deallocate(b);
}

TEST(CpuMemoryLimit, ReleasingBeforeGrowthAvoidsTheFailedAllocation) {
    const char *limit = std::getenv("INFINIRT_CPU_MEMORY_LIMIT");
    if (limit == nullptr || std::strtoull(limit, nullptr, 10) != 64 * MiB) {
        GTEST_SKIP() << "needs INFINIRT_CPU_MEMORY_LIMIT=" << 64 * MiB << " (set by CTest)";
    }
    DeviceCachingAllocator alloc(detail::makeInfinirtDevice(Device(Device::Type::CPU, 0)), AllocatorConfig{});
    alloc.deallocate(alloc.allocate(40 * MiB, nullptr));
    auto *b = alloc.allocate(50 * MiB, nullptr);
    MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.num_alloc_retries, 0u);
    EXPECT_EQ(stats.num_device_frees, 1u);
    EXPECT_EQ(stats.reserved_bytes.peak, int64_t(50 * MiB));
    alloc.deallocate(b);
}

} // namespace
} // namespace infinicore::test
