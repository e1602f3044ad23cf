// Inline helpers shared by the API entry points: init check, argument resolution and calls into
// a plugin table. Everything here is on the hot path: no allocation, no lock, no message unless
// something failed.
#pragma once

#include "handles.h"
#include "internal.h"

#include <cstring>
#include <new>

namespace infinirt {

// `st` is the status of plugin call `call`, made through INFINIRT_PLUGIN_STATUS: SUCCESS passes,
// anything else becomes the thread's last error, with the detail the plugin gave during that call.
inline infiniStatus_t checked(const Backend *b, int device, const char *call, infiniStatus_t st) {
    if (INFINIRT_LIKELY(st == INFINI_STATUS_SUCCESS)) {
        return st;
    }
    return pluginFailed(b->name.c_str(), device, call, st);
}

INFINIRT_COLD inline infiniStatus_t notImplemented(const Backend *b, const char *call) {
    return fail(INFINI_STATUS_NOT_IMPLEMENTED, "backend %s does not implement %s", b->name.c_str(), call);
}

INFINIRT_COLD inline infiniStatus_t nullArgument(const char *function, const char *argument) {
    return fail(INFINI_STATUS_NULL_POINTER, "%s: %s is NULL", function, argument);
}

// Also the init check of the entries that take a handle and skip INFINIRT_ENTER (a live handle
// exists only once the loader is ready, and none survives into a forked child: onForkChild): a
// loader that is not ready reports why instead.
INFINIRT_COLD inline infiniStatus_t invalidHandle(const char *function, const char *what, const void *h) {
    if (const infiniStatus_t st = ensureInit()) {
        return st;
    }
    return fail(INFINI_STATUS_INVALID_HANDLE, "%s: %p is not a live %s handle (destroyed, never created, or another kind)",
                function, h, what);
}

// The status of plugin entry `entry` (which must exist) of backend `b`, called with no detail
// pending: every plugin call whose status the loader may report (through checked or pluginFailed)
// goes through here, so that a detail left behind by an earlier plugin call is never read. Calls
// whose status is ignored (cleanup, the pointer probe) may use the table directly.
#define INFINIRT_PLUGIN_STATUS(b, entry, ...) (::infinirt::beginPluginCall(), INFINIRT_PLUGIN_STATUS_BEGUN((b), entry, __VA_ARGS__))

// Calls plugin entry `entry` of backend `b` with the arguments `...`; a failure is reported as one
// on `device`. NOT_IMPLEMENTED if the plugin lacks the entry. For the entries whose first argument
// is not the device the call runs on (memcpy_peer_async); the others use INFINIRT_DEVICE_CALL.
#define INFINIRT_CALL(b, entry, device, ...) (::infinirt::beginPluginCall(), INFINIRT_CALL_BEGUN((b), entry, (device), __VA_ARGS__))

// INFINIRT_CALL for an entry whose first argument is the device it runs on: that argument is the
// device a failure is reported on. INFINIRT_DEVICE_CALL(b, event_synchronize, ev->device, ev->native).
#define INFINIRT_DEVICE_CALL(b, entry, ...) INFINIRT_CALL((b), entry, INFINIRT_FIRST_ARG_(__VA_ARGS__, ~), __VA_ARGS__)

// These three without beginPluginCall, for submitTo (capture.h), which begins the plugin call
// itself with the thread-local state it touches anyway.
#define INFINIRT_PLUGIN_STATUS_BEGUN(b, entry, ...) ((b)->table.entry(__VA_ARGS__))
#define INFINIRT_CALL_BEGUN(b, entry, device, ...)                                                        \
    ((b)->table.entry != nullptr                                                                          \
         ? ::infinirt::checked((b), (device), #entry, INFINIRT_PLUGIN_STATUS_BEGUN((b), entry, __VA_ARGS__)) \
         : ::infinirt::notImplemented((b), #entry))
#define INFINIRT_DEVICE_CALL_BEGUN(b, entry, ...)                                                                      \
    INFINIRT_CALL_BEGUN((b), entry, INFINIRT_FIRST_ARG_(__VA_ARGS__, ~), __VA_ARGS__)

// The first of the arguments (the `~` the callers above append keeps `...` non-empty when the
// entry takes the device alone).
#define INFINIRT_FIRST_ARG_(first, ...) first

// makeCurrent's failure: puts back the thread's switch_undo and reports the plugin's failure on the
// device that was tried (api_device.cpp).
INFINIRT_COLD infiniStatus_t setDeviceFailed(infiniStatus_t st);

// Makes (type, id) of backend `b` current (the caller validated it): infinirt's current device,
// then the backend's set_device. A failure of set_device leaves both as they were. What the
// failure path needs lives in the thread's ThreadHot, not in registers kept across the plugin call.
INFINIRT_INLINE infiniStatus_t makeCurrent(Backend *b, int type, int id) {
    ThreadHot &t = t_hot;
    infinirtPluginSetDeviceFn *const set_device = b->table.set_device;
    t.switch_undo = t.current;
    t.current = CurrentDevice{type, id};
    if (set_device == nullptr) {
        return INFINI_STATUS_SUCCESS;
    }
    t.flags &= kNoPluginDetailPending; // beginPluginCall
    const infiniStatus_t st = set_device(id);
    if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
        return setDeviceFailed(st);
    }
    return successAsIs(st);
}

#define INFINIRT_ENTER()                                        \
    do {                                                        \
        const infiniStatus_t enter_status_ = ::infinirt::ensureInit(); \
        if (INFINIRT_UNLIKELY(enter_status_ != INFINI_STATUS_SUCCESS)) { \
            return enter_status_;                               \
        }                                                       \
    } while (0)

// Loader code that may allocate (maps, vectors, strings) runs inside this guard: no exception
// crosses the C ABI.
#define INFINIRT_GUARD_BEGIN try {
#define INFINIRT_GUARD_END(function)                                                                      \
    }                                                                                                     \
    catch (const std::bad_alloc &) {                                                                      \
        return ::infinirt::fail(INFINI_STATUS_OUT_OF_MEMORY, "%s: host memory exhausted in the loader", function); \
    }                                                                                                     \
    catch (const std::exception &e) {                                                                     \
        return ::infinirt::fail(INFINI_STATUS_INTERNAL_ERROR, "%s: %s", function, e.what());              \
    }

// A stream argument resolved to its backend, device and native object. No initialisers: a hot
// entry declares one and resolveStream writes every field on success (read none on failure).
struct StreamRef {
    Backend *backend;
    int type;
    int device;
    void *native;
    HandleSlot *slot; // nullptr for the default stream
};

// NULL is the current device's default stream. The init check of the entries that skip
// INFINIRT_ENTER is here, on the NULL stream's path (a stream handle validates only once the loader is
// ready: invalidHandle).
INFINIRT_INLINE infiniStatus_t resolveStream(const char *function, infinirtStream_t stream, StreamRef &r) {
    if (stream == nullptr) {
        if (const infiniStatus_t st = ensureInit()) {
            return st;
        }
        r.slot = nullptr;
        r.native = nullptr;
        return currentDevice(r.backend, r.type, r.device);
    }
    HandleSlot *slot = handles().lookup(stream, HandleKind::Stream);
    if (INFINIRT_UNLIKELY(slot == nullptr)) {
        return invalidHandle(function, "stream", stream);
    }
    r.slot = slot;
    r.type = slot->type;
    r.device = slot->device;
    r.native = slot->native;
    r.backend = slot->backend;
    return INFINI_STATUS_SUCCESS;
}

// The graph the loader is recording for this stream, or nullptr when it is not capturing.
INFINIRT_INLINE CaptureGraph *captureOf(const StreamRef &r) {
    return r.slot != nullptr ? r.slot->capture.load(std::memory_order_acquire) : nullptr;
}

// Extensible structs (first field struct_size): the caller says how much room it has.
template <typename T> infiniStatus_t checkStructSize(const char *function, const T *s) {
    const size_t size = s->struct_size;
    if (size <= sizeof(size_t) || size > (1u << 20)) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: struct_size is %zu; set it to sizeof the struct (%zu)", function,
                    size, sizeof(T));
    }
    return INFINI_STATUS_SUCCESS;
}

