// C ABI: allocation, copies, fills, pointer attributes.
#include "allocations.h"
#include "capture.h"
#include "host_pins.h"
#include "peer.h"

#include <cstring>

using namespace infinirt;

namespace {

const char *kindName(infinirtMemoryKind_t k) {
    switch (k) {
    case INFINIRT_MEMORY_DEVICE: return "device memory";
    case INFINIRT_MEMORY_PINNED_HOST: return "pinned host memory";
    case INFINIRT_MEMORY_HOST: return "host memory";
    default: return "unknown memory";
    }
}

infiniStatus_t checkSize(const char *function, size_t size) {
    if (size == 0) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: size 0 is not a valid allocation size", function);
    }
    return INFINI_STATUS_SUCCESS;
}

// Records a fresh allocation; on failure to record, gives it back to the plugin.
infiniStatus_t track(const char *function, Backend *b, int type, int id, void *ptr, size_t size,
                     infinirtMemoryKind_t kind) {
    if (ptr == nullptr) {
        return fail(INFINI_STATUS_INTERNAL_ERROR, "%s: backend %s reported success but returned NULL", function,
                    b->name.c_str());
    }
    try {
        recordAllocation(Allocation{ptr, size, type, id, kind});
    } catch (...) {
        if (kind == INFINIRT_MEMORY_PINNED_HOST) {
            b->table.free_host(id, ptr);
        } else {
            b->table.free_device(id, ptr);
        }
        return fail(INFINI_STATUS_OUT_OF_MEMORY, "%s: host memory exhausted recording the allocation", function);
    }
    return INFINI_STATUS_SUCCESS;
}

// Removes `ptr` from the live allocations, explaining a refusal.
infiniStatus_t untrack(const char *function, void *ptr, infinirtMemoryKind_t kind, Allocation &a) {
    Allocation found;
    bool holds = false;
    if (takeAllocation(ptr, kind, Origin::Malloc, a, found, holds)) {
        return INFINI_STATUS_SUCCESS;
    }
    if (!holds) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %p was not allocated by infinirt or was already freed", function, ptr);
    }
    if (found.origin != Origin::Malloc) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %p is %s (%p, %zu bytes) on %s:%d; use %s", function, ptr,
                    originText(found.origin), found.base, found.size, typeName(found.type), found.device,
                    originRelease(found.origin));
    }
    if (found.base != ptr) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %p points inside the allocation at %p (%zu bytes); pass its start",
                    function, ptr, found.base, found.size);
    }
    return fail(INFINI_STATUS_BAD_PARAM, "%s: %p is %s on %s:%d; use %s", function, ptr, kindName(found.kind),
                typeName(found.type), found.device,
                found.kind == INFINIRT_MEMORY_PINNED_HOST ? "infinirtFreeHost" : "infinirtFree");
}

// `kind` is the caller's argument read with enumInt: it becomes an infinirtMemcpyKind_t only once
// it is known to be one.
infiniStatus_t checkCopy(const char *function, void *dst, const void *src, int kind) {
    if (kind < INFINIRT_MEMCPY_H2H || kind > INFINIRT_MEMCPY_DEFAULT) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: memcpy kind %d is not valid", function, kind);
    }
    if (dst == nullptr) {
        return nullArgument(function, "dst");
    }
    if (src == nullptr) {
        return nullArgument(function, "src");
    }
    return INFINI_STATUS_SUCCESS;
}

// One side of a copy or fill: the allocation it lies in (a record in the calling thread's lookup
// cache, valid until the thread's next lookup: allocations.h), or nullptr for memory infinirt did
// not allocate.
struct Side {
    const Allocation *a; // written by sideOf / sidesOf
    bool known() const { return a != nullptr; }
    // Device memory of infinirt's (read only where a copy's kind or route depends on it).
    bool device() const { return a != nullptr && a->kind == INFINIRT_MEMORY_DEVICE; }
    // `size` bytes from `p` (which lies in the known allocation) stay within it.
    bool holds(const void *p, size_t size) const {
        const size_t offset = static_cast<size_t>(static_cast<const char *>(p) - static_cast<const char *>(a->base));
        return size <= a->size - offset;
    }
};

INFINIRT_INLINE Side sideOf(const void *p) { return Side{lookupAllocation(p)}; }

// Both sides of a copy, in one lookup of the allocation record.
INFINIRT_INLINE void sidesOf(const void *dst, Side &d, const void *src, Side &s) {
    lookupAllocations(dst, d.a, src, s.a);
}

