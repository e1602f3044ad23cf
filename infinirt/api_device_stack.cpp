// C ABI: the calling thread's device stack (infinirtPushDevice, infinirtPopDevice).
//
// Each entry (in the thread's ThreadHot: internal.h) remembers infinirt's current device before the
// push and, where the pushed device's backend has native per-thread state (thread_state_save), that
// state as it was: a pop gives both back exactly, so a library can switch devices without
// disturbing its caller, whatever the caller had made current natively (a CUDA context of its own,
// or none). A push calls its backend's push_switch: set_device_saving, which saves and switches in
// one plugin call, or the loader's own (internal.h), which call thread_state_save and set_device
// where the backend has them. A pop calls the pushed backend's pop_restore.
#include "dispatch.h"

using namespace infinirt;

namespace {

constexpr long kEntryBytes = sizeof(DeviceStackEntry);

// The entry at byte offset `top` of the thread's stack (ThreadHot::stack_top).
INFINIRT_INLINE DeviceStackEntry &entryAt(ThreadHot &t, long top) {
    return *reinterpret_cast<DeviceStackEntry *>(reinterpret_cast<char *>(t.stack) + top);
}

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

// The failure of plugin call `call` for the entry at stack_top: the push just undone, or the one
// just popped (its entry still intact).
INFINIRT_COLD infiniStatus_t entryCallFailed(const char *call, infiniStatus_t st) {
    ThreadHot &t = t_hot;
    const DeviceStackEntry &e = entryAt(t, t.stack_top);
    return pluginFailed(e.backend->name.c_str(), e.id, call, st);
}

// A push whose push_switch failed: the push is undone (the entry off the stack, infinirt's current
// device back to what it was). The call named is the one that failed: set_device_saving, or
// thread_state_save (pushSavingThenSetting names it) or set_device.
INFINIRT_COLD infiniStatus_t pushFailed(infiniStatus_t st) {
    ThreadHot &t = t_hot;
    t.stack_top -= kEntryBytes;
    t.current = entryAt(t, t.stack_top).prev;
    const char *call = t.push_failed_call;
    t.push_failed_call = nullptr;
    if (call == nullptr) {
        const Backend *const b = entryAt(t, t.stack_top).backend;
        call = b->push_switch == b->table.set_device_saving ? "set_device_saving" : "set_device";
    }
    return entryCallFailed(call, st);
}

// Pops the thread's top entry: infinirt's current device back to the entry's, then the pushed
// backend's native state, through its pop_restore as the entry recorded it (thread_state_restore,
// which the registry pairs with thread_state_save, so where it exists the state was saved; a no-op
// for a backend without native thread state). The entry is popped even when the restore fails.
INFINIRT_INLINE infiniStatus_t popEntry() {
    ThreadHot &t = t_hot;
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
    bool empty; // the top is lowered in place, its sign tested by the same instruction
    __asm__("subq %2, %0" : "+m"(t.stack_top), "=@ccs"(empty) : "i"(kEntryBytes));
    if (INFINIRT_UNLIKELY(empty)) {
        t.stack_top = 0;
        return stackEmpty();
    }
    const long top = t.stack_top;
#else
    const long top = t.stack_top - kEntryBytes;
    if (INFINIRT_UNLIKELY(top < 0)) {
        return stackEmpty();
    }
    t.stack_top = top;
#endif
    const DeviceStackEntry &e = entryAt(t, top);
    t.current = e.prev;
    t.flags &= kNoPluginDetailPending; // beginPluginCall
    const infiniStatus_t st = e.restore(e.id, e.state);
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

// The push of a valid (type, id) of the ready backend `b`: the entry is recorded and (type, id)
// made infinirt's current device before the plugin call, so that nothing of the push is needed
// after it (a failure undoes it: pushFailed).
INFINIRT_INLINE infiniStatus_t pushOn(const Backend *b, int type, int id) {
    infinirtPluginSetDeviceSavingFn *const push_switch = b->push_switch;
    ThreadHot &t = t_hot;
    const long top = t.stack_top;
    if (INFINIRT_UNLIKELY(top >= kDeviceStackDepth * kEntryBytes)) {
        return stackFull();
    }
    DeviceStackEntry &e = entryAt(t, top);
    e.prev = t.current;
    e.backend = b;
    e.id = id;
    e.restore = b->pop_restore;
    t.current = CurrentDevice{type, id};
#if defined(__x86_64__) && defined(__GNUC__)
    __asm__("addq %1, %0" : "+m"(t.stack_top) : "i"(kEntryBytes)); // where GCC would form top + size and store it
#else
    t.stack_top = top + kEntryBytes;
#endif
    t.flags &= kNoPluginDetailPending; // beginPluginCall
    const infiniStatus_t st = push_switch(id, &e.state);
    if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
        return pushFailed(st);
    }
    return successAsIs(st);
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

namespace {
// The backend of the push whose entry's state slot is `state` (DeviceStackEntry::state): the
// entry's, found from the slot's address (no thread-local access).
INFINIRT_INLINE const Backend *pushedBackend(void **state) {
    const char *const entry = reinterpret_cast<const char *>(state) - offsetof(DeviceStackEntry, state);
    return reinterpret_cast<const DeviceStackEntry *>(entry)->backend;
}
} // namespace

// The push has begun the plugin call: these make theirs directly. A failure of set_device is
// named by pushFailed; thread_state_save's names itself.
infiniStatus_t infinirt::pushSavingThenSetting(int id, void **state) {
    const Backend *const b = pushedBackend(state);
    const infiniStatus_t st = b->table.thread_state_save(id, state);
    if (st != INFINI_STATUS_SUCCESS) {
        t_hot.push_failed_call = "thread_state_save";
        return st;
    }
    if (infinirtPluginSetDeviceFn *const set_device = b->table.set_device) {
        return set_device(id);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t infinirt::pushSetting(int id, void **state) { return pushedBackend(state)->table.set_device(id); }

infiniStatus_t infinirt::pushNothing(int, void **) { return INFINI_STATUS_SUCCESS; }

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