// The caller's struct (its struct_size checked by checkStructSize) as a whole one of ours: the
// fields it has, zero for those past its struct_size, struct_size = sizeof(T).
template <typename T> T widened(const T *s) {
    T whole;
    std::memset(static_cast<void *>(&whole), 0, sizeof whole);
    std::memcpy(static_cast<void *>(&whole), s, s->struct_size < sizeof(T) ? s->struct_size : sizeof(T));
    whole.struct_size = sizeof whole;
    return whole;
}

// Copies as much of `full` as the caller's struct holds, keeping the caller's struct_size.
template <typename T> void copyOut(T *dst, const T &full) {
    const size_t keep = dst->struct_size;
    std::memcpy(static_cast<void *>(dst), &full, keep < sizeof(T) ? keep : sizeof(T));
    dst->struct_size = keep;
}

// Makes work submitted to `stream` after this call wait for `event`'s recorded work. Same
// device: the plugin's stream_wait_event; another device of the same backend: its
// stream_wait_peer_event where it has one (a device-side wait). Otherwise (another backend, or no
// such entry) the host waits for the event (correct ordering, at the cost of blocking the
// caller). Defined in api_stream.cpp.
infiniStatus_t streamWaitEventOn(const StreamRef &stream, HandleSlot *event);

} // namespace infinirt
