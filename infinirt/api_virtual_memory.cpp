// C ABI: virtual memory. The loader keeps the reservations, the mappings in each and the physical
// allocations (handles of kind PhysicalMem, their records counting the mappings), checks every
// call against them before the plugin sees it, and records each contiguous mapped range as
// infinirt memory (allocations.h, origin Mapped), so that copies, memsets, kernels and
// attributes treat it as they treat infinirtMalloc memory. Cold paths: one mutex for all of it.
#include "allocations.h"
#include "never_destroyed.h"
#include "capture.h"
#include "dispatch.h"
#include "virtual_memory.h"

#include <map>
#include <mutex>

using namespace infinirt;

namespace {

// A physical allocation. Owned by its handle while it has one, then by its last mapping.
struct Physical {
    void *native = nullptr; // the plugin's object
    void *handle = nullptr; // nullptr once released
    size_t size = 0;
    uint32_t flags = 0;
    int type = 0;
    int device = 0;
    int maps = 0;
};

struct Mapping {
    size_t size = 0;
    Physical *physical = nullptr;
    size_t offset = 0;
};

struct Reservation {
    size_t size = 0;
    int type = 0;
    int device = 0;
    std::map<uintptr_t, Mapping> mappings; // by address
};

struct State {
    std::mutex mutex;
    std::map<uintptr_t, Reservation> reservations; // by base
    std::map<std::pair<int, int>, size_t> minimum;  // (type, device) -> minimum granularity
};

State &state() {
    static NeverDestroyed<State> s_storage; // never destroyed: calls may come during exit
    State *const s = &s_storage.get();
    return *s;
}

constexpr uint32_t kKnownCreateFlags = INFINIRT_MEM_CREATE_SHAREABLE;

// The minimum granularity of (type, device), asked of the plugin once. Caller holds the lock.
infiniStatus_t minimumGranularity(State &s, Backend *b, int type, int device, size_t &out) {
    auto it = s.minimum.find({type, device});
    if (it != s.minimum.end()) {
        out = it->second;
        return INFINI_STATUS_SUCCESS;
    }
    size_t g = 0;
    const infiniStatus_t st = INFINIRT_DEVICE_CALL(b, mem_get_granularity, device, INFINIRT_MEM_GRANULARITY_MINIMUM, &g);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if (g == 0 || (g & (g - 1)) != 0) {
        return fail(INFINI_STATUS_INTERNAL_ERROR, "backend %s reported a minimum granularity of %zu for device %d",
                    b->name.c_str(), g, device);
    }
    s.minimum[{type, device}] = g;
    out = g;
    return INFINI_STATUS_SUCCESS;
}

INFINIRT_COLD infiniStatus_t misaligned(const char *fn, const char *what, size_t value, size_t granularity, int type,
                                        int device) {
    return fail(INFINI_STATUS_BAD_PARAM, "%s: %s %#zx is not a multiple of the minimum granularity of %s:%d (%zu bytes)",
                fn, what, value, typeName(type), device, granularity);
}

// The reservation holding [p, p + size), or nullptr. Caller holds the lock.
Reservation *reservationOf(State &s, uintptr_t p, size_t size, uintptr_t &base) {
    auto it = s.reservations.upper_bound(p);
    if (it == s.reservations.begin()) {
        return nullptr;
    }
    --it;
    if (p - it->first >= it->second.size || size > it->second.size - (p - it->first)) {
        return nullptr;
    }
    base = it->first;
    return &it->second;
}

// The mappings of `r` that make up [p, p + size) exactly (whole mappings, no gap); false if they
// do not. Caller holds the lock.
bool wholeMappings(Reservation &r, uintptr_t p, size_t size) {
    auto it = r.mappings.find(p);
    uintptr_t at = p;
    while (it != r.mappings.end() && it->first == at && at - p < size) {
        at += it->second.size;
        ++it;
    }
    return at - p == size;
}

// The reservation in which [ptr, ptr + size) is a range of whole mappings side by side, or the
// refusal (cuMemUnmap and cuMemSetAccess take whole mappings only; every backend keeps that rule).
// Caller holds the lock.
infiniStatus_t wholeMappingsIn(State &s, const char *fn, void *ptr, size_t size, Reservation *&r) {
    const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
    uintptr_t base = 0;
    r = size != 0 ? reservationOf(s, p, size, base) : nullptr;
    if (r == nullptr || !wholeMappings(*r, p, size)) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %p + %zu bytes is not a range of whole mappings in a reservation", fn,
                    ptr, size);
    }
    return INFINI_STATUS_SUCCESS;
}

