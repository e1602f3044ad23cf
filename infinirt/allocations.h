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

namespace infinirt {

struct Allocation {
    void *base = nullptr;
    size_t size = 0;
    int type = 0;
    int device = 0;
    infinirtMemoryKind_t kind = INFINIRT_MEMORY_UNKNOWN;
    // Devices other than the owner whose streams were handed this memory (copies, fills, kernel
    // arguments): bit `id` of foreign_users[type] for ids below 32; foreign_all[type] for a larger
    // id (every device of that type then counts). Free waits for them (api_memory.cpp).
    uint32_t foreign_users[INFINI_DEVICE_TYPE_COUNT] = {};
    bool foreign_all[INFINI_DEVICE_TYPE_COUNT] = {};

    // Whether a stream of (t, id), not the owner, was already noted as a user.
    bool notedUser(int t, int id) const {
        return id < 32 ? (foreign_users[t] >> id) & 1u : foreign_all[t];
    }
    bool usedByOtherDevices() const {
        for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
            if (foreign_users[t] != 0 || foreign_all[t]) {
                return true;
            }
        }
        return false;
    }
};

// Records a live allocation (also: puts back one whose release failed in the plugin).
void recordAllocation(const Allocation &a);
// Removes the allocation starting exactly at `ptr` if it has kind `kind`; false otherwise, with
// `found` describing the allocation holding `ptr` if any (to explain the refusal).
bool takeAllocation(void *ptr, infinirtMemoryKind_t kind, Allocation &taken, Allocation &found, bool &holds);
// How many allocations are live, and their bytes.
void liveAllocationTotals(size_t &count, size_t &bytes);
// The allocation holding `ptr` (base <= ptr < base + size); false if none.
bool findAllocation(const void *ptr, Allocation &out);
// Both at once, at one generation of the record (copies look up their two sides).
void findAllocations(const void *a, bool &found_a, Allocation &out_a, const void *b, bool &found_b, Allocation &out_b);
// Notes that a stream of (type, id) was handed memory of the live allocation at `base`.
void noteForeignUser(const void *base, int type, int id);

} // namespace infinirt
