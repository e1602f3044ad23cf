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
    // Bumped under the exclusive lock by every change of `live`: g_allocation_generation
    // (allocations.h; on a cache line of its own, not the mutex's, which every lock writes).
    std::atomic<uint64_t> &generation = g_allocation_generation;
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

} // namespace

alignas(64) std::atomic<uint64_t> g_allocation_generation{1};
__thread detail::LookupCache t_lookups;

namespace {
using detail::LookupCache;
using detail::RangeKey;
using detail::kCachedRanges;

// Looks `p` up in the table (caller holds the lock; `generation` read under it) and caches the
// answer: the allocation holding it, or the gap between allocations it lies in.
const Allocation *fill(Table &t, LookupCache &c, uintptr_t p, uint64_t generation) {
    const unsigned i = c.next;
    c.next = (i + 1) % kCachedRanges;
    RangeKey &k = c.keys[i];
    k.generation = generation;
    auto it = t.live.upper_bound(p);
    k.hi = it == t.live.end() ? UINTPTR_MAX : it->first;
    k.lo = 0;
    c.found[i] = nullptr;
    if (it != t.live.begin()) {
        --it;
        const uintptr_t end = it->first + (it->second.size > 0 ? it->second.size : 1);
        if (p < end) {
            k.lo = it->first;
            k.hi = end;
            c.records[i] = it->second;
            c.found[i] = &c.records[i];
        } else {
            k.lo = end;
        }
    }
    if (p - k.lo >= k.hi - k.lo) { // p == UINTPTR_MAX in the last gap: answered, never matched again
        k.generation = 0;
    }
    return c.found[i];
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

void lookupAllocationsSlow(const void *a, const Allocation *&out_a, const void *b, const Allocation *&out_b) {
    // Both sides read under one lock, at one generation, into two fresh entries (neither answer
    // overwrites the other).
    Table &t = table();
    std::shared_lock<std::shared_mutex> lock(t.mutex);
    const uint64_t now = t.generation.load(std::memory_order_relaxed);
    out_a = fill(t, t_lookups, reinterpret_cast<uintptr_t>(a), now);
    out_b = fill(t, t_lookups, reinterpret_cast<uintptr_t>(b), now);
}

void findAllocations(const void *a, bool &found_a, Allocation &out_a, const void *b, bool &found_b, Allocation &out_b) {
    const Allocation *ra = nullptr;
    const Allocation *rb = nullptr;
    lookupAllocations(a, ra, b, rb);
    found_a = ra != nullptr;
    found_b = rb != nullptr;
    if (found_a) {
        out_a = *ra;
    }
    if (found_b) {
        out_b = *rb;
    }
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

const Allocation *lookupAllocationSlow(const void *ptr) {
    Table &t = table();
    std::shared_lock<std::shared_mutex> lock(t.mutex);
    return fill(t, t_lookups, reinterpret_cast<uintptr_t>(ptr), t.generation.load(std::memory_order_relaxed));
}

bool findAllocation(const void *ptr, Allocation &out) {
    const Allocation *a = lookupAllocation(ptr);
    if (a != nullptr) {
        out = *a;
    }
    return a != nullptr;
}

} // namespace infinirt
