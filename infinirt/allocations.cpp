#include "allocations.h"
#include "never_destroyed.h"

#include <algorithm>
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
    static NeverDestroyed<Table> t_storage; // never destroyed: frees may come during exit
    Table *const t = &t_storage.get();
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

namespace {
using detail::LookupCache;
using detail::kCachedRanges;

// Looks `p` up in the table (caller holds the lock; `generation` read under it) and caches the
// answer: the allocation holding it, or the gap between allocations it lies in. A cache read at
// an older generation is emptied first.
const Allocation *fill(Table &t, LookupCache &c, uintptr_t p, uint64_t generation) {
    if (c.generation != generation) {
        for (unsigned j = 0; j < kCachedRanges; ++j) {
            c.span[j] = 0;
        }
        c.next = 0;
        c.generation = generation;
    }
    const unsigned i = c.next;
    c.next = (i + 1) % kCachedRanges;
    auto it = t.live.upper_bound(p);
    uintptr_t hi = it == t.live.end() ? UINTPTR_MAX : it->first;
    uintptr_t lo = 1; // never 0: NULL misses every cache (allocations.h)
    c.found[i] = nullptr;
    c.owner[i] = detail::kAnyOwner;
    c.side[i] = detail::kGapSide;
    if (it != t.live.begin()) {
        --it;
        const uintptr_t end = it->first + (it->second.size > 0 ? it->second.size : 1);
        if (p < end) {
            lo = it->first;
            hi = end;
            c.records[i] = it->second;
            c.found[i] = &c.records[i];
            c.owner[i] = detail::ownerBits(it->second.type, it->second.device);
            c.side[i] = it->second.kind == INFINIRT_MEMORY_DEVICE ? detail::kDeviceSide : detail::kHostSide;
        } else {
            lo = end;
        }
    }
    // p == UINTPTR_MAX in the last gap: answered, never matched (p - lo == span).
    c.lo[i] = lo;
    c.span[i] = hi - lo;
    return c.found[i];
}
} // namespace

void recordAllocation(const Allocation &a) {
    Table &t = table();
    std::unique_lock<std::shared_mutex> lock(t.mutex);
    t.live[reinterpret_cast<uintptr_t>(a.base)] = a;
    changed(t);
}

bool recordIfFree(const Allocation &a, Allocation &found) {
    Table &t = table();
    std::unique_lock<std::shared_mutex> lock(t.mutex);
    const uintptr_t lo = reinterpret_cast<uintptr_t>(a.base);
    auto it = t.live.lower_bound(lo + a.size);
    if (it != t.live.begin()) {
        --it;
        if (it->first + std::max<size_t>(it->second.size, 1) > lo) {
            found = it->second;
            return false;
        }
    }
    t.live[lo] = a;
    changed(t);
    return true;
}

namespace {
// Removes [lo, hi) from the records of origin `origin` it overlaps (the parts outside it stay).
// Caller holds the lock.
void carve(Table &t, uintptr_t lo, uintptr_t hi, Origin origin) {
    auto it = t.live.lower_bound(lo);
    if (it != t.live.begin() && std::prev(it)->first + std::prev(it)->second.size > lo) {
        --it;
    }
    while (it != t.live.end() && it->first < hi) {
        const Allocation a = it->second;
        if (a.origin != origin) {
            ++it;
            continue;
        }
        it = t.live.erase(it);
        const uintptr_t a_lo = reinterpret_cast<uintptr_t>(a.base);
        if (a_lo < lo) {
            Allocation head = a;
            head.size = lo - a_lo;
            t.live[a_lo] = head;
        }
        if (a_lo + a.size > hi) {
            Allocation tail = a;
            tail.base = reinterpret_cast<void *>(hi);
            tail.size = a_lo + a.size - hi;
            t.live[hi] = tail;
        }
        it = t.live.upper_bound(a_lo);
    }
}
} // namespace

void recordUnmapped(void *base, size_t size, int device) {
    Table &t = table();
    std::unique_lock<std::shared_mutex> lock(t.mutex);
    Allocation a{base, size, kUnmappedType, device, INFINIRT_MEMORY_DEVICE, Origin::Unmapped};
    t.live[reinterpret_cast<uintptr_t>(base)] = a;
    changed(t);
}

void removeUnmapped(void *base, size_t size) {
    Table &t = table();
    std::unique_lock<std::shared_mutex> lock(t.mutex);
    const uintptr_t lo = reinterpret_cast<uintptr_t>(base);
    carve(t, lo, lo + size, Origin::Unmapped);
    changed(t);
}

void recordMapped(void *base, size_t size, int type, int device, uintptr_t lo, uintptr_t hi) {
    Table &t = table();
    std::unique_lock<std::shared_mutex> lock(t.mutex);
    carve(t, reinterpret_cast<uintptr_t>(base), reinterpret_cast<uintptr_t>(base) + size, Origin::Unmapped);
    Allocation a{base, size, type, device, INFINIRT_MEMORY_DEVICE, Origin::Mapped};
    const uintptr_t b = reinterpret_cast<uintptr_t>(base);
    auto joins = [&](const Allocation &n) {
        return n.origin == Origin::Mapped && n.type == type && n.device == device;
    };
    auto merge_users = [&](const Allocation &n) {
        for (int i = 0; i < INFINI_DEVICE_TYPE_COUNT; ++i) {
            a.foreign_users[i] |= n.foreign_users[i];
            a.foreign_all[i] = a.foreign_all[i] || n.foreign_all[i];
        }
    };
    auto after = t.live.find(b + size);
    if (b + size < hi && after != t.live.end() && joins(after->second)) {
        a.size += after->second.size;
        merge_users(after->second);
        t.live.erase(after);
    }
    auto before = t.live.lower_bound(b);
    if (b > lo && before != t.live.begin()) {
        --before;
        if (before->first + before->second.size == b && joins(before->second)) {
            a.base = before->second.base;
            a.size += before->second.size;
            merge_users(before->second);
            t.live.erase(before);
        }
    }
    t.live[reinterpret_cast<uintptr_t>(a.base)] = a;
    changed(t);
}

