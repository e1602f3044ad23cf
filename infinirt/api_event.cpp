// C ABI: events.
#include "capture.h"
#include "layers.h"

using namespace infinirt;

namespace {

constexpr uint32_t kKnownEventFlags =
    INFINIRT_EVENT_DISABLE_TIMING | INFINIRT_EVENT_BLOCKING_SYNC | INFINIRT_EVENT_INTERPROCESS;

inline HandleSlot *eventSlot(infinirtEvent_t event) { return handles().lookup(event, HandleKind::Event); }

} // namespace

extern "C" {

__export infiniStatus_t infinirtEventCreateWithFlags(infinirtEvent_t *event_ptr, uint32_t flags) {
    INFINIRT_ENTER();
    if (event_ptr == nullptr) {
        return nullArgument("infinirtEventCreate", "event_ptr");
    }
    if ((flags & ~kKnownEventFlags) != 0) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtEventCreateWithFlags: unknown flag bits 0x%x",
                    flags & ~kKnownEventFlags);
    }
    if ((flags & INFINIRT_EVENT_INTERPROCESS) != 0 && (flags & INFINIRT_EVENT_DISABLE_TIMING) == 0) {
        return fail(INFINI_STATUS_BAD_PARAM,
                    "infinirtEventCreateWithFlags: INFINIRT_EVENT_INTERPROCESS needs INFINIRT_EVENT_DISABLE_TIMING too");
    }
    Backend *b = nullptr;
    int type = 0;
    int id = 0;
    infiniStatus_t st = currentDevice(b, type, id);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    void *native = nullptr;
    st = INFINIRT_DEVICE_CALL(b, event_create, id, flags, &native);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    void *h = nullptr;
    st = handleOrUndo(h, "infinirtEventCreate", HandleKind::Event, type, id, native, flags, nullptr,
                      [&] { destroyPluginObject(b->table.event_destroy, id, native); });
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    *event_ptr = h;
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtEventCreate(infinirtEvent_t *event_ptr) {
    return infinirtEventCreateWithFlags(event_ptr, INFINIRT_EVENT_DEFAULT);
}

} // extern "C"

namespace {
// EventRecord on any stream: the NULL stream, a capturing one, an invalid handle or pair.
__attribute__((noinline)) infiniStatus_t eventRecordGeneral(infinirtEvent_t event, infinirtStream_t stream) {
    HandleSlot *ev = eventSlot(event);
    if (INFINIRT_UNLIKELY(ev == nullptr)) {
        return invalidHandle("infinirtEventRecord", "event", event);
    }
    StreamRef s;
    infiniStatus_t st = resolveStream("infinirtEventRecord", stream, s);
    if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
        return st;
    }
    if (INFINIRT_UNLIKELY(s.type != ev->type || s.device != ev->device)) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtEventRecord: event belongs to %s:%d but the stream to %s:%d",
                    typeName(ev->type), ev->device, typeName(s.type), s.device);
    }
    if (INFINIRT_UNLIKELY(captureOf(s) != nullptr)) {
        ActiveCapture capture(s.slot);
        if (capture.graph() != nullptr) {
            CapturedOp op(CapturedOp::Kind::EventRecord);
            op.event = event;
            return captureAppend(capture.graph(), op);
        }
    }
    return submitTo(
        s.slot, [&] { return INFINIRT_DEVICE_CALL_BEGUN(s.backend, event_record, s.device, ev->native, s.native); },
        [&](ModuleRefs *refs) { return noteCapturedEvent(refs, ev, "infinirtEventRecord"); });
}
} // namespace

extern "C" {

__export infiniStatus_t infinirtEventRecord(infinirtEvent_t event, infinirtStream_t stream) {
    // No INFINIRT_ENTER: the handles' paths check (dispatch.h). The fast path: a live event and a
    // live stream of its device that is not capturing (markSubmitting checks that); everything else
    // takes eventRecordGeneral.
    HandleSlot *const ev = eventSlot(event);
    if (INFINIRT_UNLIKELY(ev == nullptr)) {
        return eventRecordGeneral(event, stream);
    }
    HandleSlot *const slot = handles().lookup(stream, HandleKind::Stream);
    if (INFINIRT_UNLIKELY(slot == nullptr || slot->type != ev->type || slot->device != ev->device)) {
        return eventRecordGeneral(event, stream);
    }
    infinirtPluginEventRecordFn *const record = slot->backend->table.event_record;
    ThreadHot *const hot = &t_hot; // not threadHot(): here GCC keeps it across the call unpinned, one move fewer
    if (INFINIRT_UNLIKELY(record == nullptr || !markSubmitting(hot, slot))) {
        return eventRecordGeneral(event, stream);
    }
    return submittedStatus(hot, "event_record", record(slot->device, ev->native, slot->native));
}

} // extern "C"

