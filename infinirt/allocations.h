// The loader's record of live allocations: which backend and device own a pointer, its kind and
// size. It routes infinirtFree to the right plugin whatever device is current, turns double frees
// and foreign pointers into errors, and answers infinirtPointerGetAttributes (interior pointers
// too). Thread-safe: changes take a reader-writer lock exclusively and bump a generation; lookups
// (every copy, fill and kernel pointer argument) are answered from the calling thread's cache of
// recent ranges while the generation is unchanged (one load of it, no lock, no shared write), else
// under the shared lock. Allocation and free are not the per-op hot path: the C++ layer caches
// blocks.
#pragma once

#include "internal.h"

#include <atomic>
#include <cstdint>
#include <vector>

namespace infinirt {

// For messages: what a range of origin `o` is ("mapped memory", ...) and the call that gives it back.
const char *originText(Origin o);
const char *originRelease(Origin o);

// Records a live allocation (also: puts back one whose release failed in the plugin).
void recordAllocation(const Allocation &a);
// Records `a` unless its range overlaps a recorded one: false then, with `found` that one.
bool recordIfFree(const Allocation &a, Allocation &found);
// Removes the allocation starting exactly at `ptr` if it has kind `kind` and origin `origin`;
// false otherwise, with `found` describing the allocation holding `ptr` if any (to explain the
// refusal).
bool takeAllocation(void *ptr, infinirtMemoryKind_t kind, Origin origin, Allocation &taken, Allocation &found,
                    bool &holds);
// The recorded allocations owned by device (type, device), every origin.
std::vector<Allocation> allocationsOn(int type, int device);
// How many allocations of origin Malloc are live, and their bytes.
void liveAllocationTotals(size_t &count, size_t &bytes);
// Mapped memory (origin Mapped, kind DEVICE of (type, device)): [base, base + size), free in the
// record, joins it, merged with the mapped records that touch it inside [lo, hi) (the
// reservation), so that a range across the seam of two mappings is one allocation for range
// checks, copies and attributes.
void recordMapped(void *base, size_t size, int type, int device, uintptr_t lo, uintptr_t hi);
// [base, base + size), which lies in mapped records, leaves them (the parts outside it stay, each
// keeping the users noted on it).
void removeMapped(void *base, size_t size);
// A reserved range [base, base + size) with nothing mapped: recorded (Origin::Unmapped) so that
// no lookup takes it for memory infinirt did not allocate; recordMapped carves mappings out of it
// and removeMapped puts them back. removeUnmapped drops every unmapped record inside the range
// (the reservation is freed).
void recordUnmapped(void *base, size_t size, int device);
void removeUnmapped(void *base, size_t size);
// The mapped records inside [base, base + size) merged into one description of their users
// (foreign_users of all); false if none.
bool mappedUsers(void *base, size_t size, Allocation &users);
// The allocation holding `ptr` (base <= ptr < base + size); false if none.
bool findAllocation(const void *ptr, Allocation &out);
// Both at once, at one generation of the record (copies look up their two sides).
void findAllocations(const void *a, bool &found_a, Allocation &out_a, const void *b, bool &found_b, Allocation &out_b);
// The hot path's lookups (copies, fills, kernel arguments): the same answers, as a pointer to the
// record in the calling thread's cache (nullptr: not memory infinirt allocated), nothing copied.
// Valid until the calling thread's next lookup; the two answers of lookupAllocations are both
// valid until then. Inline: a lookup answered from the cache is one load of the generation, one
// thread-local access and a scan of the cached ranges in the caller; a miss takes the shared lock.
inline const Allocation *lookupAllocation(const void *ptr);
inline void lookupAllocations(const void *a, const Allocation *&out_a, const void *b, const Allocation *&out_b);
// Notes that a stream of (type, id) was handed memory of the live allocation at `base`.
void noteForeignUser(const void *base, int type, int id);
// Before memory of `a` is released: every device other than the owner whose streams were handed
// it has finished its queued work (api_memory.cpp; the owner's is the plugin's to wait for).
infiniStatus_t waitForOtherUsers(const char *function, const Allocation &a);

// ---- the per-thread lookup cache (allocations.cpp) ----------------------------------------------

// Bumped (under the record's exclusive lock) by every change of the record. On a cache line of its
// own: lookups answered from a thread's cache read it without sharing a line anyone writes per call.
extern std::atomic<uint64_t> g_allocation_generation INFINIRT_HIDDEN;

namespace detail {
// The entry holding `p`, or -1 (the caller has checked the cache's generation).
inline int cachedRange(const LookupCache &c, uintptr_t p) {
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 8
#endif
    for (unsigned i = 0; i < kCachedRanges; ++i) {
        if (p - c.lo[i] < c.span[i]) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

// Whether the cache's answers hold: it was filled at the record's generation now.
inline bool cacheIsCurrent(const LookupCache &c) {
    return c.generation == g_allocation_generation.load(std::memory_order_acquire);
}

// For a fast path: whether the cache's entry holding `p` holds all `size` bytes from it, and is
// memory infinirt did not allocate or an allocation of the device `owner` (ownerBits): then the
// entry's side (kGapSide, kHostSide, kDeviceSide: what a copy's kind needs), else -1, on a miss or
// anything else: the caller's general path decides, and its lookup fills the cache. A fast path
// answered here calls nothing before its plugin, and a NULL `p` always misses (allocation_record.h).
// The caller has checked cacheIsCurrent. Each entry's test is written out, so that a hit is
// decided with the entry's own fields at fixed offsets (no index carried to a shared tail).
INFINIRT_INLINE int cachedSide(const LookupCache &c, const void *p, size_t size, uint64_t owner) {
    const uintptr_t v = reinterpret_cast<uintptr_t>(p);
#define INFINIRT_CACHED_ENTRY(i)                                                                               \
    if (const uintptr_t off = v - c.lo[i]; off < c.span[i]) {                                                  \
        return size <= c.span[i] - off && (c.owner[i] == owner || c.owner[i] == kAnyOwner) ? c.side[i] : -1;   \
    }
    INFINIRT_CACHED_ENTRY(0)
    INFINIRT_CACHED_ENTRY(1)
    INFINIRT_CACHED_ENTRY(2)
    INFINIRT_CACHED_ENTRY(3)
    INFINIRT_CACHED_ENTRY(4)
    INFINIRT_CACHED_ENTRY(5)
    INFINIRT_CACHED_ENTRY(6)
    INFINIRT_CACHED_ENTRY(7)
#undef INFINIRT_CACHED_ENTRY
    static_assert(kCachedRanges == 8, "one test per entry");
    return -1;
}
} // namespace detail

// The calling thread's cache (in its ThreadHot: the hot entries reach both with one TLS access).
inline const detail::LookupCache &threadLookups() { return threadHot()->lookups; }

// The lookups under the shared lock, filling the calling thread's cache.
INFINIRT_COLD const Allocation *lookupAllocationSlow(const void *ptr);
INFINIRT_COLD void lookupAllocationsSlow(const void *a, const Allocation *&out_a, const void *b,
                                         const Allocation *&out_b);

// The same, with the calling thread's cache already at hand (threadHot()->lookups).
inline const Allocation *lookupAllocation(const detail::LookupCache &c, const void *ptr) {
    if (INFINIRT_LIKELY(detail::cacheIsCurrent(c))) {
        const int i = detail::cachedRange(c, reinterpret_cast<uintptr_t>(ptr));
        if (INFINIRT_LIKELY(i >= 0)) {
            return c.found[i];
        }
    }
    return lookupAllocationSlow(ptr);
}

inline void lookupAllocations(const detail::LookupCache &c, const void *a, const Allocation *&out_a, const void *b,
                              const Allocation *&out_b) {
    if (INFINIRT_UNLIKELY(!detail::cacheIsCurrent(c))) {
        lookupAllocationsSlow(a, out_a, b, out_b);
        return;
    }
    const int ia = detail::cachedRange(c, reinterpret_cast<uintptr_t>(a));
    const int ib = detail::cachedRange(c, reinterpret_cast<uintptr_t>(b));
    if (INFINIRT_LIKELY(ia >= 0 && ib >= 0)) {
        out_a = c.found[ia];
        out_b = c.found[ib];
        return;
    }
    lookupAllocationsSlow(a, out_a, b, out_b);
}

inline const Allocation *lookupAllocation(const void *ptr) { return lookupAllocation(threadLookups(), ptr); }

inline void lookupAllocations(const void *a, const Allocation *&out_a, const void *b, const Allocation *&out_b) {
    lookupAllocations(threadLookups(), a, out_a, b, out_b);
}

} // namespace infinirt
