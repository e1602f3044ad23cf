// C ABI: streams and the start and end of capture.
#include "capture.h"
#include "infinirt_private.h"
#include "layers.h"
#include "modules.h"

#include <memory>

using namespace infinirt;

namespace infinirt {

infiniStatus_t streamWaitEventOn(const StreamRef &s, HandleSlot *ev) {
    if (INFINIRT_LIKELY(ev->type == s.type && ev->device == s.device)) {
        return submitTo(
            s.slot, [&] { return INFINIRT_DEVICE_CALL_BEGUN(s.backend, stream_wait_event, s.device, s.native, ev->native); },
            [&](ModuleRefs *refs) { return noteCapturedEvent(refs, ev, "infinirtStreamWaitEvent"); });
    }
    if (INFINIRT_UNLIKELY(g_layers.validation) && ev->type != s.type) {
        validationCrossBackendWait(s.type, s.device, ev->type, ev->device);
    }
    if (ev->type == s.type && s.backend->table.stream_wait_peer_event != nullptr) {
        // Another device of the same backend: a device-side wait (cuda: cuStreamWaitEvent across
        // contexts, a wait node under native capture; cpu: a wait task).
        return submitTo(
            s.slot,
            [&] {
                return INFINIRT_DEVICE_CALL_BEGUN(s.backend, stream_wait_peer_event, s.device, s.native, ev->device,
                                                  ev->native);
            },
            [&](ModuleRefs *refs) { return noteCapturedEvent(refs, ev, "infinirtStreamWaitEvent"); });
    }
    // A wait on the host: under native capture it would order nothing at the graph's launches,
    // and no graph node can stand for it.
    Backend *eb = g_registry.by_type[ev->type];
    return submitTo(
        s.slot, [&] { return INFINIRT_DEVICE_CALL_BEGUN(eb, event_synchronize, ev->device, ev->native); },
        [&](ModuleRefs *) {
            return fail(INFINI_STATUS_BAD_PARAM,
                        "infinirtStreamWaitEvent: a stream of %d:%d under native capture cannot wait on an event "
                        "of %d:%d (another backend); nothing was captured and the capture stays valid",
                        s.type, s.device, ev->type, ev->device);
        });
}

} // namespace infinirt

namespace {

// The device's stream priorities: the backend's range, (0, 0) where it has none.
infiniStatus_t priorityRange(Backend *b, int id, int &least, int &greatest) {
    int l = 0;
    int g = 0;
    if (b->table.device_get_stream_priority_range != nullptr) {
        const infiniStatus_t st = INFINIRT_DEVICE_CALL(b, device_get_stream_priority_range, id, &l, &g);
        if (st != INFINI_STATUS_SUCCESS) {
            return st;
        }
    }
    least = l;
    greatest = g;
    return INFINI_STATUS_SUCCESS;
}

// A stream of the current device: with `priority` (checked against the range) when
// `with_priority`, else an ordinary one (priority 0).
infiniStatus_t createStream(const char *function, bool with_priority, int priority, infinirtStream_t *stream_ptr) {
    if (stream_ptr == nullptr) {
        return nullArgument(function, "stream_ptr");
    }
    Backend *b = nullptr;
    int type = 0;
    int id = 0;
    infiniStatus_t st = currentDevice(b, type, id);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    void *native = nullptr;
    if (with_priority) {
        int least = 0;
        int greatest = 0;
        st = priorityRange(b, id, least, greatest);
        if (st != INFINI_STATUS_SUCCESS) {
            return st;
        }
        if (priority < greatest || priority > least) {
            return fail(INFINI_STATUS_BAD_PARAM,
                        "%s: priority %d is outside the range of %s:%d, %d (least) to %d (greatest); it is not clamped",
                        function, priority, typeName(type), id, least, greatest);
        }
    }
    if (with_priority && b->table.stream_create_with_priority != nullptr) {
        st = INFINIRT_DEVICE_CALL(b, stream_create_with_priority, id, priority, &native);
    } else {
        st = INFINIRT_DEVICE_CALL(b, stream_create, id, &native); // without the entry the range is (0, 0)
    }
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    void *h = nullptr;
    st = handleOrUndo(h, function, HandleKind::Stream, type, id, native, static_cast<uint32_t>(priority), nullptr,
                      [&] { destroyPluginObject(b->table.stream_destroy, id, native); });
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    *stream_ptr = h;
    return INFINI_STATUS_SUCCESS;
}

} // namespace