INFINIRT_COLD infiniStatus_t overrun(const char *function, const char *what, const void *p, size_t size,
                                     const Allocation &a) {
    if (a.origin == Origin::Unmapped) {
        return fail(INFINI_STATUS_BAD_PARAM,
                    "%s: %s %p lies in a reserved address range with nothing mapped there (never mapped, or unmapped "
                    "by infinirtMemUnmap): it is no memory",
                    function, what, p);
    }
    const size_t offset = static_cast<size_t>(static_cast<const char *>(p) - static_cast<const char *>(a.base));
    return fail(INFINI_STATUS_BAD_PARAM,
                "%s: %s range %p + %zu bytes overruns the %s at %p on %s:%d (%zu bytes; %zu left from %p)", function,
                what, p, size, kindName(a.kind), a.base, typeName(a.type), a.device, a.size, a.size - offset, p);
}

// A range in memory infinirt allocated must lie within the allocation it starts in, as the CUDA
// driver requires: checked before any plugin call, so no backend ever sees an overrunning copy
// or fill (a SIZE_MAX memset reached cuda's driver and poisoned the context). Memory infinirt
// did not allocate is the backend's to check.
inline infiniStatus_t checkRange(const char *function, const char *what, const Side &s, const void *p, size_t size) {
    if (!s.known() || INFINIRT_LIKELY(s.holds(p, size) && s.a->origin != Origin::Unmapped)) {
        return INFINI_STATUS_SUCCESS;
    }
    return overrun(function, what, p, size, *s.a);
}

// A stream of (type, device) is handed memory of `s`: if that is not the owning device, the
// allocation record notes it, so that Free waits for that device's queued work too.
inline void noteUse(const Side &s, int type, int device) {
    if (s.known() && INFINIRT_UNLIKELY((s.a->type != type || s.a->device != device) && !s.a->notedUser(type, device))) {
        noteForeignUser(s.a->base, type, device);
    }
}

// The NULL stream's fast paths: the backend of the calling thread's current device `current`
// (hot->current) once the thread has one (chosen, or the process default taken) and the loader is
// ready, read from g_ready_backends (empty until then, and in a forked child). nullptr otherwise:
// the general path resolves the stream (resolveStream: init, the process default).
INFINIRT_INLINE Backend *currentReadyBackend(const CurrentDevice &current) {
    if (INFINIRT_UNLIKELY(static_cast<unsigned>(current.type) >= static_cast<unsigned>(kTypeCount))) {
        return nullptr;
    }
    return g_ready_backends[current.type].load(std::memory_order_acquire);
}

// A NULL-stream fast path's plugin call `call` failed with `st`: reported as checked() reports it,
// on the calling thread's current device (which no plugin call changes), so that the fast paths
// keep nothing across the plugin call.
INFINIRT_COLD infiniStatus_t currentDeviceCallFailed(const char *call, infiniStatus_t st) {
    const CurrentDevice &c = t_hot.current;
    return pluginFailed(g_registry.by_type[c.type]->name.c_str(), c.id, call, st);
}

} // namespace

infiniStatus_t infinirt::waitForOtherUsers(const char *function, const Allocation &a) {
    for (int t = 0; t < kTypeCount; ++t) {
        Backend *b = g_registry.by_type[t];
        if (b == nullptr || (a.foreign_users[t] == 0 && !a.foreign_all[t])) {
            continue;
        }
        for (int id = 0; id < b->device_count; ++id) {
            if (a.notedUser(t, id) || (a.foreign_all[t] && id >= 32)) {
                const infiniStatus_t st = deviceSynchronizeUnlessCapturing(function, b, t, id);
                if (st != INFINI_STATUS_SUCCESS) {
                    return st;
                }
            }
        }
    }
    return INFINI_STATUS_SUCCESS;
}

