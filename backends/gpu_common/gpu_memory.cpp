/* gpu_memory.cpp - device, pinned-host and stream-ordered memory; copies and memsets. */
#include "gpu_backend.h"

#include <cstdio>

namespace infinirt::gpu {

namespace {
/* The failure of an allocation, with the size asked and what the device had free. */
infiniStatus_t allocation_failure(const char *call, NativeStatus rc, int device, size_t size, const char *what) {
    char asked[32], free_text[48] = "free memory unknown";
    size_t free_now = 0, total = 0;
    if (api().mem_get_info.call(&free_now, &total) == 0) {
        char figure[32];
        format_bytes(figure, sizeof figure, free_now);
        std::snprintf(free_text, sizeof free_text, "%s free", figure);
    }
    return native_failure(call, rc, "allocating %s of %s on %s:%d, %s", format_bytes(asked, sizeof asked, size), what,
                          api().name, device, free_text);
}
} // namespace

infiniStatus_t malloc_device(int device, void **ptr, size_t size) {
    return guarded([&] {
        Binding bound(device);
        if (!bound.ok()) {
            return bound.status();
        }
        void *p = nullptr;
        if (NativeStatus rc = api().malloc_device.call(&p, size)) {
            return allocation_failure(api().malloc_device.name, rc, device, size, "device memory");
        }
        *ptr = p;
        return INFINI_STATUS_SUCCESS;
    });
}

infiniStatus_t free_device(int device, void *ptr) {
    return guarded([&] {
        Binding bound(device);
        if (!bound.ok()) {
            return bound.status();
        }
        /* Memory from malloc_async may still be in use by queued work, and the native free does
         * not wait for it as it does for ordinary allocations: wait for the device first. */
        if (NativeStatus rc = api().device_synchronize.call()) {
            return native_failure(api().device_synchronize.name, rc, "waiting for %s:%d before freeing memory",
                                  api().name, device);
        }
        if (NativeStatus rc = api().free_device.call(ptr)) {
            return native_failure(api().free_device.name, rc, "freeing device memory of %s:%d", api().name, device);
        }
        return INFINI_STATUS_SUCCESS;
    });
}

infiniStatus_t malloc_host(int device, void **ptr, size_t size) {
    return guarded([&] {
        Binding bound(device);
        if (!bound.ok()) {
            return bound.status();
        }
        void *p = nullptr;
        if (NativeStatus rc = api().malloc_host.call(&p, size)) {
            char asked[32];
            return native_failure(api().malloc_host.name, rc, "allocating %s of pinned host memory for %s:%d",
                                  format_bytes(asked, sizeof asked, size), api().name, device);
        }
        *ptr = p;
        return INFINI_STATUS_SUCCESS;
    });
}

infiniStatus_t free_host(int device, void *ptr) {
    return guarded([&] {
        Binding bound(device);
        if (!bound.ok()) {
            return bound.status();
        }
        if (NativeStatus rc = api().free_host.call(ptr)) {
            return native_failure(api().free_host.name, rc, "freeing pinned host memory of %s:%d", api().name, device);
        }
        return INFINI_STATUS_SUCCESS;
    });
}

infiniStatus_t memcpy_async(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind,
                            void *stream) {
    return guarded([&] {
        Binding bound(device, needs_binding(stream));
        if (!bound.ok()) {
            return bound.status();
        }
        if (NativeStatus rc = api().memcpy_async.call(dst, src, size, kind, native_stream(stream))) {
            char figure[32];
            return native_failure(api().memcpy_async.name, rc, "copying %s (kind %d) on %s:%d",
                                  format_bytes(figure, sizeof figure, size), static_cast<int>(kind), api().name,
                                  device);
        }
        return INFINI_STATUS_SUCCESS;
    });
}

/* Synchronous copies go through the default stream, so that they are ordered after the work
 * already queued there, and wait for it: the native synchronous copy may return before a copy
 * from pageable memory has landed. */
infiniStatus_t memcpy_sync(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind) {
    return guarded([&] {
        Binding bound(device);
        if (!bound.ok()) {
            return bound.status();
        }
        void *stream = api().default_stream;
        if (NativeStatus rc = api().memcpy_async.call(dst, src, size, kind, stream)) {
            char figure[32];
            return native_failure(api().memcpy_async.name, rc, "copying %s (kind %d) on %s:%d",
                                  format_bytes(figure, sizeof figure, size), static_cast<int>(kind), api().name,
                                  device);
        }
        if (NativeStatus rc = api().stream_synchronize.call(stream)) {
            return native_failure(api().stream_synchronize.name, rc, "waiting for a copy on %s:%d", api().name,
                                  device);
        }
        return INFINI_STATUS_SUCCESS;
    });
}

infiniStatus_t memset_async(int device, void *ptr, int value, size_t count, void *stream) {
    return guarded([&] {
        Binding bound(device, needs_binding(stream));
        if (!bound.ok()) {
            return bound.status();
        }
        if (NativeStatus rc = api().memset_async.call(ptr, value, count, native_stream(stream))) {
            char figure[32];
            return native_failure(api().memset_async.name, rc, "setting %s on %s:%d",
                                  format_bytes(figure, sizeof figure, count), api().name, device);
        }
        return INFINI_STATUS_SUCCESS;
    });
}

/* As memcpy_sync: the native memset may return before device memory is written. */
infiniStatus_t memset_sync(int device, void *ptr, int value, size_t count) {
    return guarded([&] {
        Binding bound(device);
        if (!bound.ok()) {
            return bound.status();
        }
        void *stream = api().default_stream;
        if (NativeStatus rc = api().memset_async.call(ptr, value, count, stream)) {
            char figure[32];
            return native_failure(api().memset_async.name, rc, "setting %s on %s:%d",
                                  format_bytes(figure, sizeof figure, count), api().name, device);
        }
        if (NativeStatus rc = api().stream_synchronize.call(stream)) {
            return native_failure(api().stream_synchronize.name, rc, "waiting for a memset on %s:%d", api().name,
                                  device);
        }
        return INFINI_STATUS_SUCCESS;
    });
}

infiniStatus_t malloc_async(int device, void **ptr, size_t size, void *stream) {
    return guarded([&] {
        Binding bound(device);
        if (!bound.ok()) {
            return bound.status();
        }
        void *p = nullptr;
        if (NativeStatus rc = api().malloc_async.call(&p, size, native_stream(stream))) {
            return allocation_failure(api().malloc_async.name, rc, device, size, "stream-ordered memory");
        }
        *ptr = p;
        return INFINI_STATUS_SUCCESS;
    });
}

infiniStatus_t free_async(int device, void *ptr, void *stream) {
    return guarded([&] {
        Binding bound(device);
        if (!bound.ok()) {
            return bound.status();
        }
        if (NativeStatus rc = api().free_async.call(ptr, native_stream(stream))) {
            return native_failure(api().free_async.name, rc, "freeing stream-ordered memory of %s:%d", api().name,
                                  device);
        }
        return INFINI_STATUS_SUCCESS;
    });
}

} // namespace infinirt::gpu
