// DeviceCachingAllocator with expandable_segments over the cpu backend, whose virtual memory is
// real (a reserved range, memfd pages): growth inside one range, reuse, unmapping after the
// stream's work, statistics, teardown; and the fallback where the backend has none.
#include "device_caching_allocator.hpp"

#include "cpu_streams_fixture.hpp"
#include "fake_device.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace infinicore::test {
namespace {

using detail::AllocatorConfig;
using detail::DeviceCachingAllocator;
using Block = DeviceCachingAllocator::Block;

constexpr size_t MiB = 1024 * 1024;
constexpr size_t kPage = 2 * MiB; // the cpu backend's recommended granularity

AllocatorConfig expandable() {
    AllocatorConfig config;
    config.thread_cache_bytes = 0;
    config.expandable_segments = true;
    return config;
}

char *data(Block *block) { return static_cast<char *>(DeviceCachingAllocator::data(block)); }

// The bytes of infinirt memory of kind DEVICE at ptr (0 when infinirt does not know it).
size_t mappedAt(const void *ptr) {
    infinirtPointerAttributes_t attributes{};
    attributes.struct_size = sizeof(attributes);
    EXPECT_EQ(infinirtPointerGetAttributes(&attributes, ptr), INFINI_STATUS_SUCCESS);
    return attributes.kind == INFINIRT_MEMORY_DEVICE ? attributes.size : 0;
}

class ExpandableSegmentsTest : public CpuStreamsTest {};

TEST_F(ExpandableSegmentsTest, ABatchGrowingStepByStepMapsOnlyTheStepInOneRange) {
    DeviceCachingAllocator alloc(cpu(), expandable());
    EXPECT_TRUE(alloc.expandable());
    const size_t step = 3 * MiB;
    char *first = nullptr;
    for (size_t n = 1; n <= 6; ++n) {
        Block *batch = alloc.allocate(n * step, s1_);
        if (first == nullptr) {
            first = data(batch);
        }
        EXPECT_EQ(data(batch), first) << "step " << n << ": the batch grows in place";
        std::memset(data(batch), int(n), n * step); // every byte is mapped
        const MemoryStats stats = alloc.stats();
        const size_t mapped = (n * step + kPage - 1) / kPage * kPage;
        EXPECT_EQ(stats.reserved_bytes.current, int64_t(mapped)) << "step " << n;
        EXPECT_EQ(stats.allocated_bytes.current, int64_t(n * step));
        EXPECT_EQ(stats.segments.current, 1) << "one range for the stream's large pool";
        EXPECT_EQ(mappedAt(first), mapped) << "the pages mapped so far are one contiguous range";
        alloc.deallocate(batch);
    }
    const MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.allocated_bytes.current, 0);
    EXPECT_EQ(stats.allocated_bytes.peak, int64_t(6 * step));
    EXPECT_EQ(stats.reserved_bytes.peak, int64_t(18 * MiB));
}

TEST_F(ExpandableSegmentsTest, FreedBlocksAreReusedWithoutMappingMore) {
    DeviceCachingAllocator alloc(cpu(), expandable());
    Block *a = alloc.allocate(3 * MiB, s1_);
    Block *small = alloc.allocate(1000, s1_);
    char *where = data(a);
    alloc.deallocate(a);
    const uint64_t device_allocs = alloc.stats().num_device_allocs;
    Block *again = alloc.allocate(3 * MiB, s1_);
    EXPECT_EQ(data(again), where);
    const MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.num_device_allocs, device_allocs);
    EXPECT_EQ(stats.num_cache_hits, 1u);
    EXPECT_EQ(stats.segments.current, 2) << "the small and the large pool have a range each";
    EXPECT_EQ(stats.reserved_bytes.current, int64_t(4 * MiB + kPage));
    alloc.deallocate(again);
    alloc.deallocate(small);
}

TEST_F(ExpandableSegmentsTest, EachStreamHasItsOwnRange) {
    DeviceCachingAllocator alloc(cpu(), expandable());
    Block *a = alloc.allocate(4 * MiB, s1_);
    Block *b = alloc.allocate(4 * MiB, s2_);
    EXPECT_EQ(alloc.stats().segments.current, 2);
    EXPECT_EQ(alloc.snapshot().segments.size(), 2u);
    alloc.deallocate(a);
    Block *c = alloc.allocate(4 * MiB, s2_);
    EXPECT_NE(data(c), data(a)) << "a block of s1 is not reused on s2 without waiting";
    alloc.deallocate(b);
    alloc.deallocate(c);
}