namespace {

// DEFAULT -> a concrete kind when infinirt knows both pointers; stays DEFAULT for the plugin to
// resolve when one of them is memory infinirt did not allocate.
infinirtMemcpyKind_t inferKind(const Side &d, const Side &s) {
    if (!d.known() || !s.known()) {
        return INFINIRT_MEMCPY_DEFAULT;
    }
    if (d.device()) {
        return s.device() ? INFINIRT_MEMCPY_D2D : INFINIRT_MEMCPY_H2D;
    }
    return s.device() ? INFINIRT_MEMCPY_D2H : INFINIRT_MEMCPY_H2H;
}

// inferKind from the two sides' cache entries (cachedSide).
INFINIRT_INLINE infinirtMemcpyKind_t kindOfSides(int d, int s) {
    static constexpr infinirtMemcpyKind_t kKinds[3][3] = {
        {INFINIRT_MEMCPY_DEFAULT, INFINIRT_MEMCPY_DEFAULT, INFINIRT_MEMCPY_DEFAULT}, // dst not infinirt's
        {INFINIRT_MEMCPY_DEFAULT, INFINIRT_MEMCPY_H2H, INFINIRT_MEMCPY_D2H},         // dst host memory
        {INFINIRT_MEMCPY_DEFAULT, INFINIRT_MEMCPY_H2D, INFINIRT_MEMCPY_D2D}};        // dst device memory
    static_assert(detail::kGapSide == 0 && detail::kHostSide == 1 && detail::kDeviceSide == 2, "the table's order");
    return kKinds[d][s];
}

// Both pointers are memory infinirt allocated, of two different devices.
bool onTwoDevices(const Side &d, const Side &s) {
    return d.known() && s.known() && (d.a->type != s.a->type || d.a->device != s.a->device);
}

PeerEnd endOf(const Allocation &a) {
    PeerEnd e;
    e.backend = g_registry.by_type[a.type];
    e.type = a.type;
    e.id = a.device;
    return e;
}

// A MemcpyAsync between two devices' memory: the peer path on the stream, which must belong to
// one of them.
INFINIRT_COLD infiniStatus_t peerAsync(void *dst, const Allocation &da, const void *src, const Allocation &sa,
                                       size_t size, StreamRef r) {
    const PeerEnd d = endOf(da);
    const PeerEnd s = endOf(sa);
    if (!((r.type == d.type && r.device == d.id) || (r.type == s.type && r.device == s.id))) {
        return fail(INFINI_STATUS_BAD_PARAM,
                    "infinirtMemcpyAsync: copying from %s:%d memory to %s:%d memory on a stream of %s:%d; use a stream "
                    "of one of the two devices",
                    typeName(s.type), s.id, typeName(d.type), d.id, typeName(r.type), r.device);
    }
    return peerCopyAsync(dst, d, src, s, size, r);
}

// Malloc and MallocHost: on the current device, recorded in the allocation table.
infiniStatus_t allocate(const char *function, infinirtMemoryKind_t kind, void **p_ptr, size_t size) {
    INFINIRT_ENTER();
    if (p_ptr == nullptr) {
        return nullArgument(function, "p_ptr");
    }
    infiniStatus_t st = checkSize(function, size);
    Backend *b = nullptr;
    int type = 0;
    int id = 0;
    if (st == INFINI_STATUS_SUCCESS) {
        st = currentDevice(b, type, id);
    }
    if (st == INFINI_STATUS_SUCCESS) {
        st = reserveStaging(function, b, type, id); // before the allocation that might fill the device
    }
    void *ptr = nullptr;
    if (st == INFINI_STATUS_SUCCESS) {
        st = kind == INFINIRT_MEMORY_DEVICE ? INFINIRT_DEVICE_CALL(b, malloc_device, id, &ptr, size)
                                            : INFINIRT_DEVICE_CALL(b, malloc_host, id, &ptr, size);
    }
    if (st == INFINI_STATUS_SUCCESS) {
        st = track(function, b, type, id, ptr, size, kind);
    }
    if (st == INFINI_STATUS_SUCCESS) {
        *p_ptr = ptr;
    }
    return st;
}

// Free and FreeHost: whatever device is current, by the owner recorded at allocation.
infiniStatus_t release(const char *function, infinirtMemoryKind_t kind, void *ptr) {
    INFINIRT_ENTER();
    if (ptr == nullptr) {
        return INFINI_STATUS_SUCCESS;
    }
    Allocation a;
    infiniStatus_t st = untrack(function, ptr, kind, a);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    INFINIRT_GUARD_BEGIN // putting the record back after a failure may itself run out of memory
    if (INFINIRT_UNLIKELY(a.usedByOtherDevices())) {
        st = waitForOtherUsers(function, a);
        if (st != INFINI_STATUS_SUCCESS) {
            recordAllocation(a);
            return st;
        }
    }
    // The free waits for the owning device's queued work (as cudaFree does; cuda's own free of
    // pinned memory is not a stream-ordered call either): refused while a stream of it captures.
    // Host-device memory that host-direct copies registered with other backends is unregistered
    // first (host_pins.h).
    Backend *b = g_registry.by_type[a.type];
    st = deviceWaitUnlessCapturing(function,
                                   "freeing memory waits for the device that owns it, which is refused during "
                                   "capture (as CUDA does in global capture mode): free it after the capture ends",
                                   a.type, a.device, [&] {
                                       if (kind == INFINIRT_MEMORY_PINNED_HOST) {
                                           return INFINIRT_DEVICE_CALL(b, free_host, a.device, ptr);
                                       }
                                       const infiniStatus_t unpinned =
                                           deviceMemoryIsHost(b, a.device) ? unpinHostMemory(ptr) : INFINI_STATUS_SUCCESS;
                                       return unpinned == INFINI_STATUS_SUCCESS
                                                  ? INFINIRT_DEVICE_CALL(b, free_device, a.device, ptr)
                                                  : unpinned;
                                   });
    if (st != INFINI_STATUS_SUCCESS) {
        recordAllocation(a);
    }
    return st;
    INFINIRT_GUARD_END(function)
}

} // namespace

