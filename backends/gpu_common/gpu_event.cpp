/* gpu_event.cpp - events: the plugin entries, for cuda and hip over the vendor table
 * (gpu_vendor.h); the vendor half of each is cuda_event.cpp's and hip_event.cpp's. Native events
 * plus the flags and "recorded" state the contract needs. */
#include "gpu_backend.h"

#include <new>

namespace infinirt::gpu {

infiniStatus_t eventCreate(int device, uint32_t flags, void **event) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    unsigned native_flags = 0;
    if (flags & INFINIRT_EVENT_DISABLE_TIMING) {
        native_flags |= vendorTable().event_disable_timing;
    }
    if (flags & INFINIRT_EVENT_BLOCKING_SYNC) {
        native_flags |= vendorTable().event_blocking_sync;
    }
    if (flags & INFINIRT_EVENT_INTERPROCESS) {
        native_flags |= vendorTable().event_interprocess;
    }
    auto *e = new (std::nothrow) Event{};
    if (!e) {
        return common::fail(INFINI_STATUS_OUT_OF_MEMORY, "no host memory for an event of %s:%d", vendorTable().name, device);
    }
    e->flags = flags;
    if (NativeStatus rc = vendorTable().event_create.call(&e->native, native_flags)) {
        delete e;
        return nativeFailure(vendorTable().event_create.name, rc, "creating an event on %s:%d", vendorTable().name, device);
    }
    *event = e;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventDestroy(int device, void *event) {
    auto *e = static_cast<Event *>(event);
    Binding bound(device, vendorTable().handle_calls_need_binding);
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().event_destroy.call(e->native)) {
        return nativeFailure(vendorTable().event_destroy.name, rc, "destroying an event of %s:%d", vendorTable().name, device);
    }
    delete e;
    return INFINI_STATUS_SUCCESS;
}

namespace {
[[gnu::cold, gnu::noinline]] infiniStatus_t queryFailed(NativeStatus rc, int device) {
    return nativeFailure(vendorTable().event_query.name, rc, "querying an event of %s:%d", vendorTable().name, device);
}

[[gnu::cold, gnu::noinline]] infiniStatus_t recordFailed(const char *call, NativeStatus rc, int device) {
    return nativeFailure(call, rc, "recording an event on a stream of %s:%d", vendorTable().name, device);
}

/* Records `e` with `record` on `native_stream` (never NULL), then notes the record as the
 * contract's state needs it; `in_capture`: `record` is the capture's (a node of that graph). */
inline infiniStatus_t recordWith(int device, Event *e, const Entry<NativeStatus (*)(void *, void *)> &record,
                                 bool in_capture, void *native_stream) {
    if (NativeStatus rc = record.call(e->native, native_stream)) {
        return recordFailed(record.name, rc, device);
    }
    e->recorded_in_capture.store(in_capture, std::memory_order_relaxed);
    e->recorded.store(true, std::memory_order_release);
    return INFINI_STATUS_SUCCESS;
}

/* Any record but the direct one: the NULL stream, a vendor that binds, a capture in progress. */
infiniStatus_t eventRecordGeneral(int device, Event *e, void *stream) {
    const Entry<NativeStatus (*)(void *, void *)> *record = nullptr;
    if (NativeStatus rc = entryFor(stream, vendorTable().event_record, vendorTable().event_record_in_capture, &record)) {
        return nativeFailure(vendorTable().stream_is_capturing.name, rc, "recording an event on %s:%d", vendorTable().name, device);
    }
    return recordWith(device, e, *record, record == &vendorTable().event_record_in_capture, nativeStream(stream));
}

inline infiniStatus_t eventQueryStatus(NativeStatus rc, int device, infinirtEventStatus_t *status) {
    if (rc == 0 || rc == vendorTable().not_ready) {
        *status = rc == 0 ? INFINIRT_EVENT_COMPLETE : INFINIRT_EVENT_NOT_READY;
        return INFINI_STATUS_SUCCESS;
    }
    return queryFailed(rc, device);
}

[[gnu::noinline]] infiniStatus_t eventRecordBound(int device, Event *e, void *stream) {
    return boundCall(device, [&] { return eventRecordGeneral(device, e, stream); });
}

[[gnu::noinline]] infiniStatus_t eventQueryBound(int device, void *native, infinirtEventStatus_t *status) {
    return boundCall(device, [&] { return eventQueryStatus(vendorTable().event_query.call(native), device, status); });
}
} // namespace

/* The direct record: an explicit stream that needs no binding while no stream of this plugin
 * captures (entryFor's answer is then the plain record without asking the driver). */
infiniStatus_t eventRecord(int device, void *event, void *stream) {
    auto *e = static_cast<Event *>(event);
    if (__builtin_expect(needsBinding(stream), 0)) {
        return eventRecordBound(device, e, stream);
    }
    if (__builtin_expect(g_capturing_streams.load(std::memory_order_acquire) == 0, 1)) {
        return recordWith(device, e, vendorTable().event_record, false, stream);
    }
    return eventRecordGeneral(device, e, stream);
}

infiniStatus_t eventQuery(int device, void *event, infinirtEventStatus_t *status) {
    void *native = static_cast<Event *>(event)->native;
    if (__builtin_expect(!vendorTable().handle_calls_need_binding, 1)) {
        return eventQueryStatus(vendorTable().event_query.call(native), device, status);
    }
    return eventQueryBound(device, native, status);
}

infiniStatus_t eventSynchronize(int device, void *event) {
    Binding bound(device, vendorTable().handle_calls_need_binding);
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().event_synchronize.call(static_cast<Event *>(event)->native)) {
        return nativeFailure(vendorTable().event_synchronize.name, rc, "waiting for an event of %s:%d", vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventElapsedTime(int device, float *ms, void *start, void *end) {
    auto *s = static_cast<Event *>(start);
    auto *e = static_cast<Event *>(end);
    if ((s->flags | e->flags) & INFINIRT_EVENT_DISABLE_TIMING) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "elapsed time asked of an event created with DISABLE_TIMING");
    }
    if (!s->recorded.load(std::memory_order_acquire) || !e->recorded.load(std::memory_order_acquire)) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "elapsed time asked of an event that was never recorded");
    }
    Binding bound(device, vendorTable().handle_calls_need_binding);
    if (!bound.ok()) {
        return bound.status();
    }
    float elapsed = 0.0f;
    NativeStatus rc = vendorTable().event_elapsed_time.call(&elapsed, s->native, e->native);
    if (rc == vendorTable().not_ready) {
        return common::fail(INFINI_STATUS_NOT_READY, "elapsed time asked of an event that has not completed");
    }
    if (rc != 0) {
        return nativeFailure(vendorTable().event_elapsed_time.name, rc, "timing two events of %s:%d", vendorTable().name, device);
    }
    *ms = elapsed;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventGetNative(int device, void *event, void **native) {
    (void)device;
    *native = static_cast<Event *>(event)->native;
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::gpu

INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::gpu::eventRecord);
INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::gpu::eventQuery);
