/* gpu_memory.cpp - allocation, copies, memsets: the plugin entries, for cuda and hip over the
 * vendor table (gpu_vendor.h); the vendor half of each is cuda_memory.cpp's and hip_memory.cpp's.
 * Device, pinned-host and stream-ordered memory. */
#include "gpu_backend.h"

#include <cstdio>

namespace infinirt::gpu {

namespace {
/* The failure of an allocation, with the size asked and what the device had free. */
infiniStatus_t allocationFailure(const char *call, NativeStatus rc, int device, size_t size, const char *what) {
    char free_text[48] = "free memory unknown";
    size_t free_now = 0, total = 0;
    if (vendorTable().mem_get_info.call(&free_now, &total) == 0) {
        std::snprintf(free_text, sizeof free_text, "%s free", common::formatBytes(free_now).c_str());
    }
    return nativeFailure(call, rc, "allocating %s of %s on %s:%d, %s", common::formatBytes(size).c_str(), what,
                         vendorTable().name, device, free_text);
}
} // namespace

infiniStatus_t mallocDevice(int device, void **ptr, size_t size) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    void *p = nullptr;
    if (NativeStatus rc = vendorTable().malloc_device.call(&p, size)) {
        return allocationFailure(vendorTable().malloc_device.name, rc, device, size, "device memory");
    }
    *ptr = p;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t freeDevice(int device, void *ptr) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    /* Memory from mallocAsync may still be in use by queued work, and the native free does
     * not wait for it as it does for ordinary allocations: wait for the device first. */
    if (NativeStatus rc = vendorTable().device_synchronize.call()) {
        return nativeFailure(vendorTable().device_synchronize.name, rc, "waiting for %s:%d before freeing memory", vendorTable().name,
                             device);
    }
    if (NativeStatus rc = vendorTable().free_device.call(ptr)) {
        return nativeFailure(vendorTable().free_device.name, rc, "freeing device memory of %s:%d", vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t mallocHost(int device, void **ptr, size_t size) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    void *p = nullptr;
    if (NativeStatus rc = vendorTable().malloc_host.call(&p, size)) {
        return nativeFailure(vendorTable().malloc_host.name, rc, "allocating %s of pinned host memory for %s:%d",
                             common::formatBytes(size).c_str(), vendorTable().name, device);
    }
    *ptr = p;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t freeHost(int device, void *ptr) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().free_host.call(ptr)) {
        return nativeFailure(vendorTable().free_host.name, rc, "freeing pinned host memory of %s:%d", vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

namespace {
[[gnu::cold, gnu::noinline]] infiniStatus_t copyFailed(NativeStatus rc, int device, size_t size,
                                                       infinirtMemcpyKind_t kind) {
    return nativeFailure(vendorTable().memcpy_async.name, rc, "copying %s (kind %d) on %s:%d",
                         common::formatBytes(size).c_str(), static_cast<int>(kind), vendorTable().name, device);
}
[[gnu::cold, gnu::noinline]] infiniStatus_t fillFailed(NativeStatus rc, int device, size_t count) {
    return nativeFailure(vendorTable().memset_async.name, rc, "setting %s on %s:%d", common::formatBytes(count).c_str(),
                         vendorTable().name, device);
}

/* The native copy and fill on `native_stream` (never NULL), with their failures' reports. */
inline infiniStatus_t copyOn(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind,
                             void *native_stream) {
    const NativeStatus rc = vendorTable().memcpy_async.call(dst, src, size, kind, native_stream);
    return rc == 0 ? INFINI_STATUS_SUCCESS : copyFailed(rc, device, size, kind);
}
inline infiniStatus_t fillOn(int device, void *ptr, int value, size_t count, void *native_stream) {
    const NativeStatus rc = vendorTable().memset_async.call(ptr, value, count, native_stream);
    return rc == 0 ? INFINI_STATUS_SUCCESS : fillFailed(rc, device, count);
}
} // namespace

infiniStatus_t memcpyAsync(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind,
                           void *stream) {
    if (__builtin_expect(!needsBinding(stream), 1)) {
        return copyOn(device, dst, src, size, kind, stream);
    }
    /* The NULL stream binds in line (an out-of-line bound copy measured slower on that row). */
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    return copyOn(device, dst, src, size, kind, nativeStream(stream));
}

/* Synchronous copies go through the default stream, so that they are ordered after the work
 * already queued there, and wait for it: the native synchronous copy may return before a copy
 * from pageable memory has landed. */
infiniStatus_t memcpySync(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    void *stream = vendorTable().default_stream;
    if (infiniStatus_t status = copyOn(device, dst, src, size, kind, stream)) {
        return status;
    }
    if (NativeStatus rc = vendorTable().stream_synchronize.call(stream)) {
        return nativeFailure(vendorTable().stream_synchronize.name, rc, "waiting for a copy on %s:%d", vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memsetAsync(int device, void *ptr, int value, size_t count, void *stream) {
    if (__builtin_expect(!needsBinding(stream), 1)) {
        return fillOn(device, ptr, value, count, stream);
    }
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    return fillOn(device, ptr, value, count, nativeStream(stream));
}

/* As memcpySync: the native memset may return before device memory is written. */
infiniStatus_t memsetSync(int device, void *ptr, int value, size_t count) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    void *stream = vendorTable().default_stream;
    if (infiniStatus_t status = fillOn(device, ptr, value, count, stream)) {
        return status;
    }
    if (NativeStatus rc = vendorTable().stream_synchronize.call(stream)) {
        return nativeFailure(vendorTable().stream_synchronize.name, rc, "waiting for a memset on %s:%d", vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t mallocAsync(int device, void **ptr, size_t size, void *stream) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    void *p = nullptr;
    if (NativeStatus rc = vendorTable().malloc_async.call(&p, size, nativeStream(stream))) {
        return allocationFailure(vendorTable().malloc_async.name, rc, device, size, "stream-ordered memory");
    }
    *ptr = p;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t freeAsync(int device, void *ptr, void *stream) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().free_async.call(ptr, nativeStream(stream))) {
        return nativeFailure(vendorTable().free_async.name, rc, "freeing stream-ordered memory of %s:%d", vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::gpu

INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::gpu::memcpyAsync);
INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::gpu::memsetAsync);