// Gives a physical allocation back to its plugin (no handle, no mapping left). Caller holds the lock.
infiniStatus_t releasePhysical(Physical *ph) {
    Backend *b = g_registry.by_type[ph->type];
    const infiniStatus_t st = INFINIRT_DEVICE_CALL(b, mem_release, ph->device, ph->native);
    delete ph;
    return st;
}

} // namespace

bool infinirt::findMapping(const void *ptr, MappingInfo &out) {
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
    uintptr_t base = 0;
    Reservation *r = reservationOf(s, p, 1, base);
    if (r == nullptr) {
        return false;
    }
    auto it = r->mappings.upper_bound(p);
    if (it == r->mappings.begin()) {
        return false;
    }
    --it;
    if (p - it->first >= it->second.size) {
        return false;
    }
    const Physical *ph = it->second.physical;
    out = MappingInfo{reinterpret_cast<void *>(it->first), it->second.size, r->type, r->device, ph->native,
                      it->second.offset, ph->flags};
    return true;
}

extern "C" {

__export infiniStatus_t infinirtMemGetAllocationGranularity(size_t *granularity, infiniDevice_t device, int device_id,
                                                            infinirtMemGranularity_t which) {
    INFINIRT_ENTER();
    const char *fn = "infinirtMemGetAllocationGranularity";
    if (granularity == nullptr) {
        return nullArgument(fn, "granularity");
    }
    Backend *b = nullptr;
    infiniStatus_t st = checkDevice(static_cast<int>(device), device_id, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    const int w = enumInt(which);
    if (w != INFINIRT_MEM_GRANULARITY_MINIMUM && w != INFINIRT_MEM_GRANULARITY_RECOMMENDED) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: granularity kind %d is not valid", fn, w);
    }
    size_t g = 0;
    st = INFINIRT_DEVICE_CALL(b, mem_get_granularity, device_id, which, &g);
    if (st == INFINI_STATUS_SUCCESS) {
        *granularity = g;
    }
    return st;
}

__export infiniStatus_t infinirtMemAddressReserve(void **ptr, infiniDevice_t device, int device_id, size_t size,
                                                  size_t alignment) {
    INFINIRT_ENTER();
    const char *fn = "infinirtMemAddressReserve";
    if (ptr == nullptr) {
        return nullArgument(fn, "ptr");
    }
    Backend *b = nullptr;
    const int type = static_cast<int>(device);
    infiniStatus_t st = checkDevice(type, device_id, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    State &s = state();
    INFINIRT_GUARD_BEGIN
    std::lock_guard<std::mutex> lock(s.mutex);
    size_t g = 0;
    st = minimumGranularity(s, b, type, device_id, g);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if (size == 0 || size % g != 0) {
        return misaligned(fn, "size", size, g, type, device_id);
    }
    if (alignment != 0 && (alignment & (alignment - 1)) != 0) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: alignment %zu is not a power of two", fn, alignment);
    }
    const size_t align = alignment > g ? alignment : g;
    void *p = nullptr;
    st = INFINIRT_DEVICE_CALL(b, mem_address_reserve, device_id, &p, size, align);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    Reservation r;
    r.size = size;
    r.type = type;
    r.device = device_id;
    // The whole range is unmapped memory for every lookup until a mapping carves it.
    try {
        recordUnmapped(p, size, device_id);
        try {
            s.reservations[reinterpret_cast<uintptr_t>(p)] = std::move(r);
        } catch (...) {
            removeUnmapped(p, size);
            throw;
        }
    } catch (...) {
        b->table.mem_address_free(device_id, p, size); // cleanup: the exhaustion is what is reported
        throw;
    }
    *ptr = p;
    return INFINI_STATUS_SUCCESS;
    INFINIRT_GUARD_END(fn)
}

__export infiniStatus_t infinirtMemAddressFree(void *ptr, size_t size) {
    INFINIRT_ENTER();
    const char *fn = "infinirtMemAddressFree";
    if (ptr == nullptr) {
        return nullArgument(fn, "ptr");
    }
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.reservations.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == s.reservations.end()) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %p is not the start of a reservation (never reserved, or freed already)",
                    fn, ptr);
    }
    Reservation &r = it->second;
    if (size != r.size) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: the reservation at %p has %zu bytes, not %zu: free it whole", fn, ptr,
                    r.size, size);
    }
    if (!r.mappings.empty()) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: the reservation at %p still has %zu mapping(s); unmap them first", fn,
                    ptr, r.mappings.size());
    }
    Backend *b = g_registry.by_type[r.type];
    const infiniStatus_t st = INFINIRT_DEVICE_CALL(b, mem_address_free, r.device, ptr, size);
    if (st == INFINI_STATUS_SUCCESS) {
        s.reservations.erase(it);
        removeUnmapped(ptr, size); // erases only: never allocates
    }
    return st;
}

