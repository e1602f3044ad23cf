// DeviceCachingAllocator over the cpu backend's raw allocation (the C ABI), so that CI exercises
// every path: pools, splitting, coalescing, per-stream reuse, thread caches, statistics,
// snapshots, trim and concurrent use.
#include "device_caching_allocator.hpp"

#include "cpu_streams_fixture.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

namespace infinicore::test {
namespace {

using detail::AllocatorConfig;
using detail::DeviceCachingAllocator;
using Block = DeviceCachingAllocator::Block;
using State = MemoryBlockInfo::State;

constexpr size_t KiB = 1024, MiB = 1024 * 1024;

AllocatorConfig noThreadCache() {
    AllocatorConfig config;
    config.thread_cache_bytes = 0;
    return config;
}

class CachingAllocatorTest : public CpuStreamsTest {};

MemorySegmentInfo onlySegment(const MemorySnapshot &snapshot) {
    EXPECT_EQ(snapshot.segments.size(), 1u);
    return snapshot.segments.empty() ? MemorySegmentInfo{} : snapshot.segments[0];
}

TEST_F(CachingAllocatorTest, SmallRequestIsRoundedAndSplitFromATwoMiBSegment) {
    DeviceCachingAllocator alloc(cpu(), noThreadCache());
    Block *a = alloc.allocate(1000, s1_);
    EXPECT_EQ(DeviceCachingAllocator::size(a), 1024u);
    Block *b = alloc.allocate(4 * KiB, s1_);
    EXPECT_EQ(static_cast<char *>(DeviceCachingAllocator::data(b)), static_cast<char *>(DeviceCachingAllocator::data(a)) + 1024);

    MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.num_device_allocs, 1u);
    EXPECT_EQ(stats.reserved_bytes.current, int64_t(2 * MiB));
    EXPECT_EQ(stats.allocated_bytes.current, int64_t(1024 + 4 * KiB));
    EXPECT_EQ(stats.inactive_split_bytes.current, int64_t(2 * MiB - 1024 - 4 * KiB));
    EXPECT_EQ(stats.allocations.current, 2);

