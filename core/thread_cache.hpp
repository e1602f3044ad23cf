// ThreadCache: the blocks one thread freed recently, kept for that thread's next requests of the
// same size on the same stream, in front of the allocator's shared pool.
//
// Ownership: created and owned by a DeviceCachingAllocator, one per (allocator, thread). The
// blocks in it stay out of the shared pool (they are neither coalesced nor counted as allocated)
// until popped, evicted, or drained. The allocator drains a thread's cache whenever that thread
// misses it, so blocks stay only while the thread keeps asking for the same sizes.
//
// Thread safety: pop() and push() are called by the owning thread only; drain() by any thread
// (trim, out-of-memory, thread exit). They serialise on a per-cache spin lock, which the owner
// finds free unless a drain is running: the fast path takes no lock that other threads contend
// for. The counters are written by the owner only and read by anyone.
//
// Bounds: at most `depth` blocks per (stream, size class) and `capacity` bytes in all; pushing
// beyond evicts the oldest blocks (least recently freed), which push() returns to its caller for
// the shared pool.
#ifndef INFINICORE_CORE_THREAD_CACHE_HPP
#define INFINICORE_CORE_THREAD_CACHE_HPP

#include "caching_block.hpp"
#include "thread_counters.hpp"

#include <atomic>
#include <memory>
#include <vector>

namespace infinicore::detail {

class ThreadCache {
public:
    ThreadCache(size_t capacity, size_t depth);
    ~ThreadCache();
    ThreadCache(const ThreadCache &) = delete;
    ThreadCache &operator=(const ThreadCache &) = delete;

    // A cached block of `stream` for a request of `rounded` bytes (a small block of exactly that
    // size, or a large one less than kSmallSize bigger), or nullptr.
    CachingBlock *pop(infinirtStream_t stream, size_t rounded);
    // Caches `block`. Returns the blocks (chained through class_next) that must go back to the
    // pool: the ones evicted to make room, or `block` itself when it can never fit.
    CachingBlock *push(CachingBlock *block);
    // Takes every block out, chained through class_next.
    CachingBlock *drain();

    size_t cachedBytes() const { return cached_bytes_.load(std::memory_order_relaxed); }

    // Owner-written statistics, merged by the allocator.
    OwnedCounter allocs;
    OwnedCounter frees;
    OwnedCounter cache_hits;
    OwnedCounter thread_cache_hits;
    OwnedCounter unpublished_bytes;
    OwnedCounter unpublished_blocks;

private:
    struct ClassList {
        CachingBlock *head = nullptr; // most recently freed
        CachingBlock *tail = nullptr;
        size_t count = 0;
    };
    // One per stream the thread freed blocks of; small lists indexed by size / kMinBlockSize.
    struct StreamBins {
        infinirtStream_t stream = nullptr;
        ClassList large;
        ClassList small[kSmallSize / kMinBlockSize + 1];
    };

    void lock();
    void unlock() { locked_.store(false, std::memory_order_release); }
    StreamBins *findBins(infinirtStream_t stream);
    ClassList &listFor(StreamBins &bins, const CachingBlock *block);
    void unlink(ClassList &list, CachingBlock *block);
    CachingBlock *evict(CachingBlock *victim, CachingBlock *chain);

    std::atomic<bool> locked_{false};
    const size_t capacity_;
    const size_t depth_;
    size_t bytes_ = 0;
    std::atomic<size_t> cached_bytes_{0};
    StreamBins *last_bins_ = nullptr;
    std::vector<std::unique_ptr<StreamBins>> bins_;
    CachingBlock *lru_head_ = nullptr; // most recently freed
    CachingBlock *lru_tail_ = nullptr;
};

} // namespace infinicore::detail

#endif // INFINICORE_CORE_THREAD_CACHE_HPP
