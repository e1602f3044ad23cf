// DeviceCachingAllocator: stream-ordered caching of one device's memory.
//
// How it works:
//  - Requests are rounded up to 512 bytes. Up to 1 MiB they are carved from 2 MiB segments (the
//    small pool); larger ones from 20 MiB segments (below 10 MiB) or from segments of their own
//    size rounded to 2 MiB (the large pool). Blocks are split to fit, and free neighbours within a
//    segment are coalesced.
//  - A block belongs to the stream it was allocated on and is reused for requests on that stream
//    at once: the stream orders the new user after the old one. A block used on other streams
//    (recordStream) goes back to the pool only after events recorded on each of them at free time
//    have completed; pending events are checked, per stream so that one slow stream holds back
//    only its own blocks, at the start of every request the pool serves.
//  - Each thread keeps the blocks it freed recently (ThreadCache) and serves its next requests of
//    the same size and stream from them without touching shared state; only misses take the pool
//    mutex, one per allocator (device), never a process-wide lock. A miss first hands the
//    thread's cached blocks back to the pool (they coalesce there), so a thread that changes the
//    sizes it asks for does not keep memory others could use.
//  - Before asking the device for a new segment, the thread caches are drained into the pool
//    (where their blocks coalesce) and the pool searched again, so the caches never make the
//    reservation grow. If the new segment would raise the peak reservation, just enough unused
//    segments are released first (release_before_growth): the high-water mark grows only when
//    nothing cached could have been given back. This costs device frees while the peak is being
//    set (warm-up), never in a steady state below it.
//  - expandable_segments: instead of segments of their own, each (stream, pool) has one address
//    range reserved once (ExpandableSegment, as large as the device's memory) and grows by mapping
//    pages (the device's granularity, at least 2 MiB) into it: a request that no free block
//    serves takes the free block just below an unmapped stretch, if any, and maps only the pages
//    it lacks, so a batch that grows step by step costs one step of new memory, not a new
//    segment. Blocks split down to 512 bytes in both pools. Releasing (release_before_growth,
//    out of memory, trim) unmaps the whole pages inside free blocks, after the stream's work;
//    trim also gives back the ranges left with nothing mapped. Statistics count mapped bytes
//    as reserved, each range as a segment, each run of pages mapped or unmapped as a device
//    allocation or free. A backend without virtual memory (NOT_IMPLEMENTED) gets one warning
//    and segments of their own.
//  - Out of memory: every thread cache is drained, pending events are waited for, every unused
//    segment is released and the device allocation retried once; then OutOfMemoryError.
//
// Thread safety: every method may be called from any thread. A block may be freed by a thread
// other than the one that allocated it.
// Lifetime: the allocator must outlive the blocks it handed out; destroying it releases every
// segment through its RawDevice.
#ifndef INFINICORE_CORE_DEVICE_CACHING_ALLOCATOR_HPP
#define INFINICORE_CORE_DEVICE_CACHING_ALLOCATOR_HPP

#include "allocator_config.hpp"
#include "caching_block.hpp"
#include "expandable_segment.hpp"
#include "infinicore/error.hpp"
#include "infinicore/memory_stats.hpp"
#include "raw_device.hpp"
#include "stream_event_queues.hpp"
#include "thread_cache.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace infinicore::detail {

class DeviceCachingAllocator {
public:
    using Block = CachingBlock;

    DeviceCachingAllocator(std::shared_ptr<RawDevice> device, AllocatorConfig config);
    ~DeviceCachingAllocator();
    DeviceCachingAllocator(const DeviceCachingAllocator &) = delete;
    DeviceCachingAllocator &operator=(const DeviceCachingAllocator &) = delete;

    // A block of at least `size` bytes (0 gives a minimal block), usable by work on `stream`.
    // Throws OutOfMemoryError after the release-and-retry, Error for other device failures.
    Block *allocate(size_t size, infinirtStream_t stream);
    static void *data(const Block *block) { return block->ptr; }
    static size_t size(const Block *block) { return block->size; }
    // Gives `block` back; from any thread. Never throws.
    void deallocate(Block *block) noexcept;

    // Records that work on `stream` uses `block`: when freed it waits for that work.
    void recordStream(Block *block, infinirtStream_t stream);
    // The same by data pointer (the block's start); false if no held block starts there.
    bool recordStream(const void *ptr, infinirtStream_t stream);

    // Moves the blocks of every thread cache to the pool, returns the blocks whose events have
    // completed, and releases every unused segment. With `wait`, first waits for pending events.
    void trim(bool wait = true);
    // Returns the blocks whose events have completed to the pool without waiting.
    void processEvents();