    const MemorySegmentInfo segment = onlySegment(alloc.snapshot());
    EXPECT_TRUE(segment.small_pool);
    EXPECT_EQ(segment.size, 2 * MiB);
    EXPECT_EQ(segment.stream, s1_);
    ASSERT_EQ(segment.blocks.size(), 3u);
    EXPECT_EQ(segment.blocks[0].state, State::Allocated);
    EXPECT_EQ(segment.blocks[1].state, State::Allocated);
    EXPECT_EQ(segment.blocks[2].state, State::Free);
    alloc.deallocate(a);
    alloc.deallocate(b);
}

TEST_F(CachingAllocatorTest, FreeNeighboursCoalesceBackIntoTheWholeSegment) {
    DeviceCachingAllocator alloc(cpu(), noThreadCache());
    Block *a = alloc.allocate(4 * KiB, s1_);
    Block *b = alloc.allocate(4 * KiB, s1_);
    Block *c = alloc.allocate(4 * KiB, s1_);
    alloc.deallocate(a);
    alloc.deallocate(c); // merges with the free tail
    {
        const MemorySegmentInfo segment = onlySegment(alloc.snapshot());
        ASSERT_EQ(segment.blocks.size(), 3u);
        EXPECT_EQ(segment.blocks[0].state, State::Free);
        EXPECT_EQ(segment.blocks[1].state, State::Allocated);
        EXPECT_EQ(segment.blocks[2].state, State::Free);
        EXPECT_EQ(segment.blocks[2].size, 2 * MiB - 8 * KiB);
    }
    alloc.deallocate(b); // merges with both
    const MemorySegmentInfo segment = onlySegment(alloc.snapshot());
    ASSERT_EQ(segment.blocks.size(), 1u);
    EXPECT_EQ(segment.blocks[0].state, State::Free);
    EXPECT_EQ(segment.blocks[0].size, 2 * MiB);
    EXPECT_EQ(alloc.stats().inactive_split_bytes.current, 0);
    // The whole segment serves a request again without a new device allocation.
    Block *d = alloc.allocate(MiB, s1_);
    EXPECT_EQ(alloc.stats().num_device_allocs, 1u);
    alloc.deallocate(d);
}

TEST_F(CachingAllocatorTest, LargeRequestsUseTheLargePool) {
    DeviceCachingAllocator alloc(cpu(), noThreadCache());
    Block *huge = alloc.allocate(11 * MiB, s1_);  // a segment of its own, rounded to 2 MiB
    Block *mid = alloc.allocate(3 * MiB, s1_);    // from a 20 MiB segment
    Block *mid2 = alloc.allocate(5 * MiB, s1_);   // split from the same 20 MiB segment
    MemorySnapshot snapshot = alloc.snapshot();
    ASSERT_EQ(snapshot.segments.size(), 2u);
    size_t sizes[2] = {snapshot.segments[0].size, snapshot.segments[1].size};
    std::sort(std::begin(sizes), std::end(sizes));
    EXPECT_EQ(sizes[0], 12 * MiB);
    EXPECT_EQ(sizes[1], 20 * MiB);
    EXPECT_FALSE(snapshot.segments[0].small_pool);
    EXPECT_EQ(alloc.stats().num_device_allocs, 2u);
    EXPECT_EQ(DeviceCachingAllocator::size(mid2), 5 * MiB);
    EXPECT_EQ(DeviceCachingAllocator::size(huge), 12 * MiB); // a 1 MiB remainder is not worth a split
    alloc.deallocate(mid);
    alloc.deallocate(huge);
    alloc.deallocate(mid2);
}

TEST_F(CachingAllocatorTest, LargeBlockRemainderOfAtMostOneMiBIsNotSplit) {
    DeviceCachingAllocator alloc(cpu(), noThreadCache());
    Block *a = alloc.allocate(19 * MiB + 512 * KiB, s1_);
    EXPECT_EQ(DeviceCachingAllocator::size(a), 20 * MiB);
    alloc.deallocate(a);
}

TEST_F(CachingAllocatorTest, BlocksAreReusedOnTheirStreamOnly) {
    DeviceCachingAllocator alloc(cpu(), noThreadCache());
    Block *a = alloc.allocate(4 * KiB, s1_);
    void *p = DeviceCachingAllocator::data(a);
    alloc.deallocate(a);
    Block *again = alloc.allocate(4 * KiB, s1_);
    EXPECT_EQ(DeviceCachingAllocator::data(again), p); // same stream: reused at once
    Block *other = alloc.allocate(4 * KiB, s2_);
    EXPECT_NE(DeviceCachingAllocator::data(other), p);
    EXPECT_EQ(alloc.stats().num_device_allocs, 2u); // another stream: its own segment
    EXPECT_EQ(alloc.stats().num_cache_hits, 1u);
    alloc.deallocate(again);
    alloc.deallocate(other);
}

TEST_F(CachingAllocatorTest, CrossStreamUseIsGuardedByAnEventOnThatStream) {
    DeviceCachingAllocator alloc(cpu(), noThreadCache());
    Block *a = alloc.allocate(64 * KiB, s1_);
    void *p = DeviceCachingAllocator::data(a);
    // Work on s2 reads the block.
    std::vector<char> host(64 * KiB);
    ASSERT_EQ(infinirtMemcpyAsync(host.data(), p, host.size(), INFINIRT_MEMCPY_D2H, s2_), INFINI_STATUS_SUCCESS);
    alloc.recordStream(a, s2_);
    alloc.deallocate(a);
    ASSERT_EQ(infinirtStreamSynchronize(s2_), INFINI_STATUS_SUCCESS);
    alloc.processEvents();
    MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.active_bytes.current, stats.allocated_bytes.current); // nothing pending any more
    EXPECT_EQ(onlySegment(alloc.snapshot()).blocks.at(0).state, State::Free);
    Block *b = alloc.allocate(64 * KiB, s1_);
    EXPECT_EQ(DeviceCachingAllocator::data(b), p);
    alloc.deallocate(b);
}

