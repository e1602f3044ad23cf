// The loader's record of live allocations: which backend and device own a pointer, its kind and
// size. It routes infinirtFree to the right plugin whatever device is current, turns double frees
// and foreign pointers into errors, and answers infinirtPointerGetAttributes (interior pointers
// too). Thread-safe (a reader-writer lock; allocation and free are not the per-op hot path: the
// C++ layer caches blocks).
#pragma once

#include "internal.h"

namespace infinirt {

struct Allocation {
    void *base = nullptr;
    size_t size = 0;
    int type = 0;
    int device = 0;
    infinirtMemoryKind_t kind = INFINIRT_MEMORY_UNKNOWN;
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

} // namespace infinirt