    MemoryStats stats() const;
    void resetPeakStats();
    MemorySnapshot snapshot() const;
    const AllocatorConfig &config() const { return config_; }
    // Whether the pools grow by mapping pages (expandable_segments, and the backend has virtual
    // memory); before the first request, whether they will try to.
    bool expandable() const;
    Device device() const { return device_->device(); }

    // Internal: the calling thread is exiting; moves its cache's blocks and counters into the
    // allocator and deletes the cache. Called with the registry of live allocators locked.
    void retire(ThreadCache *cache) noexcept;

private:
    struct BlockOrder {
        bool operator()(const Block *a, const Block *b) const {
            if (a->stream != b->stream) {
                return reinterpret_cast<uintptr_t>(a->stream) < reinterpret_cast<uintptr_t>(b->stream);
            }
            if (a->size != b->size) {
                return a->size < b->size;
            }
            return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
        }
    };
    using FreeSet = std::set<Block *, BlockOrder>;
    enum class Source { ThreadCache, Pool, Device };

    // One request on its way through the steps of allocateFromPool (PyTorch's AllocParams).
    struct PoolRequest {
        PoolRequest(size_t size, size_t rounded, infinirtStream_t stream)
            : size(size), rounded(rounded), stream(stream), small(rounded <= kSmallSize),
              segment_size(segmentSize(rounded)) {}
        const size_t size;    // as asked for (for the error message)
        const size_t rounded; // the block size
        const infinirtStream_t stream;
        const bool small;          // served by the small pool
        const size_t segment_size; // what to ask the device for if the pool cannot serve it
        Block *block = nullptr;    // the block found, once a step found one
        Source source = Source::Pool;
        std::string device_error; // the device's message after an allocation it refused
    };

    // The calling thread's cache; nullptr while the thread is exiting (its requests then go
    // through orphan_).
    ThreadCache *localCache();
    ThreadCache *registerThread();
    // allocate() and deallocate() when the thread's memo is not this allocator's, the request is
    // too large, or the block was used on other streams: the same, with the thread registered
    // first, or through orphan_ (under its mutex) while the thread exits.
    Block *allocateSlow(size_t size, infinirtStream_t stream);
    void deallocateSlow(Block *block) noexcept;
    Block *allocateWith(ThreadCache *cache, size_t size, infinirtStream_t stream);
    void deallocateWith(ThreadCache *cache, Block *block) noexcept;
    Block *handOut(ThreadCache *cache, Block *block, Source source);
    void countFree(ThreadCache *cache, const Block *block) noexcept;
    // Caches a freed block in `cache`; what that evicts goes back to the pool.
    void pushOrReturn(ThreadCache *cache, Block *block) noexcept;
    // A miss of the thread's cache. Hands the thread's cached blocks back to the pool, then runs
    // the steps below, in this order, until one serves the request: take from the pool, or drain
    // the thread caches and take; else grow, or (the device being out of memory) reclaim every
    // freed block and take, or release the unused segments and grow once more.
    Block *allocateFromPool(ThreadCache *cache, size_t size, size_t rounded, infinirtStream_t stream);

    // The steps of allocateFromPool. Every step is called with mutex_ held and returns with it
    // held. The ...Locked ones keep it throughout; the ones given `pool_lock` (mutex_'s) release
    // it while they drain the thread caches, because the registry is locked before the pool,
    // never inside it. A step that returns false leaves the request to the next.
    //
    // Takes the smallest free block of the request's stream that fits it (max_split_size
    // permitting); false if none does.
    bool takeFreeLocked(PoolRequest &request);
    // Moves the blocks of every thread cache to the pool, where they coalesce; false if the
    // caches held none.
    bool drainCachesToPool(std::unique_lock<std::mutex> &pool_lock);
    // A new segment from the device, allocated under the lock; when it would raise the peak
    // reservation, just enough unused segments are released first (release_before_growth).
    // False when the device is out of memory; throws Error when it fails otherwise.
    bool growLocked(PoolRequest &request);
    // Drains every thread cache, then waits for every pending event: every block freed so far is
    // in the pool. Always true.
    bool reclaimFreedBlocks(std::unique_lock<std::mutex> &pool_lock);
    // Gives every unused segment back to the device. Always true.
    bool releaseUnusedSegmentsLocked();
    // growLocked for expandable segments: maps the pages the request lacks after the free block
    // below an unmapped stretch of its stream's range. False when the device is out of memory or
    // the range is full; throws Error when the device fails otherwise.
    bool growExpandableLocked(PoolRequest &request, ExpandableSegment &range);
    // The range of the request's stream and pool, reserved at its first use. nullptr when the
    // backend has no virtual memory (expandable_ is then off) or the reservation ran out of
    // memory (request.device_error says so); throws Error when the device fails otherwise.
    ExpandableSegment *expandableSegmentLocked(PoolRequest &request);
    // After the device call `call` that would have grown the pool failed with `status`: false
    // with the device's message in the request when it is OUT_OF_MEMORY; else throws Error.
    bool growthFailed(infiniStatus_t status, PoolRequest &request, const std::string &call);
    // growLocked once more, counted as the retry (num_alloc_retries).
    bool retryGrowLocked(PoolRequest &request);
    // Makes the block found the caller's: split to the request's size, recorded as held.
    Block *claimLocked(PoolRequest &request);