extern "C" {

__export infiniStatus_t infinirtMalloc(void **p_ptr, size_t size) {
    return allocate("infinirtMalloc", INFINIRT_MEMORY_DEVICE, p_ptr, size);
}

__export infiniStatus_t infinirtMallocHost(void **p_ptr, size_t size) {
    return allocate("infinirtMallocHost", INFINIRT_MEMORY_PINNED_HOST, p_ptr, size);
}

__export infiniStatus_t infinirtFree(void *ptr) { return release("infinirtFree", INFINIRT_MEMORY_DEVICE, ptr); }

__export infiniStatus_t infinirtFreeHost(void *ptr) {
    return release("infinirtFreeHost", INFINIRT_MEMORY_PINNED_HOST, ptr);
}

__export infiniStatus_t infinirtMemcpy(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind) {
    INFINIRT_ENTER();
    infiniStatus_t st = checkCopy("infinirtMemcpy", dst, src, enumInt(kind));
    if (st != INFINI_STATUS_SUCCESS || size == 0) {
        return st;
    }
    // Synchronous copies go to the device that owns the device-side memory (so a copy works
    // whatever device is current), else to the current device.
    Side d;
    Side s;
    sidesOf(dst, d, src, s);
    st = checkRange("infinirtMemcpy", "dst", d, dst, size);
    if (st == INFINI_STATUS_SUCCESS) {
        st = checkRange("infinirtMemcpy", "src", s, src, size);
    }
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if (kind == INFINIRT_MEMCPY_DEFAULT) {
        kind = inferKind(d, s);
    }
    if (d.device() && s.device() && onTwoDevices(d, s)) {
        // Device memory of two devices: the peer path, ordered after both default streams.
        return peerCopySync(dst, endOf(*d.a), src, endOf(*s.a), size);
    }
    Backend *b = nullptr;
    int type = 0;
    int id = 0;
    const Allocation *owner = s.device() ? s.a : d.device() ? d.a : nullptr;
    if (owner != nullptr) {
        b = g_registry.by_type[owner->type];
        type = owner->type;
        id = owner->device;
    } else {
        st = currentDevice(b, type, id);
        if (st != INFINI_STATUS_SUCCESS) {
            return st;
        }
    }
    // Memory infinirt allocated for another device (host memory here): that device's default
    // stream may still use it, so the copy is ordered after it too.
    for (const Side *other : {&d, &s}) {
        if (other->known() && (other->a->type != type || other->a->device != id)) {
            Backend *ob = g_registry.by_type[other->a->type];
            st = INFINIRT_DEVICE_CALL(ob, stream_synchronize, other->a->device, nullptr);
            if (st != INFINI_STATUS_SUCCESS) {
                return st;
            }
        }
    }
    return INFINIRT_DEVICE_CALL(b, memcpy_sync, id, dst, src, size, kind);
}

} // extern "C"

namespace {
// MemcpyAsync on any stream and pointers (infinirtMemcpyAsync's fast path takes the common case).
// `kind_value` is the caller's kind read with enumInt: it becomes an infinirtMemcpyKind_t only
// once checkCopy knows it is one.
__attribute__((noinline)) infiniStatus_t memcpyAsyncGeneral(void *dst, const void *src, size_t size, int kind_value,
                                                           infinirtStream_t stream) {
    StreamRef r;
    infiniStatus_t st = resolveStream("infinirtMemcpyAsync", stream, r);
    if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
        return st;
    }
    st = checkCopy("infinirtMemcpyAsync", dst, src, kind_value);
    if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS) || size == 0) {
        return st;
    }
    infinirtMemcpyKind_t kind = static_cast<infinirtMemcpyKind_t>(kind_value);
    // Both pointers looked up (once): ranges are checked, a use by another device is
    // noted for Free, DEFAULT is resolved, and D2D between two devices takes the peer path.
    Side d;
    Side s;
    sidesOf(dst, d, src, s);
    st = checkRange("infinirtMemcpyAsync", "dst", d, dst, size);
    if (INFINIRT_LIKELY(st == INFINI_STATUS_SUCCESS)) {
        st = checkRange("infinirtMemcpyAsync", "src", s, src, size);
    }
    if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
        return st;
    }
    noteUse(d, r.type, r.device);
    noteUse(s, r.type, r.device);
    if (kind == INFINIRT_MEMCPY_DEFAULT) {
        kind = inferKind(d, s);
    }
    if (kind == INFINIRT_MEMCPY_D2D && d.device() && s.device() && onTwoDevices(d, s) && captureOf(r) == nullptr) {
        return peerAsync(dst, *d.a, src, *s.a, size, r);
    }
    if (INFINIRT_UNLIKELY(captureOf(r) != nullptr)) {
        ActiveCapture capture(r.slot);
        if (capture.graph() != nullptr) {
            CapturedOp op(CapturedOp::Kind::Memcpy);
            op.dst = dst;
            op.src = src;
            op.size = size;
            op.memcpy_kind = kind;
            return captureAppend(capture.graph(), op);
        }
    }
    return INFINIRT_SUBMIT_CALL(r, r.backend, memcpy_async, r.device, dst, src, size, kind, r.native);
}

