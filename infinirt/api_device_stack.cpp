// C ABI: the calling thread's device stack (infinirtPushDevice, infinirtPopDevice).
//
// Each entry (in the thread's ThreadHot: internal.h) remembers infinirt's
// current device before the push and, where the pushed device's backend has native per-thread
// state (thread_state_save), that state as it was: a pop gives both back exactly, so a library can
// switch devices without disturbing its caller, whatever the caller had made current natively (a
// CUDA context of its own, or none). A backend's set_device_saving saves and switches in one
// plugin call; without it the loader calls thread_state_save, then set_device.
#include "dispatch.h"

using namespace infinirt;

namespace {

INFINIRT_COLD infiniStatus_t stackFull() {
    return fail(INFINI_STATUS_BAD_PARAM, "infinirtPushDevice: the thread's device stack is full (%ld entries); pop first",
                kDeviceStackDepth);
}

// The failure of plugin call `call` for the entry at index stack_depth: the push just undone, or
// the one just popped (its entry still intact).
INFINIRT_COLD infiniStatus_t entryCallFailed(const char *call, infiniStatus_t st) {
    const CurrentDevice pushed = t_hot.stack_pushed[t_hot.stack_depth];
    return pluginFailed(g_registry.by_type[pushed.type]->name.c_str(), pushed.id, call, st);
}

// A push whose plugin call failed: the push is undone (the entry off the stack, infinirt's current
// device back to what it was).
INFINIRT_COLD infiniStatus_t pushFailed(const char *call, infiniStatus_t st) {
    ThreadHot &t = t_hot;
    --t.stack_depth;
    t.current = t.stack_prev[t.stack_depth];
    return entryCallFailed(call, st);
}

// The push of a backend with native thread state but without set_device_saving: save, then make
// current. `*state` is written when saved.
INFINIRT_COLD infiniStatus_t pushUnfused(Backend *b, int id, void **state) {
    infiniStatus_t st = INFINIRT_PLUGIN_STATUS(b, thread_state_save, id, state);
    if (st != INFINI_STATUS_SUCCESS) {
        return pushFailed("thread_state_save", st);
    }
    if (b->table.set_device != nullptr) {
        st = INFINIRT_PLUGIN_STATUS(b, set_device, id);
        if (st != INFINI_STATUS_SUCCESS) {
            return pushFailed("set_device", st);
        }
    }
    return INFINI_STATUS_SUCCESS;
}

// Pop's outputs when the caller asked for them: the device current after the pop.
INFINIRT_COLD infiniStatus_t reportCurrent(infiniDevice_t *device, int *device_id) {
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

} // namespace

extern "C" {

__export infiniStatus_t infinirtPushDevice(infiniDevice_t device, int device_id) {
    INFINIRT_ENTER();
    ThreadHot &t = t_hot;
    const int type = enumInt(device);
    Backend *b = nullptr;
    infiniStatus_t st = checkDevice(type, device_id, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    const long depth = t.stack_depth;
    if (INFINIRT_UNLIKELY(depth >= kDeviceStackDepth)) {
        return stackFull();
    }
    // The push is made whole before the plugin call, so that nothing of it is needed after the
    // call: a failure undoes it (pushFailed). A failed plugin call changed nothing native.
    const CurrentDevice pushed{type, device_id};
    t.stack_prev[depth] = t.current;
    t.stack_pushed[depth] = pushed;
    t.current = pushed;
    t.stack_depth = depth + 1;
    if (infinirtPluginSetDeviceSavingFn *const fused = b->table.set_device_saving) {
        t.plugin_detail_pending = false; // beginPluginCall
        st = fused(device_id, &t.stack_state[depth]);
        if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
            return pushFailed("set_device_saving", st);
        }
    } else if (b->table.thread_state_save == nullptr) {
        // No native thread state to save: the push is a set_device.
        if (infinirtPluginSetDeviceFn *const set_device = b->table.set_device) {
            t.plugin_detail_pending = false; // beginPluginCall
            st = set_device(device_id);
            if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
                return pushFailed("set_device", st);
            }
        }
    } else {
        return pushUnfused(b, device_id, &t.stack_state[depth]);
    }
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtPopDevice(infiniDevice_t *device, int *device_id) {
    INFINIRT_ENTER();
    ThreadHot &t = *threadHot();
    const long top = t.stack_depth - 1;
    if (INFINIRT_UNLIKELY(top < 0)) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtPopDevice: the thread's device stack is empty");
    }
    t.stack_depth = top;
    t.current = t.stack_prev[top];
    const CurrentDevice pushed = t.stack_pushed[top];
    // The registry pairs thread_state_restore with thread_state_save: where it exists, the state was saved.
    if (infinirtPluginThreadStateRestoreFn *const restore = g_registry.by_type[pushed.type]->table.thread_state_restore) {
        t.plugin_detail_pending = false; // beginPluginCall
        const infiniStatus_t st = restore(pushed.id, t.stack_state[top]);
        if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
            return entryCallFailed("thread_state_restore", st);
        }
    }
    if (device == nullptr && device_id == nullptr) {
        return INFINI_STATUS_SUCCESS;
    }
    return reportCurrent(device, device_id);
}

} // extern "C"
