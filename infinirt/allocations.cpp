#include "allocations.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <shared_mutex>

namespace infinirt {

namespace {
struct Table {
    std::shared_mutex mutex;
    std::map<uintptr_t, Allocation> live; // keyed by base address
    // Bumped under the exclusive lock by every change of `live`; on a cache line of its own, so
    // that lookups answered from a thread's cache read it without sharing a line anyone writes
    // per call (the mutex's line is written by every lock).
    alignas(64) std::atomic<uint64_t> generation{1};
};
Table &table() {
    static Table *t = new Table(); // never destroyed: frees may come during exit
    return *t;
}
// Caller holds the exclusive lock and has changed `live`.
void changed(Table &t) { t.generation.store(t.generation.load(std::memory_order_relaxed) + 1, std::memory_order_release); }

// Caller holds the lock.
const Allocation *holding(Table &t, const void *ptr) {
    const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
    auto it = t.live.upper_bound(p);
    if (it == t.live.begin()) {
        return nullptr;
    }
    --it;
    const Allocation &a = it->second;
    return p < it->first + (a.size > 0 ? a.size : 1) ? &a : nullptr;
}

// Each thread's recent answers, valid while the table's generation is the one they were read at:
// a lookup answered here takes no lock and writes no shared memory (only a load of the
// generation), the copies and kernel arguments' hot path. An entry is the range of an allocation
// ([base, base + size)) or a gap between allocations (memory infinirt did not allocate: pageable
// host buffers, other libraries' device memory), so unknown pointers are answered here too.
// Trivially destructible and constant-initialised: usable during thread and process exit.
struct CachedRange {
    uint64_t generation = 0; // 0: empty (the table's generation starts at 1)
    uintptr_t lo = 0;        // [lo, hi)
    uintptr_t hi = 0;
    bool found = false;
    Allocation a;
};
constexpr unsigned kCachedRanges = 8; // a copy's two sides, a kernel's pointer arguments
struct ThreadCache {
    CachedRange ranges[kCachedRanges];
    unsigned next = 0; // the entry a miss replaces
};
thread_local ThreadCache t_cache;

const CachedRange *cached(const ThreadCache &c, uintptr_t p, uint64_t generation) {
    for (const CachedRange &r : c.ranges) {
        if (r.generation == generation && p - r.lo < r.hi - r.lo) {
            return &r;
        }
    }
    return nullptr;
}

// Looks `p` up in the table (caller holds the lock; `generation` read under it) and caches the
// answer: the allocation holding it, or the gap between allocations it lies in.
const CachedRange &fill(Table &t, ThreadCache &c, uintptr_t p, uint64_t generation) {
    CachedRange &r = c.ranges[c.next];
    c.next = (c.next + 1) % kCachedRanges;
    r.generation = generation;
    auto it = t.live.upper_bound(p);
    r.hi = it == t.live.end() ? UINTPTR_MAX : it->first;
    r.lo = 0;
    r.found = false;
    if (it != t.live.begin()) {
        --it;
        const uintptr_t end = it->first + (it->second.size > 0 ? it->second.size : 1);
        if (p < end) {
            r.lo = it->first;
            r.hi = end;
            r.found = true;
            r.a = it->second;
        } else {
            r.lo = end;
        }
    }
    if (p - r.lo >= r.hi - r.lo) { // p == UINTPTR_MAX in the last gap: answered, never matched again
        r.generation = 0;
    }
    return r;
}

bool answer(const CachedRange &r, bool &found, Allocation &out) {
    found = r.found;
    if (r.found) {
        out = r.a;
    }
    return found;
}
} // namespace

void recordAllocation(const Allocation &a) {
    Table &t = table();
    std::unique_lock<std::shared_mutex> lock(t.mutex);
    t.live[reinterpret_cast<uintptr_t>(a.base)] = a;
    changed(t);
}

bool takeAllocation(void *ptr, infinirtMemoryKind_t kind, Allocation &taken, Allocation &found, bool &holds) {
    Table &t = table();
    std::unique_lock<std::shared_mutex> lock(t.mutex);
    auto it = t.live.find(reinterpret_cast<uintptr_t>(ptr));
    if (it != t.live.end() && it->second.kind == kind) {
        taken = it->second;
        t.live.erase(it);
        changed(t);
        return true;
    }
    const Allocation *h = holding(t, ptr);
    holds = h != nullptr;
    if (holds) {
        found = *h;
    }
    return false;
}

void liveAllocationTotals(size_t &count, size_t &bytes) {
    Table &t = table();
    std::shared_lock<std::shared_mutex> lock(t.mutex);
    count = t.live.size();
    bytes = 0;
    for (const auto &entry : t.live) {
        bytes += entry.second.size;
    }
}

void findAllocations(const void *a, bool &found_a, Allocation &out_a, const void *b, bool &found_b, Allocation &out_b) {
    Table &t = table();
    ThreadCache &c = t_cache;
    const uintptr_t pa = reinterpret_cast<uintptr_t>(a);
    const uintptr_t pb = reinterpret_cast<uintptr_t>(b);
    const uint64_t generation = t.generation.load(std::memory_order_acquire);
    const CachedRange *ra = cached(c, pa, generation);
    const CachedRange *rb = cached(c, pb, generation);
    if (INFINIRT_LIKELY(ra != nullptr && rb != nullptr)) {
        answer(*ra, found_a, out_a);
        answer(*rb, found_b, out_b);
        return;
    }
    // Both sides read under one lock, at one generation.
    std::shared_lock<std::shared_mutex> lock(t.mutex);
    const uint64_t now = t.generation.load(std::memory_order_relaxed);
    answer(fill(t, c, pa, now), found_a, out_a);
    answer(fill(t, c, pb, now), found_b, out_b);
}

void noteForeignUser(const void *base, int type, int id) {
    Table &t = table();
    std::unique_lock<std::shared_mutex> lock(t.mutex);
    auto it = t.live.find(reinterpret_cast<uintptr_t>(base));
    if (it == t.live.end()) {
        return; // freed meanwhile (the caller's race)
    }
    if (it->second.notedUser(type, id)) {
        return; // another thread noted it first
    }
    if (id < 32) {
        it->second.foreign_users[type] |= 1u << id;
    } else {
        it->second.foreign_all[type] = true;
    }
    changed(t); // cached copies of the record would say "not noted" and note it again
}

bool findAllocation(const void *ptr, Allocation &out) {
    Table &t = table();
    ThreadCache &c = t_cache;
    const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
    bool found = false;
    const CachedRange *r = cached(c, p, t.generation.load(std::memory_order_acquire));
    if (INFINIRT_LIKELY(r != nullptr)) {
        return answer(*r, found, out);
    }
    std::shared_lock<std::shared_mutex> lock(t.mutex);
    return answer(fill(t, c, p, t.generation.load(std::memory_order_relaxed)), found, out);
}

} // namespace infinirt
