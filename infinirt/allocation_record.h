// The loader's record of one live allocation, and each thread's cache of recent lookups in that
// record (allocations.h keeps the record and answers the lookups; the cache lives in the thread's
// ThreadHot, internal.h).
#pragma once

#include "infinirt.h"

#include <cstddef>
#include <cstdint>

namespace infinirt {

// How a recorded range became infinirt memory: which call gives it back.
enum class Origin : uint8_t {
    Malloc,     // infinirtMalloc, infinirtMallocHost, infinirtMallocAsync: the frees
    Registered, // infinirtHostRegister: infinirtHostUnregister
    Mapped,     // infinirtMemMap: infinirtMemUnmap (one record per contiguous mapped range)
    Opened,     // infinirtIpcOpenMemHandle: infinirtIpcCloseMemHandle (another process's memory)
    // Reserved address range with nothing mapped (infinirtMemAddressReserve's, or what
    // infinirtMemUnmap left): never usable memory. Its record has type kUnmappedType, which no
    // device has, so every check that compares a pointer's device with another refuses it.
    Unmapped,
};

// The type of an Origin::Unmapped record: no device's.
constexpr int kUnmappedType = INFINI_DEVICE_TYPE_COUNT;

struct Allocation {
    void *base = nullptr;
    size_t size = 0;
    int type = 0;
    int device = 0;
    infinirtMemoryKind_t kind = INFINIRT_MEMORY_UNKNOWN;
    Origin origin = Origin::Malloc;
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

namespace detail {
// A device (type, id) as one 64-bit value, the bits of CurrentDevice and of a handle slot's
// (type, device) pair; kAnyOwner is no device's.
inline uint64_t ownerBits(int type, int id) {
    return static_cast<uint32_t>(type) | static_cast<uint64_t>(static_cast<uint32_t>(id)) << 32;
}
constexpr uint64_t kAnyOwner = ~uint64_t{0};

// Each thread's recent answers, valid while the record's generation is the one they were read at
// (one generation for the whole cache: a lookup at a newer one refills it from empty): a lookup
// answered here takes no lock and writes no shared memory. An entry is the range of an allocation
// ([lo, lo + span)) or a gap between allocations (memory infinirt did not allocate: pageable host
// buffers, other libraries' device memory), so unknown pointers are answered here too. The ranges
// are kept apart from the records (a scan reads two cache lines), and an answer is a pointer to
// the record. No entry holds NULL (the first gap starts at 1): a fast path that finds a pointer
// here knows it is not NULL. It lives in the thread's ThreadHot (internal.h).
// What a cache entry holds, for a copy's kind: memory infinirt did not allocate, an allocation of
// a host kind (pinned, mapped, ...), or device memory.
constexpr uint8_t kGapSide = 0;
constexpr uint8_t kHostSide = 1;
constexpr uint8_t kDeviceSide = 2;
constexpr unsigned kCachedRanges = 8; // a copy's two sides, a kernel's pointer arguments
struct LookupCache {
    uint64_t generation = 0;                     // 0: empty (the record's generation starts at 1)
    uintptr_t lo[kCachedRanges] = {};            // entry i: [lo[i], lo[i] + span[i])
    uintptr_t span[kCachedRanges] = {};          // 0: an unused entry
    uint64_t owner[kCachedRanges] = {};          // an allocation's device (ownerBits); kAnyOwner for a gap
    const Allocation *found[kCachedRanges] = {}; // nullptr: a gap; else &records[i]
    uint8_t side[kCachedRanges] = {};            // kGapSide, kHostSide or kDeviceSide
    unsigned next = 0;                           // the entry a miss replaces
    Allocation records[kCachedRanges];
};

} // namespace detail

} // namespace infinirt