TEST_F(CachingAllocatorTest, RecordStreamByPointerFindsOnlyHeldBlocks) {
    DeviceCachingAllocator alloc(cpu(), noThreadCache());
    Block *a = alloc.allocate(4 * KiB, s1_);
    EXPECT_TRUE(alloc.recordStream(DeviceCachingAllocator::data(a), s2_));
    int local = 0;
    EXPECT_FALSE(alloc.recordStream(&local, s2_));
    alloc.deallocate(a);
    ASSERT_EQ(infinirtStreamSynchronize(s2_), INFINI_STATUS_SUCCESS);
    alloc.trim();
    EXPECT_EQ(alloc.stats().reserved_bytes.current, 0);
}

TEST_F(CachingAllocatorTest, StatisticsCountRequestsHitsAndPeaks) {
    DeviceCachingAllocator alloc(cpu(), AllocatorConfig{});
    std::vector<Block *> blocks;
    for (int i = 0; i < 3; ++i) {
        blocks.push_back(alloc.allocate(MiB, s1_));
    }
    for (Block *b : blocks) {
        alloc.deallocate(b);
    }
    Block *again = alloc.allocate(MiB, s1_); // from this thread's cache
    MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.num_allocs, 4u);
    EXPECT_EQ(stats.num_frees, 3u);
    EXPECT_EQ(stats.num_cache_hits, 2u); // the second 1 MiB block shared the first's segment
    EXPECT_EQ(stats.num_thread_cache_hits, 1u);
    EXPECT_EQ(stats.num_device_allocs, 2u);
    EXPECT_EQ(stats.allocated_bytes.current, int64_t(MiB));
    EXPECT_EQ(stats.allocated_bytes.peak, int64_t(3 * MiB));
    EXPECT_EQ(stats.allocations.peak, 3);
    EXPECT_EQ(stats.reserved_bytes.current, int64_t(4 * MiB));
    EXPECT_EQ(stats.segments.current, 2);
    EXPECT_EQ(stats.thread_cached_bytes, int64_t(2 * MiB)); // the other two freed blocks
    alloc.resetPeakStats();
    stats = alloc.stats();
    EXPECT_EQ(stats.allocated_bytes.peak, int64_t(MiB));
    EXPECT_EQ(stats.allocations.peak, 1);
    alloc.deallocate(again);
    EXPECT_EQ(alloc.stats().allocated_bytes.current, 0);
}

TEST_F(CachingAllocatorTest, ThreadCacheServesRepeatedSizesAndGivesBlocksBackOnAMiss) {
    DeviceCachingAllocator alloc(cpu(), AllocatorConfig{});
    Block *a = alloc.allocate(100 * KiB, s1_);
    void *p = DeviceCachingAllocator::data(a);
    alloc.deallocate(a);
    EXPECT_EQ(onlySegment(alloc.snapshot()).blocks.at(0).state, State::ThreadCached);
    Block *same = alloc.allocate(100 * KiB, s1_);
    EXPECT_EQ(DeviceCachingAllocator::data(same), p);
    EXPECT_EQ(alloc.stats().num_thread_cache_hits, 1u);
    alloc.deallocate(same);
    // Another size: the cached block goes back to the pool, coalesces, and serves the request.
    Block *other_size = alloc.allocate(200 * KiB, s1_);
    EXPECT_EQ(DeviceCachingAllocator::data(other_size), p);
    EXPECT_EQ(alloc.stats().thread_cached_bytes, 0);
    EXPECT_EQ(alloc.stats().num_device_allocs, 1u);
    alloc.deallocate(other_size);
}

TEST_F(CachingAllocatorTest, ThreadCacheIsBoundedPerSizeAndInBytes) {
    AllocatorConfig config;
    config.thread_cache_depth = 2;
    config.thread_cache_bytes = 8 * MiB;
    DeviceCachingAllocator alloc(cpu(), config);
    std::vector<Block *> blocks;
    for (int i = 0; i < 4; ++i) {
        blocks.push_back(alloc.allocate(4 * KiB, s1_));
    }
    for (Block *b : blocks) {
        alloc.deallocate(b);
    }
    EXPECT_EQ(alloc.stats().thread_cached_bytes, int64_t(8 * KiB));
    // 3 MiB blocks: the second one pushes the byte budget over, evicting the oldest.
    Block *big1 = alloc.allocate(3 * MiB, s1_);
    Block *big2 = alloc.allocate(3 * MiB, s1_);
    Block *big3 = alloc.allocate(3 * MiB, s1_);
    alloc.deallocate(big1);
    alloc.deallocate(big2);
    alloc.deallocate(big3);
    EXPECT_LE(alloc.stats().thread_cached_bytes, int64_t(8 * MiB));
    EXPECT_GE(alloc.stats().thread_cached_bytes, int64_t(6 * MiB));
}