namespace {
// event_query's status other than SUCCESS. A plugin answering NOT_READY as a status (as
// cudaEventQuery does) gave the answer, not a failure: it is passed on in *status_ptr, and writes
// no message.
INFINIRT_INLINE infiniStatus_t eventQueryAnswer(infinirtEventStatus_t *status_ptr, infiniStatus_t st) {
    if (st == INFINI_STATUS_NOT_READY) {
        *status_ptr = INFINIRT_EVENT_NOT_READY;
        return INFINI_STATUS_SUCCESS;
    }
    return st;
}

// The fast path's event_query answered other than SUCCESS. It ran without beginPluginCall (a
// detail pending now may be an earlier call's), so a failure is asked again: the query has no side
// effect, and its second answer, made right after beginPluginCall, is the call's (internal.h).
INFINIRT_COLD infiniStatus_t eventQueryNotSuccess(const HandleSlot *ev, infinirtEventStatus_t *status_ptr,
                                                  infiniStatus_t st) {
    if (eventQueryAnswer(status_ptr, st) == INFINI_STATUS_SUCCESS) {
        return INFINI_STATUS_SUCCESS;
    }
    beginPluginCall();
    st = eventQueryAnswer(status_ptr, ev->backend->table.event_query(ev->device, ev->native, status_ptr));
    if (st == INFINI_STATUS_SUCCESS) {
        return st;
    }
    return pluginFailed(ev->backend->name.c_str(), ev->device, "event_query", st);
}
} // namespace

extern "C" {

__export infiniStatus_t infinirtEventQuery(infinirtEvent_t event, infinirtEventStatus_t *status_ptr) {
    // No INFINIRT_ENTER: the handles' and the NULL stream's paths check (dispatch.h).
    if (INFINIRT_UNLIKELY(status_ptr == nullptr)) {
        return nullArgument("infinirtEventQuery", "status_ptr");
    }
    HandleSlot *ev = eventSlot(event);
    if (INFINIRT_UNLIKELY(ev == nullptr)) {
        return invalidHandle("infinirtEventQuery", "event", event);
    }
    const Backend *b = ev->backend;
    infinirtPluginEventQueryFn *const query = b->table.event_query;
    if (INFINIRT_UNLIKELY(query == nullptr)) {
        return notImplemented(b, "event_query");
    }
    // The plugin writes the caller's *status_ptr itself: only on success, as every output. No
    // beginPluginCall: a failure asks again (eventQueryNotSuccess).
    const infiniStatus_t st = query(ev->device, ev->native, status_ptr);
    if (INFINIRT_LIKELY(st == INFINI_STATUS_SUCCESS)) {
        return st;
    }
    return eventQueryNotSuccess(ev, status_ptr, st);
}

__export infiniStatus_t infinirtEventSynchronize(infinirtEvent_t event) {
    INFINIRT_ENTER();
    HandleSlot *ev = eventSlot(event);
    if (INFINIRT_UNLIKELY(ev == nullptr)) {
        return invalidHandle("infinirtEventSynchronize", "event", event);
    }
    Backend *b = g_registry.by_type[ev->type];
    return INFINIRT_DEVICE_CALL(b, event_synchronize, ev->device, ev->native);
}

__export infiniStatus_t infinirtEventDestroy(infinirtEvent_t event) {
    INFINIRT_ENTER();
    HandleSlot *ev = eventSlot(event);
    if (ev == nullptr || !handles().claim(event, ev)) {
        return invalidHandle("infinirtEventDestroy", "event", event);
    }
    Backend *b = g_registry.by_type[ev->type];
    infiniStatus_t st = INFINIRT_DEVICE_CALL(b, event_destroy, ev->device, ev->native);
    if (st != INFINI_STATUS_SUCCESS) {
        handles().restore(event, ev);
        return st;
    }
    handles().release(event);
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtEventElapsedTime(float *ms_ptr, infinirtEvent_t start, infinirtEvent_t end) {
    INFINIRT_ENTER();
    if (ms_ptr == nullptr) {
        return nullArgument("infinirtEventElapsedTime", "ms_ptr");
    }
    HandleSlot *a = eventSlot(start);
    if (a == nullptr) {
        return invalidHandle("infinirtEventElapsedTime", "event (start)", start);
    }
    HandleSlot *z = eventSlot(end);
    if (z == nullptr) {
        return invalidHandle("infinirtEventElapsedTime", "event (end)", end);
    }
    if ((a->flags | z->flags) & INFINIRT_EVENT_DISABLE_TIMING) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtEventElapsedTime: %s event was created with DISABLE_TIMING",
                    (a->flags & INFINIRT_EVENT_DISABLE_TIMING) ? "the start" : "the end");
    }
    if (a->type != z->type || a->device != z->device) {
        if (g_layers.validation) {
            validationElapsedAcrossDevices(a->type, a->device, z->type, z->device);
        }
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtEventElapsedTime: events on different devices (%s:%d, %s:%d)",
                    typeName(a->type), a->device, typeName(z->type), z->device);
    }
    Backend *b = g_registry.by_type[a->type];
    float ms = 0.0f;
    infiniStatus_t st = INFINIRT_DEVICE_CALL(b, event_elapsed_time, a->device, &ms, a->native, z->native);
    if (st == INFINI_STATUS_SUCCESS) {
        *ms_ptr = ms;
    }
    return st;
}

} // extern "C"