extern "C" {

__export infiniStatus_t infinirtStreamCreate(infinirtStream_t *stream_ptr) {
    INFINIRT_ENTER();
    return createStream("infinirtStreamCreate", false, 0, stream_ptr);
}

__export infiniStatus_t infinirtDeviceGetStreamPriorityRange(int *least, int *greatest, infiniDevice_t device,
                                                             int device_id) {
    INFINIRT_ENTER();
    if (least == nullptr) {
        return nullArgument("infinirtDeviceGetStreamPriorityRange", "least");
    }
    if (greatest == nullptr) {
        return nullArgument("infinirtDeviceGetStreamPriorityRange", "greatest");
    }
    Backend *b = nullptr;
    infiniStatus_t st = checkDevice(enumInt(device), device_id, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    return priorityRange(b, device_id, *least, *greatest);
}

__export infiniStatus_t infinirtStreamCreateWithPriority(infinirtStream_t *stream_ptr, int priority) {
    INFINIRT_ENTER();
    return createStream("infinirtStreamCreateWithPriority", true, priority, stream_ptr);
}

__export infiniStatus_t infinirtStreamGetPriority(int *priority, infinirtStream_t stream) {
    INFINIRT_ENTER();
    if (priority == nullptr) {
        return nullArgument("infinirtStreamGetPriority", "priority");
    }
    if (stream == nullptr) {
        *priority = 0;
        return INFINI_STATUS_SUCCESS;
    }
    const HandleSlot *slot = handles().lookup(stream, HandleKind::Stream);
    if (slot == nullptr) {
        return invalidHandle("infinirtStreamGetPriority", "stream", stream);
    }
    *priority = static_cast<int>(slot->flags);
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtStreamDestroy(infinirtStream_t stream) {
    INFINIRT_ENTER();
    if (stream == nullptr) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtStreamDestroy: the default (NULL) stream cannot be destroyed");
    }
    HandleSlot *slot = handles().lookup(stream, HandleKind::Stream);
    if (slot == nullptr) {
        return invalidHandle("infinirtStreamDestroy", "stream", stream);
    }
    if (slot->capture.load(std::memory_order_acquire) != nullptr ||
        slot->module_refs.load(std::memory_order_acquire) != nullptr) {
        // Every backend alike (the CUDA driver refuses it too): the stream and its capture stay.
        return fail(INFINI_STATUS_BAD_PARAM,
                    "infinirtStreamDestroy: the stream is capturing; end the capture first (the stream and its "
                    "capture stay valid)");
    }
    if (!handles().claim(stream, slot)) {
        return invalidHandle("infinirtStreamDestroy", "stream", stream);
    }
    Backend *b = g_registry.by_type[slot->type];
    infiniStatus_t st = INFINIRT_DEVICE_CALL(b, stream_destroy, slot->device, slot->native);
    if (st != INFINI_STATUS_SUCCESS) {
        handles().restore(stream, slot);
        return st;
    }
    // A capture begun by another thread while this destroy ran dies with its stream.
    CaptureGraph *capture = captureTake(slot);
    ModuleRefs *native_capture = nativeCaptureRefsTake(slot);
    if (capture != nullptr || native_capture != nullptr) {
        captureEndedOn(slot->type, slot->device);
    }
    delete capture;
    delete native_capture;
    handles().release(stream);
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtStreamSynchronize(infinirtStream_t stream) {
    INFINIRT_ENTER();
    StreamRef s{};
    infiniStatus_t st = resolveStream("infinirtStreamSynchronize", stream, s);
    if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
        return st;
    }
    if (INFINIRT_UNLIKELY(captureOf(s) != nullptr)) {
        ActiveCapture capture(s.slot);
        if (capture.graph() != nullptr) {
            return captureInvalidate(capture.graph(), "infinirtStreamSynchronize");
        }
    }
    return INFINIRT_DEVICE_CALL(s.backend, stream_synchronize, s.device, s.native);
}

} // extern "C"

namespace {
// StreamQuery on any stream: the NULL stream, a capturing one, an invalid handle.
__attribute__((noinline)) infiniStatus_t streamQueryGeneral(infinirtStream_t stream) {
    StreamRef s;
    infiniStatus_t st = resolveStream("infinirtStreamQuery", stream, s);
    if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
        return st;
    }
    if (INFINIRT_UNLIKELY(captureOf(s) != nullptr)) {
        ActiveCapture capture(s.slot);
        if (capture.graph() != nullptr) {
            return captureInvalidate(capture.graph(), "infinirtStreamQuery");
        }
    }
    if (INFINIRT_UNLIKELY(s.backend->table.stream_query == nullptr)) {
        return notImplemented(s.backend, "stream_query");
    }
    st = INFINIRT_PLUGIN_STATUS(s.backend, stream_query, s.device, s.native);
    // NOT_READY is an answer, not a failure: it writes no message (and a detail the plugin gave
    // with it is never read).
    return st == INFINI_STATUS_NOT_READY ? st : checked(s.backend, s.device, "stream_query", st);
}

// A failed stream_query of a stream the fast path resolved. It ran without beginPluginCall (a
// detail pending now may be an earlier call's), so it is asked again: the query has no side effect,
// and its second answer, made right after beginPluginCall, is the call's (internal.h).
INFINIRT_COLD infiniStatus_t streamQueryFailed(const HandleSlot *slot) {
    beginPluginCall();
    const infiniStatus_t st = slot->backend->table.stream_query(slot->device, slot->native);
    if (st == INFINI_STATUS_SUCCESS || st == INFINI_STATUS_NOT_READY) {
        return st;
    }
    return pluginFailed(slot->backend->name.c_str(), slot->device, "stream_query", st);
}
} // namespace