TEST_F(CachingAllocatorTest, ThreadCacheServesALargeRequestWithTheTightestBlock) {
    DeviceCachingAllocator alloc(cpu(), AllocatorConfig{});
    Block *three = alloc.allocate(3 * MiB, s1_);
    Block *more = alloc.allocate(3 * MiB + 512 * KiB, s1_);
    void *p_three = DeviceCachingAllocator::data(three), *p_more = DeviceCachingAllocator::data(more);
    alloc.deallocate(three);
    alloc.deallocate(more); // the most recently freed, but not the tightest for 3 MiB
    Block *a = alloc.allocate(3 * MiB, s1_);
    EXPECT_EQ(DeviceCachingAllocator::data(a), p_three);
    alloc.deallocate(a); // now the most recently freed, and exactly the size
    Block *b = alloc.allocate(3 * MiB, s1_);
    EXPECT_EQ(DeviceCachingAllocator::data(b), p_three);
    // The only large block cached serves a request less than 1 MiB smaller.
    Block *c = alloc.allocate(3 * MiB + 256 * KiB, s1_);
    EXPECT_EQ(DeviceCachingAllocator::data(c), p_more);
    EXPECT_EQ(alloc.stats().num_thread_cache_hits, 3u);
    alloc.deallocate(c);
    // Not one 1 MiB or more larger: the pool splits such a block instead.
    Block *d = alloc.allocate(2 * MiB, s1_);
    EXPECT_EQ(DeviceCachingAllocator::size(d), 2 * MiB);
    EXPECT_EQ(alloc.stats().num_thread_cache_hits, 3u);
    alloc.deallocate(b);
    alloc.deallocate(d);
}

TEST_F(CachingAllocatorTest, MaxSplitSizeKeepsHugeBlocksForHugeRequests) {
    DeviceCachingAllocator alloc(cpu(),
                                 AllocatorConfig::parse("max_split_size_mb:32,thread_cache_mb:0,release_before_growth:0"));
    Block *huge = alloc.allocate(40 * MiB, s1_);
    alloc.deallocate(huge);
    Block *small = alloc.allocate(4 * MiB, s1_);
    EXPECT_EQ(alloc.stats().num_device_allocs, 2u); // the 40 MiB block was not split for it
    Block *huge2 = alloc.allocate(39 * MiB, s1_);
    EXPECT_EQ(alloc.stats().num_device_allocs, 2u); // but serves a request of about its size
    EXPECT_EQ(DeviceCachingAllocator::size(huge2), 40 * MiB);
    alloc.deallocate(small);
    alloc.deallocate(huge2);
}

TEST_F(CachingAllocatorTest, UnusedSegmentsAreReleasedBeforeTheyWouldRaiseThePeak) {
    for (bool release : {true, false}) {
        AllocatorConfig config = noThreadCache();
        config.release_before_growth = release;
        DeviceCachingAllocator alloc(cpu(), config);
        alloc.deallocate(alloc.allocate(12 * MiB, s1_)); // a whole unused 12 MiB segment
        Block *big = alloc.allocate(30 * MiB, s1_);
        MemoryStats stats = alloc.stats();
        EXPECT_EQ(stats.reserved_bytes.peak, int64_t((release ? 30 : 42) * MiB)) << release;
        EXPECT_EQ(stats.num_device_frees, release ? 1u : 0u) << release;
        alloc.deallocate(big);
    }
}

TEST_F(CachingAllocatorTest, GrowthBelowThePeakReleasesNothing) {
    DeviceCachingAllocator alloc(cpu(), noThreadCache());
    alloc.deallocate(alloc.allocate(40 * MiB, s1_));
    alloc.trim(); // reserved 0, peak 40 MiB
    alloc.deallocate(alloc.allocate(4 * KiB, s1_)); // an unused 2 MiB segment
    Block *big = alloc.allocate(20 * MiB, s1_);
    MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.num_device_frees, 1u); // only the trim's
    EXPECT_EQ(stats.reserved_bytes.current, int64_t(22 * MiB));
    alloc.deallocate(big);
}

