/* gpu_stream.cpp - streams: non-blocking native streams; NULL is the device's default stream. */
#include "gpu_backend.h"

namespace infinirt::gpu {

infiniStatus_t streamCreate(int device, void **stream) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    void *created = nullptr;
    if (NativeStatus rc = api().stream_create.call(&created, api().stream_non_blocking)) {
        return nativeFailure(api().stream_create.name, rc, "creating a stream on %s:%d", api().name, device);
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
    if (NativeStatus rc = api().stream_synchronize.call(stream)) {
        return nativeFailure(api().stream_synchronize.name, rc, "draining a stream of %s:%d before destroying it",
                             api().name, device);
    }
    if (NativeStatus rc = api().stream_destroy.call(stream)) {
        return nativeFailure(api().stream_destroy.name, rc, "destroying a stream of %s:%d", api().name, device);
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
    if (NativeStatus rc = api().stream_synchronize.call(nativeStream(stream))) {
        return nativeFailure(api().stream_synchronize.name, rc, "synchronizing a stream of %s:%d", api().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamQuery(int device, void *stream) {
    Binding bound(device, needsBinding(stream));
    if (!bound.ok()) {
        return bound.status();
    }
    NativeStatus rc = api().stream_query.call(nativeStream(stream));
    if (rc == 0) {
        return INFINI_STATUS_SUCCESS;
    }
    if (rc == api().not_ready) {
        return INFINI_STATUS_NOT_READY;
    }
    return nativeFailure(api().stream_query.name, rc, "querying a stream of %s:%d", api().name, device);
}

infiniStatus_t streamWaitEvent(int device, void *stream, void *event) {
    Binding bound(device, needsBinding(stream));
    if (!bound.ok()) {
        return bound.status();
    }
    auto *e = static_cast<Event *>(event);
    // An event recorded inside the capture joins it with the plain wait.
    const Entry<NativeStatus (*)(void *, void *)> *wait = &api().stream_wait_event;
    if (!e->recorded_in_capture.load(std::memory_order_relaxed)) {
        if (NativeStatus rc = entryFor(stream, api().stream_wait_event, api().stream_wait_event_in_capture, &wait)) {
            return nativeFailure(api().stream_is_capturing.name, rc, "ordering a stream of %s:%d after an event",
                                 api().name, device);
        }
    }
    if (NativeStatus rc = wait->call(nativeStream(stream), e->native)) {
        return nativeFailure(wait->name, rc, "ordering a stream of %s:%d after an event", api().name, device);
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
