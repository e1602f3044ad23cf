// CachingBlock: one piece of a device segment, as the caching allocator and its thread caches
// see it. Internal to DeviceCachingAllocator and ThreadCache.
#ifndef INFINICORE_CORE_CACHING_BLOCK_HPP
#define INFINICORE_CORE_CACHING_BLOCK_HPP

#include "infinirt.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace infinicore::detail {

// Where a block is. Only the allocator's snapshot reads it from another thread, hence atomic.
enum class BlockPlace : uint8_t {
    Caller,        // held by a caller
    ThreadCached,  // in a thread cache
    PendingEvents, // freed, waiting for the events of the streams that used it
    Pool,          // free in the shared pool
    Unmapped,      // address space of an expandable segment with no memory behind it
};

class ExpandableSegment;

struct CachingBlock {
    void *ptr = nullptr;
    size_t size = 0;
    // The stream it was allocated on: it is reused only for requests on this stream without
    // waiting, because that stream orders the new user after the old one.
    infinirtStream_t stream = nullptr;
    bool small = false;
    // The reserved range the block lies in (expandable_segments), or nullptr: the block is part of
    // a segment allocated on its own.
    ExpandableSegment *expandable = nullptr;

    // Address neighbours within the segment (guarded by the allocator's pool mutex). A block
    // without neighbours is a whole segment. The blocks of an expandable segment cover its whole
    // range, the unmapped stretches included.
    CachingBlock *prev = nullptr;
    CachingBlock *next = nullptr;

    std::atomic<BlockPlace> place{BlockPlace::Pool};

    // Other streams that used the block (recordStream), and how many events still guard it.
    // Written by the block's holder (or under the pool mutex once it is freed).
    std::vector<infinirtStream_t> stream_uses;
    int pending_events = 0;

    // Links while in a thread cache: its size class list and the cache's age (LRU) list. Also
    // used to chain blocks being handed back to the pool.
    CachingBlock *class_prev = nullptr;
    CachingBlock *class_next = nullptr;
    CachingBlock *lru_prev = nullptr;
    CachingBlock *lru_next = nullptr;

    bool isSplit() const { return prev != nullptr || next != nullptr; }
};

// Sizes and pools (the same granularity as PyTorch's allocator, so that fragmentation figures
// compare like with like).
inline constexpr size_t kMinBlockSize = 512;           // every size is a multiple of this
inline constexpr size_t kSmallSize = size_t(1) << 20;  // requests up to this use the small pool
inline constexpr size_t kSmallSegment = size_t(2) << 20;
inline constexpr size_t kMidSize = size_t(10) << 20;   // requests below this share 20 MiB segments
inline constexpr size_t kLargeSegment = size_t(20) << 20;
inline constexpr size_t kSegmentRounding = size_t(2) << 20;

inline size_t roundSize(size_t size) {
    if (size <= kMinBlockSize) {
        return kMinBlockSize;
    }
    return (size + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}

inline size_t segmentSize(size_t rounded) {
    if (rounded <= kSmallSize) {
        return kSmallSegment;
    }
    if (rounded < kMidSize) {
        return kLargeSegment;
    }
    return (rounded + kSegmentRounding - 1) / kSegmentRounding * kSegmentRounding;
}

} // namespace infinicore::detail

#endif // INFINICORE_CORE_CACHING_BLOCK_HPP