// The explicit stream's copy fast path: a live stream that is not capturing, and each side memory
// infinirt did not allocate or a range within an allocation of the stream's device, answered by
// the thread's cache alone; the kind is `kind`, or with kInfer the one the two sides' cache
// entries give (kindOfSides, no record read). False when it submitted nothing (the caller takes
// its next path), else true with the submission's status in `st`. The barrier between the two
// sides' tests keeps the first side's entry out of registers (fewer registers saved).
template <bool kInfer>
INFINIRT_INLINE bool copyOnStream(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind,
                                  infinirtStream_t stream, infiniStatus_t &st) {
    HandleSlot *const slot = handles().lookup(stream, HandleKind::Stream);
    if (INFINIRT_UNLIKELY(slot == nullptr || size == 0)) {
        return false;
    }
    ThreadHot *const hot = threadHot();
    const detail::LookupCache &cache = hot->lookups;
    const uint64_t owner = detail::ownerBits(slot->type, slot->device);
    if (INFINIRT_UNLIKELY(!detail::cacheIsCurrent(cache))) {
        return false;
    }
    const int d = detail::cachedSide(cache, dst, size, owner);
    if (INFINIRT_UNLIKELY(d < 0)) {
        return false;
    }
    __asm__("" ::: "memory");
    infinirtPluginMemcpyAsyncFn *const copy = slot->backend->table.memcpy_async;
    const int s = detail::cachedSide(cache, src, size, owner);
    if (INFINIRT_UNLIKELY(s < 0 || copy == nullptr || !markSubmitting(hot, slot))) {
        return false;
    }
    st = submittedStatus(hot, "memcpy_async",
                         copy(slot->device, dst, src, size, kInfer ? kindOfSides(d, s) : kind, slot->native));
    return true;
}

// A copy of kind DEFAULT on a stream: copyOnStream with the kind inferred; anything else takes
// memcpyAsyncGeneral.
__attribute__((noinline)) infiniStatus_t memcpyAsyncInferred(void *dst, const void *src, size_t size,
                                                             infinirtStream_t stream) {
    infiniStatus_t st;
    if (INFINIRT_LIKELY(copyOnStream<true>(dst, src, size, INFINIRT_MEMCPY_DEFAULT, stream, st))) {
        return st;
    }
    return memcpyAsyncGeneral(dst, src, size, INFINIRT_MEMCPY_DEFAULT, stream);
}

