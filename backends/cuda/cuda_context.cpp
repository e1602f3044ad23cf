/*
 * cuda_context.cpp - primary contexts and how a call makes one current.
 *
 * Each device's primary context (the one the CUDA runtime uses) is retained on first use and
 * kept for the life of the process: the plugin interface has no teardown entry, and driver
 * objects must not be released from static destructors (see infinirt_plugin.h).
 *
 * bind() for device d, given the thread's current context `cur`:
 *  - cur is d's primary context: nothing to do (the fast path: one cuCtxGetCurrent, a read of
 *    the driver's thread-local state, no lock);
 *  - anything else (no context, a context the caller created or pushed, another device's
 *    primary context): d's primary context is pushed for the call and popped after it.
 * So after any call but setDevice the thread's context stack is exactly what it was, as the
 * plugin interface requires; setDevice is how a thread gets the fast path, as cudaSetDevice is.
 * The driver's current context is read on every bound call rather than cached by us, because a
 * cache cannot see a cuCtxPushCurrent the caller made between two infinirt calls. Calls on an
 * explicit stream or event are not bound at all: the driver takes the context from the handle.
 */
#include "cuda_backend.h"

#include <atomic>
#include <cstdint>
#include <mutex>

namespace infinirt::cuda {

namespace {

struct DeviceContext {
    std::atomic<CUcontext> primary{nullptr};
    CUmemoryPool pool = nullptr; /* written before `primary` is published */
};

/* Allocated once by prepareContexts and deliberately never freed (see above). */
DeviceContext *g_contexts = nullptr;
std::mutex g_retain_mutex;

infiniStatus_t retain(int device, CUcontext *out) {
    std::lock_guard<std::mutex> lock(g_retain_mutex);
    DeviceContext &slot = g_contexts[device];
    CUcontext ctx = slot.primary.load(std::memory_order_relaxed);
    if (!ctx) {
        CUdevice dev = nativeDevice(device);
        if (CUresult rc = nativeApi().cuDevicePrimaryCtxRetain(&ctx, dev)) {
            return gpu::nativeFailure("cuDevicePrimaryCtxRetain", rc, "retaining the primary context of cuda:%d",
                                      device);
        }
        /* Memory freed with FreeAsync stays cached in the pool instead of going back to the
         * driver at every synchronisation, as a caching allocator would keep it. */
        CUmemoryPool pool = nullptr;
        if (CUresult rc = nativeApi().cuDeviceGetDefaultMemPool(&pool, dev)) {
            common::logMessage(INFINIRT_LOG_WARN, "cuda:%d: cuDeviceGetDefaultMemPool failed: %s (%d)", device,
                               errorName(rc), rc);
        } else {
            cuuint64_t threshold = UINT64_MAX;
            if (CUresult rc2 = nativeApi().cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold)) {
                common::logMessage(INFINIRT_LOG_WARN,
                                   "cuda:%d: cuMemPoolSetAttribute(RELEASE_THRESHOLD) failed: %s (%d)", device,
                                   errorName(rc2), rc2);
            }
            slot.pool = pool;
        }
        slot.primary.store(ctx, std::memory_order_release);
    }
    *out = ctx;
    return INFINI_STATUS_SUCCESS;
}

inline infiniStatus_t primary(int device, CUcontext *out) {
    CUcontext ctx = g_contexts[device].primary.load(std::memory_order_acquire);
    if (ctx) {
        *out = ctx;
        return INFINI_STATUS_SUCCESS;
    }
    return retain(device, out);
}

enum Action { kNothing = 0, kPopped = 1 };

} // namespace

void prepareContexts(int device_count) { g_contexts = new DeviceContext[device_count > 0 ? device_count : 1]; }

CUmemoryPool defaultPool(int device) {
    CUcontext ctx = nullptr;
    return primary(device, &ctx) == INFINI_STATUS_SUCCESS ? g_contexts[device].pool : nullptr;
}

infiniStatus_t bind(int device, gpu::ContextScope *scope) {
    CUcontext want = nullptr;
    if (infiniStatus_t status = primary(device, &want)) {
        return status;
    }
    CUcontext cur = nullptr;
    if (CUresult rc = nativeApi().cuCtxGetCurrent(&cur)) {
        return gpu::nativeFailure("cuCtxGetCurrent", rc, "binding cuda:%d", device);
    }
    if (cur == want) {
        return INFINI_STATUS_SUCCESS;
    }
    if (CUresult rc = nativeApi().cuCtxPushCurrent(want)) {
        return gpu::nativeFailure("cuCtxPushCurrent_v2", rc, "pushing the primary context of cuda:%d", device);
    }
    scope->action = kPopped;
    return INFINI_STATUS_SUCCESS;
}

