// C ABI extension: the native objects behind infinirt handles, for interop with vendor code.
#include "dispatch.h"

using namespace infinirt;

extern "C" {

__export infiniStatus_t infinirtStreamGetNativeHandle(infinirtStream_t stream, void **native) {
    INFINIRT_ENTER();
    if (native == nullptr) {
        return nullArgument("infinirtStreamGetNativeHandle", "native");
    }
    StreamRef r{};
    infiniStatus_t st = resolveStream("infinirtStreamGetNativeHandle", stream, r);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    void *out = nullptr;
    st = INFINIRT_DEVICE_CALL(r.backend, stream_get_native, r.device, r.native, &out);
    if (st == INFINI_STATUS_SUCCESS) {
        *native = out;
    }
    return st;
}

__export infiniStatus_t infinirtEventGetNativeHandle(infinirtEvent_t event, void **native) {
    INFINIRT_ENTER();
    if (native == nullptr) {
        return nullArgument("infinirtEventGetNativeHandle", "native");
    }
    HandleSlot *ev = handles().lookup(event, HandleKind::Event);
    if (ev == nullptr) {
        return invalidHandle("infinirtEventGetNativeHandle", "event", event);
    }
    Backend *b = g_registry.by_type[ev->type];
    void *out = nullptr;
    infiniStatus_t st = INFINIRT_DEVICE_CALL(b, event_get_native, ev->device, ev->native, &out);
    if (st == INFINI_STATUS_SUCCESS) {
        *native = out;
    }
    return st;
}

__export infiniStatus_t infinirtDeviceGetNativeContext(infiniDevice_t device, int device_id, void **native) {
    INFINIRT_ENTER();
    if (native == nullptr) {
        return nullArgument("infinirtDeviceGetNativeContext", "native");
    }
    Backend *b = nullptr;
    infiniStatus_t st = checkDevice(enumInt(device), device_id, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    void *out = nullptr;
    st = INFINIRT_DEVICE_CALL(b, device_get_native_context, device_id, &out);
    if (st == INFINI_STATUS_SUCCESS) {
        *native = out;
    }
    return st;
}

} // extern "C"