    // OutOfMemoryError for a request of `size` bytes with the figures of this moment (takes the
    // locks: called without them); `retried`: after the release-and-retry.
    [[noreturn]] void throwOutOfMemory(size_t size, bool retried, const std::string &why);
    // Chained through class_next.
    void returnToPool(Block *chain) noexcept;
    void freeWithEvents(Block *block) noexcept;

    // Called with mutex_ held.
    Block *newSegmentLocked(void *ptr, size_t size, infinirtStream_t stream, bool small);
    Block *splitLocked(Block *block, size_t rounded);
    void insertFreeLocked(Block *block);
    void eraseFreeLocked(Block *block);
    // Back into the pool, coalesced with its free neighbours.
    void releaseLocked(Block *block);
    // The same for each block of `chain` (linked through class_next).
    void releaseChainLocked(Block *chain);
    // Returns the blocks whose events have completed to the pool; with `wait`, waits for them all.
    void processEventsLocked(bool wait);
    // Gives unused whole segments back to the device, smallest first, until `needed` bytes are;
    // with expandable segments, unmaps the whole pages inside free blocks other than `keep`.
    void releaseSegmentsLocked(int64_t needed = INT64_MAX, const Block *keep = nullptr);
    // Unmaps the whole pages inside free `block`; the bytes unmapped.
    size_t unmapFreeBlockLocked(Block *block);
    // The block of [block->ptr + offset, end), linked after `block`, which keeps the rest.
    Block *splitOffLocked(Block *block, size_t offset);
    // Merges block->next into `block` and deletes it.
    void absorbNextLocked(Block *block);
    // Gives back the expandable ranges that have nothing mapped.
    void releaseEmptyRangesLocked();

    // Called without mutex_: they lock the registry (drainThreadCaches, the pool inside it).
    void drainThreadCaches() noexcept;
    size_t threadCachedBytes() const;

    const uint64_t id_;
    const std::shared_ptr<RawDevice> device_;
    const AllocatorConfig config_;

    // Per-thread caches and what departed threads left behind.
    mutable std::mutex registry_mutex_;
    std::vector<ThreadCache *> caches_;
    uint64_t retired_thread_cache_hits_ = 0;
    uint64_t retired_pool_hits_ = 0;
    uint64_t retired_device_allocs_ = 0;
    uint64_t retired_frees_ = 0;
    // Thresholds: 1/512 of the device's memory, at least 1 MiB (memory_stats.hpp); 64 blocks.
    SharedPeak<> allocated_bytes_;
    SharedPeak<64> allocated_blocks_;
    std::mutex orphan_mutex_;
    ThreadCache orphan_{0, 0};

    // The shared pool.
    mutable std::mutex mutex_;
    FreeSet small_free_;
    FreeSet large_free_;
    std::unordered_map<void *, Block *> held_;      // every block not free in the pool
    std::map<uintptr_t, Block *> segment_heads_;    // the first block of each segment, by address
    StreamEventQueues<Block> events_{*device_}; // freed blocks that wait for other streams
    // expandable_segments: on until the backend turns out to lack virtual memory.
    bool expandable_;
    size_t page_ = 0;          // bytes mapped at a time; found at the first growth
    size_t range_size_ = 0;    // bytes reserved per range
    std::map<std::pair<infinirtStream_t, bool>, std::unique_ptr<ExpandableSegment>> ranges_;
    std::map<uintptr_t, Block *> unmapped_; // the unmapped blocks of every range, by address
    MemoryStat reserved_bytes_, segments_, inactive_split_bytes_;
    // Not a MemoryStat: active bytes are allocated bytes (kept by the threads, merged on read)
    // plus these, so only their peak is kept here.
    int64_t pending_bytes_ = 0, active_peak_ = 0;
    uint64_t device_allocs_ = 0, device_frees_ = 0, retries_ = 0, ooms_ = 0;
};

} // namespace infinicore::detail

#endif // INFINICORE_CORE_DEVICE_CACHING_ALLOCATOR_HPP