__export infiniStatus_t infinirtMemCreate(infinirtPhysicalMem_t *mem, infiniDevice_t device, int device_id, size_t size,
                                          uint32_t flags) {
    INFINIRT_ENTER();
    const char *fn = "infinirtMemCreate";
    if (mem == nullptr) {
        return nullArgument(fn, "mem");
    }
    Backend *b = nullptr;
    const int type = static_cast<int>(device);
    infiniStatus_t st = checkDevice(type, device_id, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if ((flags & ~kKnownCreateFlags) != 0) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: unknown flags %#x (known: INFINIRT_MEM_CREATE_SHAREABLE)", fn,
                    flags & ~kKnownCreateFlags);
    }
    State &s = state();
    INFINIRT_GUARD_BEGIN
    std::lock_guard<std::mutex> lock(s.mutex);
    size_t g = 0;
    st = minimumGranularity(s, b, type, device_id, g);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if (size == 0 || size % g != 0) {
        return misaligned(fn, "size", size, g, type, device_id);
    }
    auto *ph = new Physical();
    st = INFINIRT_DEVICE_CALL(b, mem_create, device_id, &ph->native, size, flags);
    if (st != INFINI_STATUS_SUCCESS) {
        delete ph;
        return st;
    }
    ph->size = size;
    ph->flags = flags;
    ph->type = type;
    ph->device = device_id;
    ph->handle = handles().create(HandleKind::PhysicalMem, type, device_id, ph->native, flags, ph);
    if (ph->handle == nullptr) {
        releasePhysical(ph);
        return fail(INFINI_STATUS_OUT_OF_MEMORY, "%s: no handle left for the physical allocation", fn);
    }
    *mem = ph->handle;
    return INFINI_STATUS_SUCCESS;
    INFINIRT_GUARD_END(fn)
}

__export infiniStatus_t infinirtMemRelease(infinirtPhysicalMem_t mem) {
    INFINIRT_ENTER();
    const char *fn = "infinirtMemRelease";
    if (mem == nullptr) {
        return nullArgument(fn, "mem");
    }
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    HandleSlot *slot = handles().lookup(mem, HandleKind::PhysicalMem);
    if (slot == nullptr || !handles().claim(mem, slot)) {
        return invalidHandle(fn, "physical memory", mem);
    }
    auto *ph = static_cast<Physical *>(slot->record);
    if (ph->maps > 0) { // the last unmap releases it
        ph->handle = nullptr;
        handles().release(mem);
        return INFINI_STATUS_SUCCESS;
    }
    Backend *b = g_registry.by_type[ph->type];
    const infiniStatus_t st = INFINIRT_DEVICE_CALL(b, mem_release, ph->device, ph->native);
    if (st != INFINI_STATUS_SUCCESS) {
        handles().restore(mem, slot);
        return st;
    }
    handles().release(mem);
    delete ph;
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtMemMap(void *ptr, size_t size, infinirtPhysicalMem_t mem, size_t offset) {
    INFINIRT_ENTER();
    const char *fn = "infinirtMemMap";
    if (ptr == nullptr) {
        return nullArgument(fn, "ptr");
    }
    if (mem == nullptr) {
        return nullArgument(fn, "mem");
    }
    State &s = state();
    INFINIRT_GUARD_BEGIN
    std::lock_guard<std::mutex> lock(s.mutex);
    HandleSlot *slot = handles().lookup(mem, HandleKind::PhysicalMem);
    if (slot == nullptr) {
        return invalidHandle(fn, "physical memory", mem);
    }
    auto *ph = static_cast<Physical *>(slot->record);
    Backend *b = g_registry.by_type[ph->type];
    size_t g = 0;
    infiniStatus_t st = minimumGranularity(s, b, ph->type, ph->device, g);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
    if (p % g != 0) {
        return misaligned(fn, "ptr", p, g, ph->type, ph->device);
    }
    if (size == 0 || size % g != 0) {
        return misaligned(fn, "size", size, g, ph->type, ph->device);
    }
    if (offset % g != 0) {
        return misaligned(fn, "offset", offset, g, ph->type, ph->device);
    }
    if (offset > ph->size || size > ph->size - offset) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: [%zu, %zu + %zu) runs past the end of the physical allocation (%zu bytes)",
                    fn, offset, offset, size, ph->size);
    }
    uintptr_t base = 0;
    Reservation *r = reservationOf(s, p, size, base);
    if (r == nullptr || r->type != ph->type || r->device != ph->device) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %p + %zu bytes is not inside a reservation of %s:%d, the physical allocation's device",
                    fn, ptr, size, typeName(ph->type), ph->device);
    }
    auto next = r->mappings.lower_bound(p);
    const bool overlaps_next = next != r->mappings.end() && next->first < p + size;
    const bool overlaps_prev = next != r->mappings.begin() && std::prev(next)->first + std::prev(next)->second.size > p;
    if (overlaps_next || overlaps_prev) {
        const auto &m = overlaps_next ? *next : *std::prev(next);
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %p + %zu bytes overlaps the mapping at %#zx (%zu bytes); unmap it first",
                    fn, ptr, size, static_cast<size_t>(m.first), m.second.size);
    }
    st = INFINIRT_DEVICE_CALL(b, mem_map, ph->device, ptr, size, ph->native, offset);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    r->mappings[p] = Mapping{size, ph, offset};
    ++ph->maps;
    recordMapped(ptr, size, ph->type, ph->device, base, base + r->size);
    return INFINI_STATUS_SUCCESS;
    INFINIRT_GUARD_END(fn)
}