TEST_F(ExpandableSegmentsTest, TrimUnmapsFreePagesBetweenHeldBlocksAndRegrowsIntoTheHole) {
    DeviceCachingAllocator alloc(cpu(), expandable());
    Block *a = alloc.allocate(4 * MiB, s1_);
    Block *b = alloc.allocate(4 * MiB, s1_);
    Block *c = alloc.allocate(4 * MiB, s1_);
    EXPECT_EQ(data(b), data(a) + 4 * MiB);
    EXPECT_EQ(data(c), data(b) + 4 * MiB);
    char *hole = data(b);
    alloc.deallocate(b);
    alloc.trim();
    MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.reserved_bytes.current, int64_t(8 * MiB));
    EXPECT_EQ(stats.num_device_frees, 1u);
    EXPECT_EQ(mappedAt(hole), 0u);
    std::memset(data(a), 1, 4 * MiB); // the neighbours stay mapped
    std::memset(data(c), 2, 4 * MiB);
    const MemorySnapshot snapshot = alloc.snapshot();
    ASSERT_EQ(snapshot.segments.size(), 1u);
    EXPECT_EQ(snapshot.segments[0].size, 8 * MiB) << "the snapshot lists mapped blocks only";

    Block *d = alloc.allocate(4 * MiB, s1_);
    EXPECT_EQ(data(d), hole);
    EXPECT_EQ(alloc.stats().reserved_bytes.current, int64_t(12 * MiB));
    std::memset(data(d), 3, 4 * MiB);
    alloc.deallocate(a);
    alloc.deallocate(c);
    alloc.deallocate(d);
}

TEST_F(ExpandableSegmentsTest, TrimUnmapsOnlyAfterTheStreamsWorkAndGivesTheRangeBack) {
    DeviceCachingAllocator alloc(cpu(), expandable());
    const size_t size = 64 * MiB;
    Block *block = alloc.allocate(size, s1_);
    char *ptr = data(block);
    // Work queued on the block's stream, still running when the block is freed (stream order
    // allows that): unmapping must wait for it, or the cpu stream would fault.
    for (int i = 0; i < 16; ++i) {
        ASSERT_EQ(infinirtMemsetAsync(ptr, i, size, s1_), INFINI_STATUS_SUCCESS);
    }
    alloc.deallocate(block);
    alloc.trim();
    EXPECT_EQ(infinirtStreamQuery(s1_), INFINI_STATUS_SUCCESS);
    const MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.reserved_bytes.current, 0);
    EXPECT_EQ(stats.segments.current, 0) << "a range with nothing mapped goes back";
    EXPECT_EQ(stats.reserved_bytes.peak, int64_t(size));
    EXPECT_EQ(mappedAt(ptr), 0u);
    EXPECT_TRUE(alloc.snapshot().segments.empty());

    Block *again = alloc.allocate(size, s1_); // a new range
    std::memset(data(again), 1, size);
    alloc.deallocate(again);
}

TEST_F(ExpandableSegmentsTest, ReleaseBeforeGrowthUnmapsFreePagesInsteadOfRaisingThePeak) {
    DeviceCachingAllocator alloc(cpu(), expandable());
    Block *a = alloc.allocate(8 * MiB, s1_);
    Block *b = alloc.allocate(8 * MiB, s1_);
    alloc.deallocate(a); // 8 MiB free below b
    Block *c = alloc.allocate(12 * MiB, s1_); // fits neither the hole nor what follows b alone
    MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.reserved_bytes.peak, int64_t(20 * MiB)) << "the hole was unmapped first";
    EXPECT_EQ(stats.reserved_bytes.current, int64_t(20 * MiB));
    std::memset(data(b), 1, 8 * MiB);
    std::memset(data(c), 2, 12 * MiB);
    alloc.deallocate(b);
    alloc.deallocate(c);
}

