// DevicePinnedHostAllocator: caching of page-locked host memory for one device.
//
// Blocks are rounded up to a power of two (at least 512 bytes) and kept, when freed, for the next
// request of that size class: page-locking is far slower than a cache hit. A block that copies on
// some streams used (recordStream; the context records its own copies) is not reused when freed:
// an event is recorded on each of those streams, and the block returns to the cache once all of
// them have completed. Events wait in one queue per stream, checked (without blocking) at every
// allocation and on processEvents(), so a slow stream holds back only its own blocks.
// Out of memory: every cached block is released and the page-locking retried once, then
// OutOfMemoryError.
//
// Thread safety: every method may be called from any thread (one mutex per allocator; the
// page-locking itself runs outside it). Lifetime: the allocator must outlive its blocks.
#ifndef INFINICORE_CORE_DEVICE_PINNED_HOST_ALLOCATOR_HPP
#define INFINICORE_CORE_DEVICE_PINNED_HOST_ALLOCATOR_HPP

#include "infinicore/error.hpp"
#include "infinicore/memory_stats.hpp"
#include "raw_device.hpp"
#include "stream_event_queues.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace infinicore::detail {

class DevicePinnedHostAllocator {
public:
    struct Block {
        void *ptr = nullptr;
        size_t size = 0;
        unsigned size_class = 0;
        bool in_use = false;
        std::vector<infinirtStream_t> streams; // streams that used it since it was handed out
        int pending_events = 0;
    };

    explicit DevicePinnedHostAllocator(std::shared_ptr<RawDevice> device);
    ~DevicePinnedHostAllocator();
    DevicePinnedHostAllocator(const DevicePinnedHostAllocator &) = delete;
    DevicePinnedHostAllocator &operator=(const DevicePinnedHostAllocator &) = delete;

    // Throws OutOfMemoryError, or Error for other failures.
    Block *allocate(size_t size);
    // Never throws.
    void deallocate(Block *block) noexcept;

    void recordStream(Block *block, infinirtStream_t stream);
    // By any address inside a block in use; false if the address is not in one.
    bool recordStream(const void *ptr, infinirtStream_t stream);

    // Returns blocks whose events have completed to the cache, without waiting.
    void processEvents();
    // Waits for pending events, then releases every cached block.
    void trim();

    MemoryStats stats() const;
    void resetPeakStats();

private:
    // Called with mutex_ held. processEventsLocked returns the blocks whose events have completed
    // to the cache; with `wait`, it waits for them all.
    void processEventsLocked(bool wait);
    void cacheLocked(Block *block);
    void releaseCachedLocked();
    // OutOfMemoryError for a request of `size` bytes, with the figures of this moment.
    [[noreturn]] void throwOutOfMemoryLocked(size_t size, bool retried, const std::string &detail) const;

    const std::shared_ptr<RawDevice> device_;
    mutable std::mutex mutex_;
    std::vector<Block *> free_[64];              // by size class (log2 of the size)
    std::map<uintptr_t, std::unique_ptr<Block>> blocks_; // every block, by address
    StreamEventQueues<Block> events_{*device_}; // freed blocks that wait for their streams

    MemoryStat allocated_bytes_, reserved_bytes_, active_bytes_, allocations_, segments_;
    uint64_t allocs_ = 0, frees_ = 0, cache_hits_ = 0, host_allocs_ = 0, host_frees_ = 0, retries_ = 0, ooms_ = 0;
};

} // namespace infinicore::detail

#endif // INFINICORE_CORE_DEVICE_PINNED_HOST_ALLOCATOR_HPP
