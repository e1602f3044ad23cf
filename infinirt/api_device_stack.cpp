// C ABI: the calling thread's device stack (infinirtPushDevice, infinirtPopDevice).
//
// Each entry (in the thread's ThreadHot: internal.h) remembers infinirt's current device before the
// push and, where the pushed device's backend has native per-thread state (thread_state_save), that
// state as it was: a pop gives both back exactly, so a library can switch devices without
// disturbing its caller, whatever the caller had made current natively (a CUDA context of its own,
// or none). A backend's set_device_saving saves and switches in one
// plugin call; without it the loader calls thread_state_save, then set_device.
#include "dispatch.h"

using namespace infinirt;

namespace {

INFINIRT_COLD infiniStatus_t stackFull() {
    return fail(INFINI_STATUS_BAD_PARAM,
                "infinirtPushDevice: the thread's device stack is full (%ld entries); pop first", kDeviceStackDepth);
}

// Pop's refusal of an empty stack, or, first, why the loader cannot serve calls (a stack has
// entries only once the loader is ready, and a forked child's is emptied: onForkChild).
INFINIRT_COLD infiniStatus_t stackEmpty() {
    if (const infiniStatus_t st = ensureInit()) {
        return st;
    }
    return fail(INFINI_STATUS_BAD_PARAM, "infinirtPopDevice: the thread's device stack is empty");
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

// Records the push of (type, id) as entry `depth` (below kDeviceStackDepth) of the thread's stack
// and makes it infinirt's current device, before the plugin call, so that nothing of the push is
// needed after the call: a failure undoes it (pushFailed).
INFINIRT_INLINE void recordPush(ThreadHot &t, long depth, const Backend *b, int type, int id) {
    const CurrentDevice pushed{type, id};
    t.stack_prev[depth] = t.current;
    t.stack_pushed[depth] = pushed;
    t.stack_restore[depth] = b->pop_restore;
    t.current = pushed;
    t.stack_depth = depth + 1;
}

// The push through set_device_saving (cuda, hip): one plugin call saves and switches.
INFINIRT_INLINE infiniStatus_t pushFused(const Backend *b, infinirtPluginSetDeviceSavingFn *fused, int type,
                                         int id) {
    ThreadHot &t = t_hot;
    const long depth = t.stack_depth;
    if (INFINIRT_UNLIKELY(depth >= kDeviceStackDepth)) {
        return stackFull();
    }
    recordPush(t, depth, b, type, id);
    t.flags &= kNoPluginDetailPending; // beginPluginCall
    const infiniStatus_t st = fused(id, &t.stack_state[depth]);
    if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
        return pushFailed("set_device_saving", st);
    }
    return successAsIs(st);
}

// The push of a backend without set_device_saving: a set_device where the backend has no native
// thread state (cpu, opencl), else save then set (pushUnfused). Out of line, so that the fused
// path keeps its registers to itself.
__attribute__((noinline)) infiniStatus_t pushWithoutFused(Backend *b, int type, int id) {
    ThreadHot &t = t_hot;
    const long depth = t.stack_depth;
    if (INFINIRT_UNLIKELY(depth >= kDeviceStackDepth)) {
        return stackFull();
    }
    recordPush(t, depth, b, type, id);
    if (b->table.thread_state_save != nullptr) {
        return pushUnfused(b, id, &t.stack_state[depth]);
    }
    if (infinirtPluginSetDeviceFn *const set_device = b->table.set_device) {
        t.flags &= kNoPluginDetailPending; // beginPluginCall
        const infiniStatus_t st = set_device(id);
        if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
            return pushFailed("set_device", st);
        }
    }
    return INFINI_STATUS_SUCCESS;
}

// Pops the thread's top entry: infinirt's current device back to the entry's, then the pushed
// backend's native state, through the restore the push recorded (the backend's pop_restore:
// thread_state_restore, which the registry pairs with thread_state_save, so where it exists the
// state was saved; a no-op for a backend without native thread state). The entry is popped even
// when the restore fails.
INFINIRT_INLINE infiniStatus_t popEntry() {
    ThreadHot &t = t_hot;
    const long top = t.stack_depth - 1;
    if (INFINIRT_UNLIKELY(top < 0)) {
        return stackEmpty();
    }
    t.stack_depth = top;
    t.current = t.stack_prev[top];
    t.flags &= kNoPluginDetailPending; // beginPluginCall
    const infiniStatus_t st = t.stack_restore[top](t.stack_pushed[top].id, t.stack_state[top]);
    if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
        return entryCallFailed("thread_state_restore", st);
    }
    return successAsIs(st);
}

// A pop whose caller asked for outputs: the device current after the pop. Out of line, so that a
// pop without outputs keeps nothing in registers across the plugin call.
__attribute__((noinline)) infiniStatus_t popReporting(infiniDevice_t *device, int *device_id) {
    const infiniStatus_t popped = popEntry();
    if (popped != INFINI_STATUS_SUCCESS) {
        return popped;
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

// The push of a valid (type, id) of the ready backend `b`.
INFINIRT_INLINE infiniStatus_t pushOn(Backend *b, int type, int id) {
    infinirtPluginSetDeviceSavingFn *const fused = b->table.set_device_saving;
    if (fused == nullptr) {
        return pushWithoutFused(b, type, id);
    }
    return pushFused(b, fused, type, id);
}

// A push that readyBackend did not answer: the refusal, or the push once the loader is ready (out
// of line, so that the push keeps nothing across a call before its plugin's).
__attribute__((noinline)) infiniStatus_t pushNotReady(int type, int id) {
    const infiniStatus_t st = readyBackendRefused(type, id);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    return pushOn(g_registry.by_type[type], type, id);
}

} // namespace

infiniStatus_t infinirt::noThreadStateRestore(int, void *) { return INFINI_STATUS_SUCCESS; }

extern "C" {

__export infiniStatus_t infinirtPushDevice(infiniDevice_t device, int device_id) {
    // No INFINIRT_ENTER: readyBackend answers whether the loader is ready too.
    const int type = enumInt(device);
    Backend *const b = readyBackend(type, device_id);
    if (INFINIRT_UNLIKELY(b == nullptr)) {
        return pushNotReady(type, device_id);
    }
    return pushOn(b, type, device_id);
}

__export infiniStatus_t infinirtPopDevice(infiniDevice_t *device, int *device_id) {
    // No INFINIRT_ENTER: an empty stack's refusal checks (stackEmpty).
    if (device != nullptr || device_id != nullptr) {
        return popReporting(device, device_id);
    }
    return popEntry(); // no outputs: nothing of the call is needed after the plugin's
}

} // extern "C"