// The calls infinirtMemcpyAsync's fast path leaves (one out-of-line callee with the entry's
// arguments, so the explicit stream's path is the same code whatever happens here): a copy of
// kind DEFAULT on a stream goes to memcpyAsyncInferred; the NULL stream has its own fast path,
// taken when the thread's current device is ready (currentReadyBackend), the kind is valid, both
// pointers are given, and each side is memory infinirt did not allocate or a range within an
// allocation of the current device. The default stream never captures (submitTo's path for no
// slot): the plugin call is made directly. Everything else takes memcpyAsyncGeneral.
__attribute__((noinline)) infiniStatus_t memcpyAsyncOffFastPath(void *dst, const void *src, size_t size, int kind_value,
                                                                infinirtStream_t stream) {
    if (stream != nullptr) {
        if (kind_value == INFINIRT_MEMCPY_DEFAULT) {
            return memcpyAsyncInferred(dst, src, size, stream);
        }
    } else {
        ThreadHot *const hot = threadHot();
        const CurrentDevice &current = hot->current;
        Backend *const b = currentReadyBackend(current);
        if (INFINIRT_LIKELY(b != nullptr && size != 0 &&
                            static_cast<unsigned>(kind_value) <= static_cast<unsigned>(INFINIRT_MEMCPY_DEFAULT))) {
            const detail::LookupCache &cache = hot->lookups;
            const uint64_t owner = detail::ownerBits(current.type, current.id);
            const int d = detail::cacheIsCurrent(cache) ? detail::cachedSide(cache, dst, size, owner) : -1;
            if (INFINIRT_LIKELY(d >= 0)) {
                __asm__("" ::: "memory");
                const int s = detail::cachedSide(cache, src, size, owner);
                auto *const call = b->table.memcpy_async; // else the general path's NOT_IMPLEMENTED
                if (INFINIRT_LIKELY(s >= 0 && call != nullptr)) {
                    const infinirtMemcpyKind_t kind = static_cast<infinirtMemcpyKind_t>(kind_value);
                    const infinirtMemcpyKind_t k = kind == INFINIRT_MEMCPY_DEFAULT ? kindOfSides(d, s) : kind;
                    hot->flags &= kNoPluginDetailPending; // beginPluginCall
                    const infiniStatus_t st = call(current.id, dst, src, size, k, nullptr);
                    return INFINIRT_LIKELY(st == INFINI_STATUS_SUCCESS) ? successAsIs(st)
                                                                        : currentDeviceCallFailed("memcpy_async", st);
                }
            }
        }
    }
    return memcpyAsyncGeneral(dst, src, size, kind_value, stream);
}
} // namespace

extern "C" {

__export infiniStatus_t infinirtMemcpyAsync(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind,
                                            infinirtStream_t stream) {
    // No INFINIRT_ENTER: the handles' paths check (dispatch.h). The fast path: a live stream that is
    // not capturing, a valid kind other than DEFAULT, both pointers given, and each side memory
    // infinirt did not allocate or a range within an allocation of the stream's device; everything
    // else (DEFAULT, the NULL stream, checks, notes, refusals, the peer path) takes
    // memcpyAsyncOffFastPath (copyOnStream).
    if (INFINIRT_UNLIKELY(static_cast<unsigned>(enumInt(kind)) >= static_cast<unsigned>(INFINIRT_MEMCPY_DEFAULT))) {
        return memcpyAsyncOffFastPath(dst, src, size, enumInt(kind), stream); // first: DEFAULT needs no lookup here
    }
    infiniStatus_t st;
    if (INFINIRT_LIKELY(copyOnStream<false>(dst, src, size, kind, stream, st))) {
        return st;
    }
    return memcpyAsyncOffFastPath(dst, src, size, enumInt(kind), stream);
}

__export infiniStatus_t infinirtMemset(void *ptr, int value, size_t count) {
    INFINIRT_ENTER();
    if (ptr == nullptr) {
        return nullArgument("infinirtMemset", "ptr");
    }
    if (count == 0) {
        return INFINI_STATUS_SUCCESS;
    }
    Backend *b = nullptr;
    int type = 0;
    int id = 0;
    const Side s = sideOf(ptr);
    const infiniStatus_t range = checkRange("infinirtMemset", "ptr", s, ptr, count);
    if (range != INFINI_STATUS_SUCCESS) {
        return range;
    }
    if (s.known()) {
        b = g_registry.by_type[s.a->type];
        id = s.a->device;
    } else {
        infiniStatus_t st = currentDevice(b, type, id);
        if (st != INFINI_STATUS_SUCCESS) {
            return st;
        }
    }
    return INFINIRT_DEVICE_CALL(b, memset_sync, id, ptr, value, count);
}

} // extern "C"

namespace {
// MemsetAsync on any stream and pointer (infinirtMemsetAsync's fast path takes the common case).
__attribute__((noinline)) infiniStatus_t memsetAsyncGeneral(void *ptr, int value, size_t count, infinirtStream_t stream) {
    StreamRef r;
    infiniStatus_t st = resolveStream("infinirtMemsetAsync", stream, r);
    if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
        return st;
    }
    if (INFINIRT_UNLIKELY(ptr == nullptr)) {
        return nullArgument("infinirtMemsetAsync", "ptr");
    }
    if (count == 0) {
        return st;
    }
    const Side s = sideOf(ptr);
    st = checkRange("infinirtMemsetAsync", "ptr", s, ptr, count);
    if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
        return st;
    }
    noteUse(s, r.type, r.device);
    if (INFINIRT_UNLIKELY(captureOf(r) != nullptr)) {
        ActiveCapture capture(r.slot);
        if (capture.graph() != nullptr) {
            CapturedOp op(CapturedOp::Kind::Memset);
            op.dst = ptr;
            op.size = count;
            op.value = value;
            return captureAppend(capture.graph(), op);
        }
    }
    return INFINIRT_SUBMIT_CALL(r, r.backend, memset_async, r.device, ptr, value, count, r.native);
}