void removeMapped(void *base, size_t size) {
    Table &t = table();
    std::unique_lock<std::shared_mutex> lock(t.mutex);
    const uintptr_t lo = reinterpret_cast<uintptr_t>(base);
    // The range's device, from the mapping it starts in (a range of whole mappings of one device).
    auto first = t.live.upper_bound(lo);
    int device = 0;
    if (first != t.live.begin() && std::prev(first)->second.origin == Origin::Mapped) {
        device = std::prev(first)->second.device;
    }
    carve(t, lo, lo + size, Origin::Mapped);
    t.live[lo] = Allocation{base, size, kUnmappedType, device, INFINIRT_MEMORY_DEVICE, Origin::Unmapped};
    changed(t);
}

bool mappedUsers(void *base, size_t size, Allocation &users) {
    Table &t = table();
    std::shared_lock<std::shared_mutex> lock(t.mutex);
    const uintptr_t lo = reinterpret_cast<uintptr_t>(base);
    const uintptr_t hi = lo + size;
    auto it = t.live.lower_bound(lo);
    if (it != t.live.begin() && std::prev(it)->first + std::prev(it)->second.size > lo) {
        --it;
    }
    bool any = false;
    for (; it != t.live.end() && it->first < hi; ++it) {
        const Allocation &a = it->second;
        if (a.origin != Origin::Mapped) {
            continue;
        }
        if (!any) {
            users = a;
            any = true;
            continue;
        }
        for (int i = 0; i < INFINI_DEVICE_TYPE_COUNT; ++i) {
            users.foreign_users[i] |= a.foreign_users[i];
            users.foreign_all[i] = users.foreign_all[i] || a.foreign_all[i];
        }
    }
    return any;
}

bool takeAllocation(void *ptr, infinirtMemoryKind_t kind, Origin origin, Allocation &taken, Allocation &found,
                    bool &holds) {
    Table &t = table();
    std::unique_lock<std::shared_mutex> lock(t.mutex);
    auto it = t.live.find(reinterpret_cast<uintptr_t>(ptr));
    if (it != t.live.end() && it->second.kind == kind && it->second.origin == origin) {
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

const char *originText(Origin o) {
    switch (o) {
    case Origin::Registered: return "registered host memory";
    case Origin::Mapped: return "mapped memory";
    case Origin::Opened: return "memory opened from another process";
    case Origin::Unmapped: return "a reserved address range with nothing mapped";
    case Origin::Malloc: break;
    }
    return "an allocation";
}

const char *originRelease(Origin o) {
    switch (o) {
    case Origin::Registered: return "infinirtHostUnregister";
    case Origin::Mapped: return "infinirtMemUnmap";
    case Origin::Opened: return "infinirtIpcCloseMemHandle";
    case Origin::Unmapped: return "infinirtMemAddressFree";
    case Origin::Malloc: break;
    }
    return "infinirtFree";
}

std::vector<Allocation> allocationsOn(int type, int device) {
    Table &t = table();
    std::shared_lock<std::shared_mutex> lock(t.mutex);
    std::vector<Allocation> out;
    for (const auto &entry : t.live) {
        if (entry.second.type == type && entry.second.device == device) { // never an unmapped range's
            out.push_back(entry.second);
        }
    }
    return out;
}

void liveAllocationTotals(size_t &count, size_t &bytes) {
    Table &t = table();
    std::shared_lock<std::shared_mutex> lock(t.mutex);
    count = 0;
    bytes = 0;
    for (const auto &entry : t.live) {
        if (entry.second.origin == Origin::Malloc) {
            ++count;
            bytes += entry.second.size;
        }
    }
}

void lookupAllocationsSlow(const void *a, const Allocation *&out_a, const void *b, const Allocation *&out_b) {
    // Both sides read under one lock, at one generation, into two fresh entries (neither answer
    // overwrites the other).
    Table &t = table();
    std::shared_lock<std::shared_mutex> lock(t.mutex);
    const uint64_t now = t.generation.load(std::memory_order_relaxed);
    out_a = fill(t, t_hot.lookups, reinterpret_cast<uintptr_t>(a), now);
    out_b = fill(t, t_hot.lookups, reinterpret_cast<uintptr_t>(b), now);
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
    return fill(t, t_hot.lookups, reinterpret_cast<uintptr_t>(ptr), t.generation.load(std::memory_order_relaxed));
}

bool findAllocation(const void *ptr, Allocation &out) {
    const Allocation *a = lookupAllocation(ptr);
    if (a != nullptr) {
        out = *a;
    }
    return a != nullptr;
}

} // namespace infinirt
