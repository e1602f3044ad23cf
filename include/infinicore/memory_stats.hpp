// Statistics and snapshots of a device's allocators, as returned by context::memoryStats and
// context::memorySnapshot. Plain values: copies taken at one moment, safe to keep.
#ifndef INFINICORE_MEMORY_STATS_HPP
#define INFINICORE_MEMORY_STATS_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

namespace infinicore {

// A quantity that goes up and down, with the highest value seen since the allocator was built or
// its peaks were last reset.
struct MemoryStat {
    int64_t current = 0;
    int64_t peak = 0;
};

struct MemoryStats {
    // Bytes of blocks held by callers (block sizes: requests rounded up to the allocator's
    // granularity). With several threads allocating at once the peak may be off by at most
    // 1/512 of the device's memory (at least 1 MiB) per such thread: threads publish their share
    // only when it moves by that much, which is what keeps the hot path free of shared writes.
    // `current` is always exact.
    MemoryStat allocated_bytes;
    // Bytes obtained from the device (segments), whether used or cached.
    MemoryStat reserved_bytes;
    // allocated_bytes plus blocks freed by callers but still waiting for events of other streams.
    MemoryStat active_bytes;
    // Free pieces of segments that are partly in use: memory that only a request fitting in one
    // piece can use.
    MemoryStat inactive_split_bytes;
    // Blocks held by callers, and segments obtained from the device.
    MemoryStat allocations;
    MemoryStat segments;
    // Freed blocks kept by per-thread caches, ready for the same thread (part of reserved bytes).
    int64_t thread_cached_bytes = 0;

    uint64_t num_allocs = 0;            // allocation requests served
    uint64_t num_frees = 0;             // blocks given back by callers
    uint64_t num_cache_hits = 0;        // requests served without asking the device for memory
    uint64_t num_thread_cache_hits = 0; // ... of which from the calling thread's own cache
    uint64_t num_device_allocs = 0;     // segments obtained from the device
    uint64_t num_device_frees = 0;      // segments given back to the device
    uint64_t num_alloc_retries = 0;     // device allocations retried after releasing the cache
    uint64_t num_ooms = 0;              // requests that failed even after the retry
};

// The layout of an allocator's memory at one moment.
struct MemoryBlockInfo {
    enum class State {
        Allocated,     // held by a caller
        ThreadCached,  // freed, kept by a thread's cache for reuse on that thread
        PendingEvents, // freed, waiting for work of other streams that used it
        Free,          // in the shared pool
    };
    uintptr_t address = 0;
    size_t size = 0;
    State state = State::Free;
};

struct MemorySegmentInfo {
    uintptr_t address = 0;
    size_t size = 0;
    void *stream = nullptr; // the stream its blocks are reused on (an infinirtStream_t)
    bool small_pool = false;
    std::vector<MemoryBlockInfo> blocks; // in address order, covering the segment exactly
};

struct MemorySnapshot {
    std::vector<MemorySegmentInfo> segments; // in address order
};

} // namespace infinicore

#endif // INFINICORE_MEMORY_STATS_HPP