// The calls infinirtMemsetAsync's fast path leaves, as memcpyAsyncOffFastPath's: on the NULL
// stream, its own fast path, taken when the thread's current device is ready and the memory is
// memory infinirt did not allocate or a range within an allocation of the current device;
// everything else takes memsetAsyncGeneral.
__attribute__((noinline)) infiniStatus_t memsetAsyncOffFastPath(void *ptr, int value, size_t count,
                                                                infinirtStream_t stream) {
    if (stream == nullptr) {
        ThreadHot *const hot = threadHot();
        const CurrentDevice &current = hot->current;
        Backend *const b = currentReadyBackend(current);
        if (INFINIRT_LIKELY(b != nullptr && count != 0)) {
            const detail::LookupCache &cache = hot->lookups;
            if (INFINIRT_LIKELY(detail::cacheIsCurrent(cache) &&
                                detail::cachedSide(cache, ptr, count, detail::ownerBits(current.type, current.id)) >= 0)) {
                if (auto *const call = b->table.memset_async) { // else the general path's NOT_IMPLEMENTED
                    hot->flags &= kNoPluginDetailPending;         // beginPluginCall
                    const infiniStatus_t st = call(current.id, ptr, value, count, nullptr);
                    return INFINIRT_LIKELY(st == INFINI_STATUS_SUCCESS) ? successAsIs(st)
                                                                        : currentDeviceCallFailed("memset_async", st);
                }
            }
        }
    }
    return memsetAsyncGeneral(ptr, value, count, stream);
}
} // namespace

extern "C" {

__export infiniStatus_t infinirtMemsetAsync(void *ptr, int value, size_t count, infinirtStream_t stream) {
    // No INFINIRT_ENTER: the handle's path checks (dispatch.h). The fast path: a live stream that is
    // not capturing, and memory infinirt did not allocate or a range within an allocation of the
    // stream's device; everything else (the NULL stream among it) takes memsetAsyncOffFastPath.
    HandleSlot *const slot = handles().lookup(stream, HandleKind::Stream);
    if (INFINIRT_LIKELY(slot != nullptr && count != 0)) {
        ThreadHot *const hot = threadHot();
        const detail::LookupCache &cache = hot->lookups;
        if (INFINIRT_LIKELY(detail::cacheIsCurrent(cache) &&
                            detail::cachedSide(cache, ptr, count, detail::ownerBits(slot->type, slot->device)) >= 0)) {
            infinirtPluginMemsetAsyncFn *const fill = slot->backend->table.memset_async;
            if (INFINIRT_LIKELY(fill != nullptr && markSubmitting(hot, slot))) {
                return submittedStatus(hot, "memset_async", fill(slot->device, ptr, value, count, slot->native));
            }
        }
    }
    return memsetAsyncOffFastPath(ptr, value, count, stream);
}

__export infiniStatus_t infinirtMallocAsync(void **p_ptr, size_t size, infinirtStream_t stream) {
    INFINIRT_ENTER();
    if (p_ptr == nullptr) {
        return nullArgument("infinirtMallocAsync", "p_ptr");
    }
    StreamRef r{};
    infiniStatus_t st = resolveStream("infinirtMallocAsync", stream, r);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    st = checkSize("infinirtMallocAsync", size);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    void *ptr = nullptr;
    // Without a stream-ordered allocator in the plugin, memory available now is available in
    // stream order too.
    st = submitUncaptured(r, "infinirtMallocAsync", "a stream-ordered allocation", [&] {
        const infiniStatus_t reserved = reserveStaging("infinirtMallocAsync", r.backend, r.type, r.device);
        if (reserved != INFINI_STATUS_SUCCESS) {
            return reserved;
        }
        return r.backend->table.malloc_async != nullptr
                   ? INFINIRT_DEVICE_CALL(r.backend, malloc_async, r.device, &ptr, size, r.native)
                   : INFINIRT_DEVICE_CALL(r.backend, malloc_device, r.device, &ptr, size);
    });
    if (st == INFINI_STATUS_SUCCESS) {
        st = track("infinirtMallocAsync", r.backend, r.type, r.device, ptr, size, INFINIRT_MEMORY_DEVICE);
    }
    if (st == INFINI_STATUS_SUCCESS) {
        *p_ptr = ptr;
    }
    return st;
}

__export infiniStatus_t infinirtFreeAsync(void *ptr, infinirtStream_t stream) {
    INFINIRT_ENTER();
    // The stream is checked first, whatever the pointer (a NULL pointer frees nothing).
    StreamRef r{};
    infiniStatus_t st = resolveStream("infinirtFreeAsync", stream, r);
    if (st != INFINI_STATUS_SUCCESS || ptr == nullptr) {
        return st;
    }
    if (INFINIRT_UNLIKELY(captureOf(r) != nullptr)) {
        return refuseDuringCapture("infinirtFreeAsync", "a stream-ordered free");
    }
    Allocation a;
    st = untrack("infinirtFreeAsync", ptr, INFINIRT_MEMORY_DEVICE, a);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if (a.type != r.type || a.device != r.device) {
        recordAllocation(a);
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtFreeAsync: %p belongs to %s:%d but the stream to %s:%d", ptr,
                    typeName(a.type), a.device, typeName(r.type), r.device);
    }
    if (INFINIRT_UNLIKELY(a.usedByOtherDevices())) {
        st = waitForOtherUsers("infinirtFreeAsync", a); // their streams are not ordered with this one
        if (st != INFINI_STATUS_SUCCESS) {
            recordAllocation(a);
            return st;
        }
    }
    if (deviceMemoryIsHost(r.backend, r.device)) {
        st = unpinHostMemory(ptr); // host-direct copies' registrations (host_pins.h)
        if (st != INFINI_STATUS_SUCCESS) {
            recordAllocation(a);
            return st;
        }
    }
    st = submitUncaptured(r, "infinirtFreeAsync", "a stream-ordered free", [&] {
        if (r.backend->table.free_async != nullptr) {
            return INFINIRT_DEVICE_CALL(r.backend, free_async, r.device, ptr, r.native);
        }
        // Stream order without the plugin's help: the stream's earlier work finishes first.
        infiniStatus_t synced = INFINIRT_DEVICE_CALL(r.backend, stream_synchronize, r.device, r.native);
        return synced == INFINI_STATUS_SUCCESS ? INFINIRT_DEVICE_CALL(r.backend, free_device, a.device, ptr) : synced;
    });
    if (st != INFINI_STATUS_SUCCESS) {
        recordAllocation(a);
    }
    return st;
}

