// C ABI: the calling thread's device stack (infinirtPushDevice, infinirtPopDevice).
//
// Each entry remembers infinirt's current device before the push and, where the pushed device's
// backend has native per-thread state (thread_state_save), that state as it was: a pop gives
// both back exactly, so a library can switch devices without disturbing its caller, whatever
// the caller had made current natively (a CUDA context of its own, or none).
#include "dispatch.h"

namespace infinirt {
namespace {

constexpr int kStackDepth = 64;

struct StackEntry {
    int prev_type;   // infinirt's current device before the push (-1: none chosen yet)
    int prev_id;
    int pushed_type; // the device pushed, whose backend's native state `state` is
    int pushed_id;
    void *state;     // thread_state_save's answer (meaningful when saved)
    bool saved;
};

// Plain __thread of a trivial type, zero-initialised: a new thread starts with an empty stack.
struct DeviceStack {
    int depth;
    StackEntry entries[kStackDepth];
};
__thread DeviceStack t_stack;

} // namespace
} // namespace infinirt

using namespace infinirt;

extern "C" {

__export infiniStatus_t infinirtPushDevice(infiniDevice_t device, int device_id) {
    INFINIRT_ENTER();
    const int type = enumInt(device);
    Backend *b = nullptr;
    infiniStatus_t st = checkDevice(type, device_id, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    DeviceStack &s = t_stack;
    if (s.depth >= kStackDepth) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtPushDevice: the thread's device stack is full (%d entries); pop first",
                    kStackDepth);
    }
    StackEntry e{t_current.type, t_current.id, type, device_id, nullptr, false};
    if (b->table.thread_state_save != nullptr) {
        st = checked(b, device_id, "thread_state_save", INFINIRT_PLUGIN_STATUS(b, thread_state_save, device_id, &e.state));
        if (st != INFINI_STATUS_SUCCESS) {
            return st;
        }
        e.saved = true;
    }
    st = makeCurrent(b, type, device_id);
    if (st != INFINI_STATUS_SUCCESS) {
        return st; // set_device changes nothing when it fails: there is nothing to restore
    }
    s.entries[s.depth++] = e;
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtPopDevice(infiniDevice_t *device, int *device_id) {
    INFINIRT_ENTER();
    DeviceStack &s = t_stack;
    if (s.depth == 0) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtPopDevice: the thread's device stack is empty");
    }
    const StackEntry e = s.entries[--s.depth];
    t_current.type = e.prev_type;
    t_current.id = e.prev_id;
    if (e.saved) {
        Backend *pushed = g_registry.by_type[e.pushed_type];
        const infiniStatus_t st = checked(pushed, e.pushed_id, "thread_state_restore",
                                          INFINIRT_PLUGIN_STATUS(pushed, thread_state_restore, e.pushed_id, e.state));
        if (st != INFINI_STATUS_SUCCESS) {
            return st;
        }
    }
    Backend *b = nullptr;
    int type = 0;
    int id = 0;
    const infiniStatus_t st = currentDevice(b, type, id);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if (device != nullptr) {
        *device = static_cast<infiniDevice_t>(type);
    }
    if (device_id != nullptr) {
        *device_id = id;
    }
    return INFINI_STATUS_SUCCESS;
}

} // extern "C"
