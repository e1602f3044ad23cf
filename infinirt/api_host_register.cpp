// C ABI: host registration. The loader records a registered range as infinirt memory of kind HOST
// (origin Registered: only infinirtHostUnregister gives it back), so copies, attributes and the
// overlap checks know it; the plugin pins it.
#include "allocations.h"
#include "capture.h"
#include "dispatch.h"

using namespace infinirt;

extern "C" {

__export infiniStatus_t infinirtHostRegister(infiniDevice_t device, int device_id, void *ptr, size_t size,
                                             uint32_t flags) {
    INFINIRT_ENTER();
    const char *fn = "infinirtHostRegister";
    if (ptr == nullptr) {
        return nullArgument(fn, "ptr");
    }
    Backend *b = nullptr;
    infiniStatus_t st = checkDevice(static_cast<int>(device), device_id, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if (size == 0) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: size 0 registers nothing", fn);
    }
    if ((flags & ~INFINIRT_HOST_REGISTER_READ_ONLY) != 0) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: unknown flags %#x (known: INFINIRT_HOST_REGISTER_READ_ONLY)", fn,
                    flags & ~INFINIRT_HOST_REGISTER_READ_ONLY);
    }
    if (reinterpret_cast<uintptr_t>(ptr) > UINTPTR_MAX - size) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %p + %zu bytes wraps around the address space", fn, ptr, size);
    }
    // Recorded first (the overlap check and the record in one step), given back if the plugin fails.
    const Allocation a{ptr, size, static_cast<int>(device), device_id, INFINIRT_MEMORY_HOST, Origin::Registered};
    Allocation found;
    INFINIRT_GUARD_BEGIN
    if (!recordIfFree(a, found)) {
        return fail(INFINI_STATUS_BAD_PARAM,
                    "%s: %p + %zu bytes overlaps %s at %p (%zu bytes) on %s:%d", fn, ptr, size,
                    originText(found.origin),
                    found.base, found.size, typeName(found.type), found.device);
    }
    INFINIRT_GUARD_END(fn)
    st = INFINIRT_DEVICE_CALL(b, host_register, device_id, ptr, size, flags);
    if (st != INFINI_STATUS_SUCCESS) {
        Allocation taken;
        bool holds = false;
        takeAllocation(ptr, INFINIRT_MEMORY_HOST, Origin::Registered, taken, found, holds);
    }
    return st;
}

__export infiniStatus_t infinirtHostUnregister(void *ptr) {
    INFINIRT_ENTER();
    const char *fn = "infinirtHostUnregister";
    if (ptr == nullptr) {
        return nullArgument(fn, "ptr");
    }
    Allocation a;
    Allocation found;
    bool holds = false;
    if (!takeAllocation(ptr, INFINIRT_MEMORY_HOST, Origin::Registered, a, found, holds)) {
        if (!holds) {
            return fail(INFINI_STATUS_BAD_PARAM, "%s: %p is not registered (never, or unregistered already)", fn, ptr);
        }
        if (found.origin == Origin::Registered) {
            return fail(INFINI_STATUS_BAD_PARAM, "%s: %p points inside the registration at %p (%zu bytes); pass its start",
                        fn, ptr, found.base, found.size);
        }
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %p is %s on %s:%d, not a registration", fn, ptr,
                    originText(found.origin), typeName(found.type), found.device);
    }
    Backend *b = g_registry.by_type[a.type];
    // Copies queued from it may still run: the other devices' and the owner's work finishes first.
    infiniStatus_t st = waitForOtherUsers(fn, a);
    if (st == INFINI_STATUS_SUCCESS) {
        st = deviceSynchronizeUnlessCapturing(fn, b, a.type, a.device);
    }
    if (st == INFINI_STATUS_SUCCESS) {
        st = INFINIRT_DEVICE_CALL(b, host_unregister, a.device, ptr);
    }
    if (st != INFINI_STATUS_SUCCESS) {
        recordAllocation(a);
    }
    return st;
}

} // extern "C"