TEST_F(CachingAllocatorTest, TrimReleasesEveryUnusedSegmentIncludingThreadCachedOnes) {
    DeviceCachingAllocator alloc(cpu(), AllocatorConfig{});
    Block *a = alloc.allocate(4 * KiB, s1_);
    Block *b = alloc.allocate(12 * MiB, s1_);
    Block *kept = alloc.allocate(4 * KiB, s2_);
    alloc.deallocate(a);
    alloc.deallocate(b);
    EXPECT_GT(alloc.stats().thread_cached_bytes, 0);
    alloc.trim();
    MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.thread_cached_bytes, 0);
    EXPECT_EQ(stats.reserved_bytes.current, int64_t(2 * MiB)); // only the segment still in use
    EXPECT_EQ(stats.num_device_frees, 2u);
    alloc.deallocate(kept);
    alloc.trim();
    EXPECT_EQ(alloc.stats().reserved_bytes.current, 0);
    EXPECT_TRUE(alloc.snapshot().segments.empty());
}

TEST_F(CachingAllocatorTest, ExitingThreadHandsItsCacheBackToThePool) {
    DeviceCachingAllocator alloc(cpu(), AllocatorConfig{});
    infinirtStream_t stream = s1_;
    std::thread([&] {
        Block *a = alloc.allocate(8 * KiB, stream);
        alloc.deallocate(a);
        EXPECT_EQ(alloc.stats().thread_cached_bytes, int64_t(8 * KiB));
    }).join();
    MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.thread_cached_bytes, 0);
    EXPECT_EQ(stats.num_allocs, 1u); // the departed thread's counters are kept
    EXPECT_EQ(stats.num_frees, 1u);
    EXPECT_EQ(onlySegment(alloc.snapshot()).blocks.at(0).state, State::Free);
}

TEST_F(CachingAllocatorTest, SixteenThreadsAllocateWriteAndFreeConcurrently) {
    DeviceCachingAllocator alloc(cpu(), AllocatorConfig{});
    constexpr int kThreads = 16;
    constexpr int kOps = 4000;
    std::mutex handoff_mutex;
    std::vector<std::pair<Block *, unsigned char>> handoff; // freed by another thread
    std::atomic<int> corrupt{0};
    auto fill = [](Block *b, unsigned char tag) { std::memset(DeviceCachingAllocator::data(b), tag, DeviceCachingAllocator::size(b)); };
    auto intact = [](Block *b, unsigned char tag) {
        auto *bytes = static_cast<unsigned char *>(DeviceCachingAllocator::data(b));
        return bytes[0] == tag && bytes[DeviceCachingAllocator::size(b) - 1] == tag;
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            std::mt19937 rng(t);
            const unsigned char tag = static_cast<unsigned char>(t + 1);
            infinirtStream_t stream = (t % 2) ? s1_ : s2_;
            std::vector<Block *> live;
            for (int i = 0; i < kOps; ++i) {
                if (live.size() < 32 && rng() % 3 != 0) {
                    size_t size = size_t(1) << (9 + rng() % 14); // 512 B .. 2 MiB
                    Block *b = alloc.allocate(size + rng() % 512, stream);
                    fill(b, tag);
                    live.push_back(b);
                } else if (!live.empty()) {
                    size_t k = rng() % live.size();
                    Block *b = live[k];
                    live[k] = live.back();
                    live.pop_back();
                    if (!intact(b, tag)) {
                        ++corrupt;
                    }
                    if (rng() % 4 == 0) {
                        std::lock_guard<std::mutex> lock(handoff_mutex);
                        handoff.emplace_back(b, tag);
                        continue;
                    }
                    alloc.deallocate(b);
                }
                if (i % 64 == 0) {
                    std::vector<std::pair<Block *, unsigned char>> mine;
                    {
                        std::lock_guard<std::mutex> lock(handoff_mutex);
                        mine.swap(handoff);
                    }
                    for (auto &[b, owner_tag] : mine) {
                        if (!intact(b, owner_tag)) {
                            ++corrupt;
                        }
                        alloc.deallocate(b);
                    }
                }
            }
            for (Block *b : live) {
                alloc.deallocate(b);
            }
        });
    }
    for (auto &thread : threads) {
        thread.join();
    }
    for (auto &[b, tag] : handoff) {
        alloc.deallocate(b);
    }
    EXPECT_EQ(corrupt.load(), 0); // no block was ever handed to two holders
    MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.allocated_bytes.current, 0);
    EXPECT_EQ(stats.allocations.current, 0);
    EXPECT_EQ(stats.num_allocs, stats.num_frees);
    EXPECT_GT(stats.num_thread_cache_hits, 0u);
    alloc.trim(); // also takes what this thread cached from the last hand-offs
    EXPECT_EQ(alloc.stats().thread_cached_bytes, 0);
    EXPECT_EQ(alloc.stats().reserved_bytes.current, 0);
    EXPECT_EQ(alloc.stats().num_device_frees, alloc.stats().num_device_allocs);
}

