// DevicePinnedHostAllocator over the cpu backend's page-locked allocation, and HostAllocator.
#include "device_pinned_host_allocator.hpp"
#include "host_allocator.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

namespace infinicore::test {
namespace {

using detail::DevicePinnedHostAllocator;
using detail::HostAllocator;

constexpr size_t KiB = 1024, MiB = 1024 * 1024;

std::shared_ptr<detail::RawDevice> cpu() { return detail::makeInfinirtDevice(Device(Device::Type::CPU, 0)); }

TEST(PinnedHostAllocator, RoundsToPowersOfTwoAndReusesFreedBlocks) {
    DevicePinnedHostAllocator alloc(cpu());
    auto *a = alloc.allocate(1000);
    EXPECT_EQ(a->size, 1024u);
    void *p = a->ptr;
    std::memset(p, 7, 1000);
    alloc.deallocate(a);
    auto *b = alloc.allocate(600);
    EXPECT_EQ(b->ptr, p);
    MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.num_allocs, 2u);
    EXPECT_EQ(stats.num_cache_hits, 1u);
    EXPECT_EQ(stats.num_device_allocs, 1u);
    EXPECT_EQ(stats.allocated_bytes.current, 1024);
    alloc.deallocate(b);
}

TEST(PinnedHostAllocator, CopiesOnAStreamDelayReuseUntilTheyHaveRun) {
    DevicePinnedHostAllocator alloc(cpu());
    infinirtStream_t stream = nullptr;
    ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_CPU, 0), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtStreamCreate(&stream), INFINI_STATUS_SUCCESS);
    void *device = nullptr;
    ASSERT_EQ(infinirtMalloc(&device, MiB), INFINI_STATUS_SUCCESS);

    auto *a = alloc.allocate(MiB);
    ASSERT_EQ(infinirtMemcpyAsync(device, a->ptr, MiB, INFINIRT_MEMCPY_H2D, stream), INFINI_STATUS_SUCCESS);
    EXPECT_TRUE(alloc.recordStream(static_cast<char *>(a->ptr) + 100, stream)); // interior address
    int local = 0;
    EXPECT_FALSE(alloc.recordStream(&local, stream));
    void *p = a->ptr;
    alloc.deallocate(a);
    ASSERT_EQ(infinirtStreamSynchronize(stream), INFINI_STATUS_SUCCESS);
    auto *b = alloc.allocate(MiB); // the allocation drains completed events first
    EXPECT_EQ(b->ptr, p);
    EXPECT_EQ(alloc.stats().num_device_allocs, 1u);
    alloc.deallocate(b);

    EXPECT_EQ(infinirtFree(device), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtStreamDestroy(stream), INFINI_STATUS_SUCCESS);
}

TEST(PinnedHostAllocator, TrimReleasesCachedBlocksOnly) {
    DevicePinnedHostAllocator alloc(cpu());
    auto *kept = alloc.allocate(4 * KiB);
    auto *freed = alloc.allocate(64 * KiB);
    alloc.deallocate(freed);
    alloc.trim();
    MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.reserved_bytes.current, int64_t(4 * KiB));
    EXPECT_EQ(stats.reserved_bytes.peak, int64_t(68 * KiB));
    EXPECT_EQ(stats.num_device_frees, 1u);
    alloc.resetPeakStats();
    EXPECT_EQ(alloc.stats().reserved_bytes.peak, int64_t(4 * KiB));
    alloc.deallocate(kept);
}

TEST(PinnedHostAllocator, SixteenThreadsShareOneCache) {
    DevicePinnedHostAllocator alloc(cpu());
    std::vector<std::thread> threads;
    std::atomic<int> corrupt{0};
    for (int t = 0; t < 16; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 500; ++i) {
                size_t size = size_t(512) << ((t + i) % 8);
                auto *b = alloc.allocate(size);
                std::memset(b->ptr, t, size);
                std::this_thread::yield();
                if (static_cast<unsigned char *>(b->ptr)[size - 1] != t) {
                    ++corrupt;
                }
                alloc.deallocate(b);
            }
        });
    }
    for (auto &thread : threads) {
        thread.join();
    }
    EXPECT_EQ(corrupt.load(), 0);
    MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.num_allocs, 16u * 500u);
    EXPECT_EQ(stats.num_frees, 16u * 500u);
    EXPECT_EQ(stats.allocated_bytes.current, 0);
    EXPECT_EQ(stats.num_cache_hits + stats.num_device_allocs, stats.num_allocs);
}

TEST(HostAllocator, AlignsAndCounts) {
    HostAllocator alloc;
    void *a = alloc.allocate(100);
    void *b = alloc.allocate(0);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % HostAllocator::kAlignment, 0u);
    EXPECT_NE(a, b);
    MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.allocated_bytes.current, 100);
    EXPECT_EQ(stats.allocations.current, 2);
    alloc.deallocate(a, 100);
    alloc.deallocate(b, 0);
    stats = alloc.stats();
    EXPECT_EQ(stats.allocated_bytes.current, 0);
    EXPECT_EQ(stats.allocated_bytes.peak, 100);
    EXPECT_EQ(stats.num_frees, 2u);
}

TEST(HostAllocator, ImpossibleRequestThrowsOutOfMemory) {
    HostAllocator alloc;
    EXPECT_THROW(alloc.allocate(SIZE_MAX - 4096), OutOfMemoryError);
    EXPECT_EQ(alloc.stats().num_ooms, 1u);
}

} // namespace
} // namespace infinicore::test
