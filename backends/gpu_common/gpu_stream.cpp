/* gpu_stream.cpp - streams: the plugin entries, for cuda and hip over the vendor table
 * (gpu_vendor.h); the vendor half of each is cuda_stream.cpp's and hip_stream.cpp's. Non-blocking
 * native streams; NULL is the device's default stream. */
#include "gpu_backend.h"

namespace infinirt::gpu {

infiniStatus_t streamCreate(int device, void **stream) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    void *created = nullptr;
    if (NativeStatus rc = vendorTable().stream_create.call(&created, vendorTable().stream_non_blocking)) {
        return nativeFailure(vendorTable().stream_create.name, rc, "creating a stream on %s:%d", vendorTable().name, device);
    }
    *stream = created;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamDestroy(int device, void *stream) {
    Binding bound(device, needsBinding(stream));
    if (!bound.ok()) {
        return bound.status();
    }
    /* The contract waits for pending work; the native destroy would return at once. */
    if (NativeStatus rc = vendorTable().stream_synchronize.call(stream)) {
        return nativeFailure(vendorTable().stream_synchronize.name, rc, "draining a stream of %s:%d before destroying it",
                             vendorTable().name, device);
    }
    if (NativeStatus rc = vendorTable().stream_destroy.call(stream)) {
        return nativeFailure(vendorTable().stream_destroy.name, rc, "destroying a stream of %s:%d", vendorTable().name, device);
    }
    if (g_capturing_streams.load(std::memory_order_acquire) != 0) {
        captureEnded(stream);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamSynchronize(int device, void *stream) {
    Binding bound(device, needsBinding(stream));
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().stream_synchronize.call(nativeStream(stream))) {
        return nativeFailure(vendorTable().stream_synchronize.name, rc, "synchronizing a stream of %s:%d", vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

namespace {
[[gnu::cold, gnu::noinline]] infiniStatus_t streamQueryFailed(NativeStatus rc, int device) {
    return nativeFailure(vendorTable().stream_query.name, rc, "querying a stream of %s:%d", vendorTable().name, device);
}

/* NOT_READY is a query's answer as much as SUCCESS: both are decided here, after the call. */
inline infiniStatus_t streamQueryStatus(NativeStatus rc, int device) {
    if (rc == 0) {
        return INFINI_STATUS_SUCCESS;
    }
    return rc == vendorTable().not_ready ? INFINI_STATUS_NOT_READY : streamQueryFailed(rc, device);
}

[[gnu::noinline]] infiniStatus_t streamQueryBound(int device, void *stream) {
    return boundCall(device, [&] { return streamQueryStatus(vendorTable().stream_query.call(nativeStream(stream)), device); });
}
} // namespace

infiniStatus_t streamQuery(int device, void *stream) {
    if (__builtin_expect(!needsBinding(stream), 1)) {
        return streamQueryStatus(vendorTable().stream_query.call(stream), device);
    }
    return streamQueryBound(device, stream);
}

infiniStatus_t streamWaitEvent(int device, void *stream, void *event) {
    Binding bound(device, needsBinding(stream));
    if (!bound.ok()) {
        return bound.status();
    }
    auto *e = static_cast<Event *>(event);
    // An event recorded inside the capture joins it with the plain wait.
    const Entry<NativeStatus (*)(void *, void *)> *wait = &vendorTable().stream_wait_event;
    if (!e->recorded_in_capture.load(std::memory_order_relaxed)) {
        if (NativeStatus rc = entryFor(stream, vendorTable().stream_wait_event, vendorTable().stream_wait_event_in_capture, &wait)) {
            return nativeFailure(vendorTable().stream_is_capturing.name, rc, "ordering a stream of %s:%d after an event",
                                 vendorTable().name, device);
        }
    }
    if (NativeStatus rc = wait->call(nativeStream(stream), e->native)) {
        return nativeFailure(wait->name, rc, "ordering a stream of %s:%d after an event", vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamGetNative(int device, void *stream, void **native) {
    (void)device;
    *native = nativeStream(stream);
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::gpu

INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::gpu::streamQuery);
INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::gpu::streamWaitEvent);