void unbind(const gpu::ContextScope &scope) {
    if (scope.action == kPopped) {
        CUcontext popped = nullptr;
        /* Cannot fail for a context we pushed on this thread during this call. */
        nativeApi().cuCtxPopCurrent(&popped);
    }
}

namespace {
/* The context switches' failures and their switch proper, out of line, so that the fast paths below
 * (one cuCtxGetCurrent and a compare) keep only what they compare across the driver call. The
 * loader names the device in front of each message. */
[[gnu::cold, gnu::noinline]] infiniStatus_t contextCallFailed(const char *call, CUresult rc, const char *doing) {
    return gpu::nativeFailure(call, rc, "%s", doing);
}
[[gnu::noinline]] infiniStatus_t makeContextCurrent(CUcontext ctx, const char *doing) {
    if (CUresult rc = nativeApi().cuCtxSetCurrent(ctx)) {
        return contextCallFailed("cuCtxSetCurrent", rc, doing);
    }
    return INFINI_STATUS_SUCCESS;
}

/* Makes cuda:`device`'s primary context current with one read of the current context, which goes
 * to *was on success (setDevice, setDeviceSaving). */
__attribute__((always_inline)) inline infiniStatus_t switchToPrimary(int device, CUcontext *was) {
    CUcontext want = nullptr;
    if (infiniStatus_t status = primary(device, &want)) {
        return status;
    }
    CUcontext cur = nullptr;
    if (CUresult rc = nativeApi().cuCtxGetCurrent(&cur)) {
        return contextCallFailed("cuCtxGetCurrent", rc, "reading the thread's context to make the device current");
    }
    if (cur != want) {
        if (infiniStatus_t status = makeContextCurrent(want, "making the device's primary context current")) {
            return status;
        }
    }
    *was = cur;
    return INFINI_STATUS_SUCCESS;
}
} // namespace

/* Like cudaSetDevice: the primary context replaces whatever is current on top of the thread's
 * stack, so CUDA-runtime code that follows in this thread runs on the same context. */
infiniStatus_t setDevice(int device) {
    CUcontext was = nullptr;
    return switchToPrimary(device, &was);
}

/* The thread's current context, whatever it is (a context of the caller's, a primary context, or
 * none: NULL), for infinirtPushDevice. */
infiniStatus_t threadStateSave(int, void **state) {
    CUcontext cur = nullptr;
    if (CUresult rc = nativeApi().cuCtxGetCurrent(&cur)) {
        return contextCallFailed("cuCtxGetCurrent", rc, "saving the thread's context before pushing the device");
    }
    *state = cur;
    return INFINI_STATUS_SUCCESS;
}

/* threadStateSave then setDevice with one read of the current context, for infinirtPushDevice. */
infiniStatus_t setDeviceSaving(int device, void **state) {
    CUcontext was = nullptr;
    if (infiniStatus_t status = switchToPrimary(device, &was)) {
        return status;
    }
    *state = was;
    return INFINI_STATUS_SUCCESS;
}

/* Makes the saved context current again, replacing the top of the thread's stack as setDevice
 * did; a NULL one leaves the thread with no context. cuCtxSetCurrent creates and retains nothing. */
infiniStatus_t threadStateRestore(int, void *state) {
    CUcontext cur; /* written by the driver when it succeeds, and read only then */
    if (CUresult rc = nativeApi().cuCtxGetCurrent(&cur)) {
        return contextCallFailed("cuCtxGetCurrent", rc, "reading the thread's context to restore the one saved by the push");
    }
    if (cur != static_cast<CUcontext>(state)) {
        return makeContextCurrent(static_cast<CUcontext>(state), "restoring the context saved by the push");
    }
    return INFINI_STATUS_SUCCESS;
}

namespace {
/* infinirtLimit_t -> CUlimit (the loader passes only the three). */
CUlimit limitOf(int limit) {
    switch (limit) {
    case INFINIRT_LIMIT_STACK_SIZE:
        return CU_LIMIT_STACK_SIZE;
    case INFINIRT_LIMIT_PRINTF_FIFO_SIZE:
        return CU_LIMIT_PRINTF_FIFO_SIZE;
    default:
        return CU_LIMIT_MALLOC_HEAP_SIZE;
    }
}
} // namespace

NativeStatus nativeGetLimit(size_t *value, int limit) { return nativeApi().cuCtxGetLimit(value, limitOf(limit)); }
NativeStatus nativeSetLimit(int limit, size_t value) { return nativeApi().cuCtxSetLimit(limitOf(limit), value); }
NativeStatus nativeStreamPriorityRange(int *least, int *greatest) {
    return nativeApi().cuCtxGetStreamPriorityRange(least, greatest);
}

infiniStatus_t deviceGetNativeContext(int device, void **native) {
    CUcontext ctx = nullptr;
    if (infiniStatus_t status = primary(device, &ctx)) {
        return status;
    }
    *native = ctx;
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::cuda