__export infiniStatus_t infinirtMemUnmap(void *ptr, size_t size) {
    INFINIRT_ENTER();
    const char *fn = "infinirtMemUnmap";
    if (ptr == nullptr) {
        return nullArgument(fn, "ptr");
    }
    State &s = state();
    INFINIRT_GUARD_BEGIN
    std::lock_guard<std::mutex> lock(s.mutex);
    const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
    Reservation *r = nullptr;
    infiniStatus_t st = wholeMappingsIn(s, fn, ptr, size, r);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    Allocation users;
    st = mappedUsers(ptr, size, users) ? waitForOtherUsers(fn, users) : INFINI_STATUS_SUCCESS;
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    Backend *b = g_registry.by_type[r->type];
    auto it = r->mappings.find(p);
    while (it != r->mappings.end() && it->first < p + size) {
        void *at = reinterpret_cast<void *>(it->first);
        const size_t length = it->second.size;
        st = deviceWaitUnlessCapturing(fn,
                                       "unmapping waits for the device that owns the memory, which is refused during "
                                       "capture: unmap after the capture ends",
                                       r->type, r->device,
                                       [&] { return INFINIRT_DEVICE_CALL(b, mem_unmap, r->device, at, length); });
        if (st != INFINI_STATUS_SUCCESS) {
            return st; // the mappings before this one are gone, this one and the rest stay
        }
        removeMapped(at, length);
        Physical *ph = it->second.physical;
        it = r->mappings.erase(it);
        if (--ph->maps == 0 && ph->handle == nullptr) {
            st = releasePhysical(ph);
            if (st != INFINI_STATUS_SUCCESS) {
                return st;
            }
        }
    }
    return INFINI_STATUS_SUCCESS;
    INFINIRT_GUARD_END(fn)
}

__export infiniStatus_t infinirtMemSetAccess(void *ptr, size_t size, infiniDevice_t device, int device_id,
                                             uint32_t access) {
    INFINIRT_ENTER();
    const char *fn = "infinirtMemSetAccess";
    if (ptr == nullptr) {
        return nullArgument(fn, "ptr");
    }
    Backend *accessor = nullptr;
    infiniStatus_t st = checkDevice(static_cast<int>(device), device_id, accessor);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if (access != INFINIRT_MEM_ACCESS_NONE && access != INFINIRT_MEM_ACCESS_READ &&
        access != INFINIRT_MEM_ACCESS_READWRITE) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: access %#x is not one of INFINIRT_MEM_ACCESS_NONE, _READ, _READWRITE",
                    fn, access);
    }
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
    Reservation *r = nullptr;
    st = wholeMappingsIn(s, fn, ptr, size, r);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if (static_cast<int>(device) != r->type) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: the memory is %s:%d's; only devices of that backend can be given access",
                    fn, typeName(r->type), r->device);
    }
    Backend *b = g_registry.by_type[r->type];
    for (auto it = r->mappings.find(p); it != r->mappings.end() && it->first < p + size; ++it) {
        st = INFINIRT_DEVICE_CALL(b, mem_set_access, r->device, reinterpret_cast<void *>(it->first), it->second.size,
                                  device_id, access);
        if (st != INFINI_STATUS_SUCCESS) {
            return st; // the mappings before this one have the new access
        }
    }
    return INFINI_STATUS_SUCCESS;
}

} // extern "C"
