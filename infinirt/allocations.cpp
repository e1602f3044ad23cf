#include "allocations.h"

#include <map>
#include <mutex>
#include <shared_mutex>

namespace infinirt {

namespace {
struct Table {
    std::shared_mutex mutex;
    std::map<uintptr_t, Allocation> live; // keyed by base address
};
Table &table() {
    static Table *t = new Table(); // never destroyed: frees may come during exit
    return *t;
}
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

void recordAllocation(const Allocation &a) {
    Table &t = table();
    std::unique_lock<std::shared_mutex> lock(t.mutex);
    t.live[reinterpret_cast<uintptr_t>(a.base)] = a;
}

bool takeAllocation(void *ptr, infinirtMemoryKind_t kind, Allocation &taken, Allocation &found, bool &holds) {
    Table &t = table();
    std::unique_lock<std::shared_mutex> lock(t.mutex);
    auto it = t.live.find(reinterpret_cast<uintptr_t>(ptr));
    if (it != t.live.end() && it->second.kind == kind) {
        taken = it->second;
        t.live.erase(it);
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
    std::shared_lock<std::shared_mutex> lock(t.mutex);
    const Allocation *ha = holding(t, a);
    const Allocation *hb = holding(t, b);
    found_a = ha != nullptr;
    found_b = hb != nullptr;
    if (found_a) {
        out_a = *ha;
    }
    if (found_b) {
        out_b = *hb;
    }
}

void noteForeignUser(const void *base, int type, int id) {
    Table &t = table();
    std::unique_lock<std::shared_mutex> lock(t.mutex);
    auto it = t.live.find(reinterpret_cast<uintptr_t>(base));
    if (it == t.live.end()) {
        return; // freed meanwhile (the caller's race)
    }
    if (id < 32) {
        it->second.foreign_users[type] |= 1u << id;
    } else {
        it->second.foreign_all[type] = true;
    }
}

bool findAllocation(const void *ptr, Allocation &out) {
    Table &t = table();
    std::shared_lock<std::shared_mutex> lock(t.mutex);
    const Allocation *h = holding(t, ptr);
    if (h == nullptr) {
        return false;
    }
    out = *h;
    return true;
}

} // namespace infinirt