TEST_F(ExpandableSegmentsTest, DestroyingTheAllocatorUnmapsEverything) {
    char *ptr = nullptr;
    {
        DeviceCachingAllocator alloc(cpu(), expandable());
        Block *big = alloc.allocate(10 * MiB, s1_);
        Block *small = alloc.allocate(100, s2_);
        ptr = data(big);
        EXPECT_EQ(mappedAt(ptr), 10 * MiB);
        alloc.deallocate(big);
        alloc.deallocate(small);
        EXPECT_EQ(alloc.stats().reserved_bytes.current, int64_t(10 * MiB + kPage));
    }
    EXPECT_EQ(mappedAt(ptr), 0u);
}

TEST_F(ExpandableSegmentsTest, ManyBlocksOfMixedSizesKeepTheirContents) {
    DeviceCachingAllocator alloc(cpu(), expandable());
    std::vector<Block *> held;
    const size_t sizes[] = {512, 3000, 700 * 1024, 2 * MiB + 4096, 5 * MiB, 11 * MiB + 512};
    for (int round = 0; round < 4; ++round) {
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
            Block *b = alloc.allocate(sizes[i], round % 2 == 0 ? s1_ : s2_);
            std::memset(data(b), int(held.size() & 0xff), sizes[i]);
            held.push_back(b);
        }
        for (size_t i = 0; i < held.size(); i += 3) {
            alloc.deallocate(held[i]);
            held[i] = nullptr;
        }
        held.erase(std::remove(held.begin(), held.end(), nullptr), held.end());
        alloc.trim();
    }
    MemoryStats stats = alloc.stats();
    int64_t requested = 0;
    for (Block *b : held) {
        requested += int64_t(DeviceCachingAllocator::size(b));
    }
    EXPECT_EQ(stats.allocated_bytes.current, requested);
    EXPECT_GE(stats.reserved_bytes.current, requested);
    for (Block *b : held) {
        alloc.deallocate(b);
    }
    alloc.trim();
    stats = alloc.stats();
    EXPECT_EQ(stats.reserved_bytes.current, 0);
    EXPECT_EQ(stats.segments.current, 0);
}

TEST(ExpandableSegmentsFallback, ABackendWithoutVirtualMemoryGetsOneWarningAndSegments) {
    ::testing::internal::CaptureStderr();
    DeviceCachingAllocator alloc(std::make_shared<FakeDevice>(), expandable());
    DeviceCachingAllocator other(std::make_shared<FakeDevice>(), expandable());
    Block *a = alloc.allocate(5 * MiB, nullptr);
    Block *b = alloc.allocate(100, nullptr);
    Block *c = other.allocate(100, nullptr);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_FALSE(alloc.expandable());
    EXPECT_EQ(alloc.stats().reserved_bytes.current, int64_t(20 * MiB + 2 * MiB)) << "segments of their own";
    size_t warnings = 0;
    for (size_t at = err.find("expandable_segments"); at != std::string::npos; at = err.find("expandable_segments", at + 1)) {
        ++warnings;
    }
    EXPECT_EQ(warnings, 1u) << err;
    EXPECT_NE(err.find("no virtual memory"), std::string::npos) << err;
    alloc.deallocate(a);
    alloc.deallocate(b);
    other.deallocate(c);
}

// Registered with INFINIRT_BACKENDS=cpu,opencl (tests/core/CMakeLists.txt); skips elsewhere.
TEST(ExpandableSegmentsFallback, OpenclFallsBackToSegments) {
    int count = 0;
    if (infinirtGetDeviceCount(INFINI_DEVICE_OPENCL, &count) != INFINI_STATUS_SUCCESS || count == 0) {
        GTEST_SKIP() << "no opencl device";
    }
    ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_OPENCL, 0), INFINI_STATUS_SUCCESS);
    ::testing::internal::CaptureStderr();
    DeviceCachingAllocator alloc(detail::makeInfinirtDevice(Device(Device::Type::OPENCL, 0)), expandable());
    Block *a = alloc.allocate(5 * MiB, nullptr);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_FALSE(alloc.expandable());
    EXPECT_NE(err.find("expandable_segments"), std::string::npos) << err;
    EXPECT_EQ(alloc.stats().reserved_bytes.current, int64_t(20 * MiB));
    alloc.deallocate(a);
}

} // namespace
} // namespace infinicore::test
