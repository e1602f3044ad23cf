/*
 * hip_context.cpp - the HIP runtime's per-thread current device, and per-device first use.
 *
 * HIP keeps one current device per thread (hipSetDevice) instead of a context stack. bind() for
 * device d reads the thread's current device; if it is another one, d is made current for the
 * call and the previous device restored after it, so the caller's HIP state is as it was. Only
 * setDevice (infinirtSetDevice) leaves d current, as hipSetDevice would. Calls on an explicit
 * stream or event are not bound: HIP takes the device from the handle.
 */
#include "hip_backend.h"

#include <atomic>
#include <cstdint>
#include <mutex>

namespace infinirt::hip {

namespace {

struct DeviceState {
    std::atomic<bool> ready{false};
    hipMemPool_t pool = nullptr; /* written before `ready` is published */
    hipCtx_t primary = nullptr;  /* retained on the first deviceGetNativeContext */
};

/* Allocated once by prepareDevices and deliberately never freed: runtime objects must not be
 * released from static destructors. */
DeviceState *g_devices = nullptr;
std::mutex g_mutex;

enum Action { kNothing = 0, kRestore = 1 };

/* First use of a device: freed stream-ordered memory stays cached in its pool. */
void firstUse(int device) {
    std::lock_guard<std::mutex> lock(g_mutex);
    DeviceState &state = g_devices[device];
    if (state.ready.load(std::memory_order_relaxed)) {
        return;
    }
    hipMemPool_t pool = nullptr;
    if (nativeApi().hipDeviceGetDefaultMemPool(&pool, device) == hipSuccess) {
        uint64_t threshold = UINT64_MAX;
        if (hipError_t rc = nativeApi().hipMemPoolSetAttribute(pool, hipMemPoolAttrReleaseThreshold, &threshold)) {
            common::logMessage(INFINIRT_LOG_WARN, "hip:%d: hipMemPoolSetAttribute(ReleaseThreshold) failed: %s (%d)",
                               device, errorName(rc), rc);
        }
        state.pool = pool;
    }
    state.ready.store(true, std::memory_order_release);
}

} // namespace

void prepareDevices(int device_count) { g_devices = new DeviceState[device_count > 0 ? device_count : 1]; }

hipMemPool_t defaultPool(int device) {
    if (!g_devices[device].ready.load(std::memory_order_acquire)) {
        firstUse(device);
    }
    return g_devices[device].pool;
}

infiniStatus_t bind(int device, gpu::ContextScope *scope) {
    if (!g_devices[device].ready.load(std::memory_order_acquire)) {
        firstUse(device);
    }
    int current = 0;
    if (hipError_t rc = nativeApi().hipGetDevice(&current)) {
        return gpu::nativeFailure("hipGetDevice", rc, "binding hip:%d", device);
    }
    if (current == device) {
        return INFINI_STATUS_SUCCESS;
    }
    if (hipError_t rc = nativeApi().hipSetDevice(device)) {
        return gpu::nativeFailure("hipSetDevice", rc, "making hip:%d current", device);
    }
    scope->action = kRestore;
    scope->saved_device = current;
    return INFINI_STATUS_SUCCESS;
}

void unbind(const gpu::ContextScope &scope) {
    if (scope.action == kRestore) {
        /* The device was current on this thread when the call began; if the runtime refuses
         * it now, there is nothing better to restore, so it is only logged. */
        if (hipError_t rc = nativeApi().hipSetDevice(scope.saved_device)) {
            common::logMessage(INFINIRT_LOG_WARN, "hip: restoring device %d failed: %s (%d)", scope.saved_device,
                               errorName(rc), rc);
        }
    }
}

infiniStatus_t setDevice(int device) {
    if (hipError_t rc = nativeApi().hipSetDevice(device)) {
        return gpu::nativeFailure("hipSetDevice", rc, "making hip:%d current", device);
    }
    return INFINI_STATUS_SUCCESS;
}

/* The thread's current HIP device, for infinirtPushDevice (stored as the integer itself). */
infiniStatus_t threadStateSave(int device, void **state) {
    int current = 0;
    if (hipError_t rc = nativeApi().hipGetDevice(&current)) {
        return gpu::nativeFailure("hipGetDevice", rc, "saving the current device before pushing hip:%d", device);
    }
    *state = reinterpret_cast<void *>(static_cast<intptr_t>(current));
    return INFINI_STATUS_SUCCESS;
}

/* threadStateSave then setDevice, for infinirtPushDevice. */
infiniStatus_t setDeviceSaving(int device, void **state) {
    void *saved = nullptr;
    if (infiniStatus_t status = threadStateSave(device, &saved)) {
        return status;
    }
    if (infiniStatus_t status = setDevice(device)) {
        return status;
    }
    *state = saved;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t threadStateRestore(int device, void *state) {
    const int saved = static_cast<int>(reinterpret_cast<intptr_t>(state));
    if (hipError_t rc = nativeApi().hipSetDevice(saved)) {
        return gpu::nativeFailure("hipSetDevice", rc, "restoring device %d after hip:%d was pushed", saved, device);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t deviceGetNativeContext(int device, void **native) {
    std::lock_guard<std::mutex> lock(g_mutex);
    DeviceState &state = g_devices[device];
    if (!state.primary) {
        if (hipError_t rc = nativeApi().hipDevicePrimaryCtxRetain(&state.primary, device)) {
            return gpu::nativeFailure("hipDevicePrimaryCtxRetain", rc, "retaining the context of hip:%d", device);
        }
    }
    *native = state.primary;
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::hip