__export infiniStatus_t infinirtPointerGetAttributes(infinirtPointerAttributes_t *attributes, const void *ptr) {
    INFINIRT_ENTER();
    if (attributes == nullptr) {
        return nullArgument("infinirtPointerGetAttributes", "attributes");
    }
    const infiniStatus_t size_status = checkStructSize("infinirtPointerGetAttributes", attributes);
    if (size_status != INFINI_STATUS_SUCCESS) {
        return size_status;
    }
    infinirtPointerAttributes_t out{};
    out.struct_size = sizeof out;
    out.kind = INFINIRT_MEMORY_UNKNOWN;
    out.device_type = INFINI_DEVICE_CPU;
    Allocation a;
    const bool known = ptr != nullptr && findAllocation(ptr, a);
    if (known && a.origin == Origin::Unmapped) {
        // No memory: reported as unknown, and no plugin is asked (its range is no device's now).
    } else if (known) {
        out.device_type = static_cast<infiniDevice_t>(a.type);
        out.device_id = a.device;
        out.kind = a.kind;
        out.base = a.base;
        out.size = a.size;
    } else if (ptr != nullptr) {
        for (int t = 0; t < kTypeCount; ++t) {
            Backend *b = g_registry.by_type[t];
            if (b == nullptr || b->table.pointer_get_attributes == nullptr || b->device_count == 0) {
                continue;
            }
            // A probe, not a reported call: "not mine" is no failure of this call, and whatever
            // detail the plugin gave with it is never read (see beginPluginCall).
            infinirtPointerAttributes_t probe = out;
            if (b->table.pointer_get_attributes(ptr, &probe) == INFINI_STATUS_SUCCESS) {
                out = probe;
                out.struct_size = sizeof out;
                break;
            }
        }
    }
    copyOut(attributes, out);
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtGetLiveAllocations(size_t *count, size_t *bytes) {
    INFINIRT_ENTER();
    if (count == nullptr && bytes == nullptr) {
        return fail(INFINI_STATUS_NULL_POINTER, "infinirtGetLiveAllocations: count and bytes are both NULL");
    }
    size_t n = 0;
    size_t total = 0;
    liveAllocationTotals(n, total);
    if (count != nullptr) {
        *count = n;
    }
    if (bytes != nullptr) {
        *bytes = total;
    }
    return INFINI_STATUS_SUCCESS;
}

} // extern "C"