// The owners' fast paths (a hit in the thread cache, a free into it) against another thread that
// drains every cache (trim): each block has one holder at a time, and nothing is lost.
TEST_F(CachingAllocatorTest, TrimFromAnotherThreadWhileOwnersHitTheirCaches) {
    DeviceCachingAllocator alloc(cpu(), AllocatorConfig{});
    constexpr int kThreads = 4;
    constexpr int kOps = 10000;
    std::atomic<int> corrupt{0};
    std::atomic<int> running{kThreads};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            const unsigned char tag = static_cast<unsigned char>(t + 1);
            infinirtStream_t stream = (t % 2) ? s1_ : s2_;
            const size_t sizes[] = {512, 4 * KiB, 2 * MiB};
            for (int i = 0; i < kOps; ++i) {
                Block *b = alloc.allocate(sizes[i % 3], stream);
                auto *bytes = static_cast<unsigned char *>(DeviceCachingAllocator::data(b));
                std::memset(bytes, tag, 64);
                std::this_thread::yield();
                if (bytes[0] != tag || bytes[63] != tag) {
                    ++corrupt;
                }
                alloc.deallocate(b);
            }
            running.fetch_sub(1);
        });
    }
    int trims = 0;
    while (running.load() > 0) {
        alloc.trim();
        ++trims;
    }
    for (auto &thread : threads) {
        thread.join();
    }
    EXPECT_GT(trims, 0);
    EXPECT_EQ(corrupt.load(), 0);
    MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.allocated_bytes.current, 0);
    EXPECT_EQ(stats.num_allocs, uint64_t(kThreads) * kOps);
    EXPECT_EQ(stats.num_allocs, stats.num_frees);
    alloc.trim();
    EXPECT_EQ(alloc.stats().thread_cached_bytes, 0);
    EXPECT_EQ(alloc.stats().reserved_bytes.current, 0);
}

TEST_F(CachingAllocatorTest, ZeroBytesGivesADistinctMinimalBlock) {
    DeviceCachingAllocator alloc(cpu(), noThreadCache());
    Block *a = alloc.allocate(0, s1_);
    Block *b = alloc.allocate(0, s1_);
    EXPECT_EQ(DeviceCachingAllocator::size(a), 512u);
    EXPECT_NE(DeviceCachingAllocator::data(a), DeviceCachingAllocator::data(b));
    alloc.deallocate(a);
    alloc.deallocate(b);
}

TEST_F(CachingAllocatorTest, ImpossibleRequestThrowsOutOfMemoryWithFigures) {
    DeviceCachingAllocator alloc(cpu(), noThreadCache());
    try {
        alloc.allocate(SIZE_MAX, s1_);
        FAIL() << "expected OutOfMemoryError";
    } catch (const OutOfMemoryError &e) {
        EXPECT_EQ(e.status(), INFINI_STATUS_OUT_OF_MEMORY);
        EXPECT_EQ(e.requested(), SIZE_MAX);
        EXPECT_NE(std::string(e.what()).find("requested"), std::string::npos);
    }
}

} // namespace
} // namespace infinicore::test