extern "C" {

__export infiniStatus_t infinirtStreamQuery(infinirtStream_t stream) {
    // No INFINIRT_ENTER: the handle's path checks (dispatch.h). The fast path: a live stream
    // handle that is not capturing; everything else takes streamQueryGeneral.
    const HandleSlot *slot = handles().lookup(stream, HandleKind::Stream);
    if (INFINIRT_UNLIKELY(slot == nullptr || slot->capture.load(std::memory_order_acquire) != nullptr)) {
        return streamQueryGeneral(stream);
    }
    infinirtPluginStreamQueryFn *const query = slot->backend->table.stream_query;
    if (INFINIRT_UNLIKELY(query == nullptr)) {
        return streamQueryGeneral(stream);
    }
    // No beginPluginCall: a failure asks again (streamQueryFailed). NOT_READY is an answer, not a
    // failure: it writes no message (and a detail the plugin gave with it is never read).
    const infiniStatus_t st = query(slot->device, slot->native);
    if (INFINIRT_LIKELY(st == INFINI_STATUS_SUCCESS || st == INFINI_STATUS_NOT_READY)) {
        return st;
    }
    return streamQueryFailed(slot);
}

__export infiniStatus_t infinirtStreamGetDevice(infinirtStream_t stream, infiniDevice_t *device, int *device_id) {
    INFINIRT_ENTER();
    if (device == nullptr) {
        return nullArgument("infinirtStreamGetDevice", "device");
    }
    if (device_id == nullptr) {
        return nullArgument("infinirtStreamGetDevice", "device_id");
    }
    StreamRef s{};
    const infiniStatus_t st = resolveStream("infinirtStreamGetDevice", stream, s);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    *device = static_cast<infiniDevice_t>(s.type);
    *device_id = s.device;
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtStreamWaitEvent(infinirtStream_t stream, infinirtEvent_t event) {
    INFINIRT_ENTER();
    StreamRef s{};
    infiniStatus_t st = resolveStream("infinirtStreamWaitEvent", stream, s);
    if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
        return st;
    }
    HandleSlot *ev = handles().lookup(event, HandleKind::Event);
    if (INFINIRT_UNLIKELY(ev == nullptr)) {
        return invalidHandle("infinirtStreamWaitEvent", "event", event);
    }
    if (INFINIRT_UNLIKELY(captureOf(s) != nullptr)) {
        ActiveCapture capture(s.slot);
        if (capture.graph() != nullptr) {
            CapturedOp op(CapturedOp::Kind::WaitEvent);
            op.event = event;
            return captureAppend(capture.graph(), op);
        }
    }
    return streamWaitEventOn(s, ev);
}

__export infiniStatus_t infinirtStreamBeginCapture(infinirtStream_t stream, infinirtStreamCaptureMode_t mode) {
    INFINIRT_ENTER();
    StreamRef s{};
    infiniStatus_t st = resolveStream("infinirtStreamBeginCapture", stream, s);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if (stream == nullptr) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtStreamBeginCapture: the default (NULL) stream cannot capture");
    }
    const int mode_value = enumInt(mode);
    if (mode_value < INFINIRT_STREAM_CAPTURE_MODE_GLOBAL || mode_value > INFINIRT_STREAM_CAPTURE_MODE_RELAXED) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtStreamBeginCapture: capture mode %d is not valid", mode_value);
    }
    INFINIRT_GUARD_BEGIN
    if (s.backend->table.stream_begin_capture != nullptr) {
        // The modules whose kernels the capture launches are kept for the graph (modules.h).
        std::unique_ptr<ModuleRefs> refs(new ModuleRefs());
        return captureBeginOn(s.type, s.device, [&] {
            // No submission to the stream is inside the plugin while the capture begins
            // (capture.h): module_refs is set first, so later submissions wait for the lock, and
            // those already past their check are waited for.
            NativeCaptureExclusive exclusive;
            ModuleRefs *expected = nullptr;
            if (!s.slot->module_refs.compare_exchange_strong(expected, refs.get(), std::memory_order_acq_rel)) {
                return fail(INFINI_STATUS_BAD_PARAM, "infinirtStreamBeginCapture: the stream is already capturing");
            }
            awaitUnmarked(s.slot);
            infiniStatus_t begun = checked(s.backend, s.device, "stream_begin_capture",
                                           INFINIRT_PLUGIN_STATUS(s.backend, stream_begin_capture, s.device, s.native, mode));
            if (begun == INFINI_STATUS_SUCCESS) {
                refs.release(); // now the stream's
            } else {
                exclusive.take(s.slot);
            }
            return begun;
        });
    }
    std::unique_ptr<CaptureGraph> g(new CaptureGraph());
    g->type = s.type;
    g->device = s.device;
    return captureBeginOn(s.type, s.device, [&] {
        CaptureGraph *expected = nullptr;
        if (!s.slot->capture.compare_exchange_strong(expected, g.get(), std::memory_order_acq_rel)) {
            return fail(INFINI_STATUS_BAD_PARAM, "infinirtStreamBeginCapture: the stream is already capturing");
        }
        g.release();
        return INFINI_STATUS_SUCCESS;
    });
    INFINIRT_GUARD_END("infinirtStreamBeginCapture")
}

} // extern "C"

// For libinfiniccl only (common/infinirt_private.h, version INFINIRT_PRIVATE): a collective's
// stream must be of its communicator's device.
extern "C" __export infiniStatus_t infinirtPrivateStreamDevice(infinirtStream_t stream, infiniDevice_t *device,
                                                               int *device_id) {
    INFINIRT_ENTER();
    StreamRef s{};
    const infiniStatus_t st = resolveStream("infinirtPrivateStreamDevice", stream, s);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    *device = static_cast<infiniDevice_t>(s.type);
    *device_id = s.device;
    return INFINI_STATUS_SUCCESS;
}
