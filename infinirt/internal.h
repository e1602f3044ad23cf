// Private declarations of libinfinirt (the loader). Never included by plugins or the core.
#pragma once

#include "allocation_record.h"
#include "infinirt_plugin.h"

#include <atomic>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#if defined(__GNUC__)
#define INFINIRT_LIKELY(x) __builtin_expect(!!(x), 1)
#define INFINIRT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define INFINIRT_COLD __attribute__((cold, noinline))
#define INFINIRT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define INFINIRT_HIDDEN __attribute__((visibility("hidden")))
// Hot-path helpers the compiler would otherwise call out of line (each call there reads the
// thread-local state again).
#define INFINIRT_INLINE inline __attribute__((always_inline))
#else
#define INFINIRT_LIKELY(x) (x)
#define INFINIRT_UNLIKELY(x) (x)
#define INFINIRT_COLD
#define INFINIRT_PRINTF(f, a)
#define INFINIRT_HIDDEN
#define INFINIRT_INLINE inline
#endif

namespace infinirt {

constexpr int kTypeCount = INFINI_DEVICE_TYPE_COUNT;

// The integer a caller (or a plugin) put in an enum-typed argument or field, read as bytes: a C
// caller may pass any int, and loading an out-of-range value as the C enum type is undefined
// behaviour in C++ (UBSan: "load of value -1, which is not a valid value for type"). Every enum
// that crosses the ABI is range-checked through this before it is used as its type.
template <typename E> inline int enumInt(const E &e) {
    static_assert(sizeof(E) == sizeof(int), "C enums crossing the ABI are int-sized");
    int v;
    std::memcpy(&v, &e, sizeof v);
    return v;
}

// ---- errors and logging (errors.cpp) ----------------------------------------------------------

// The rule: the calling thread's last-error message is written only by an infinirt call of that
// thread that returns a failure status, and it describes that failure. Successful calls, answers
// that are not failures (NOT_READY from stream_query or event_query), probes, cleanup and the
// loading of the plugins (whose failures go to the backend's reason and the log) never write it.
//
// A plugin's detail (host->set_error) belongs to the one plugin call that set it:
// beginPluginCall() drops whatever is pending just before each plugin call whose status the loader
// may report (one thread-local store, the only cost on the success path), and only the failure
// path of that same call reads it, consuming it (takePluginDetail, pluginFailed). A detail set
// anywhere else (a call that succeeded or answered NOT_READY, the pointer probe, cleanup) is never
// read, so it can never be attached to a later, unrelated failure. The fast paths of the queries
// (stream_query, event_query: no side effect) skip beginPluginCall; on a failure they ask again,
// after it, and the second answer is the call's.

// Records the calling thread's last-error detail and returns `status`. Cold: only failures call it.
INFINIRT_COLD infiniStatus_t fail(infiniStatus_t status, const char *fmt, ...) INFINIRT_PRINTF(2, 3);
// Turns a failed plugin call into the thread's last error: the plugin's own detail if it gave one
// during this call, else a generic text naming the call. Only right after a plugin call made
// through beginPluginCall() (INFINIRT_PLUGIN_STATUS / INFINIRT_CALL in dispatch.h).
INFINIRT_COLD infiniStatus_t pluginFailed(const char *backend, int device, const char *call, infiniStatus_t status);
// The detail the plugin gave during the call that just returned, consumed; nullptr if it gave
// none. Valid until the thread's next plugin call. Same precondition as pluginFailed.
const char *takePluginDetail();
struct HandleSlot;
struct Backend;
// The calling thread's current device.
struct CurrentDevice {
    int type; // -1: not chosen yet on this thread (takes the process default)
    int id;
};
constexpr long kDeviceStackDepth = 64;
// One entry of a thread's device stack, in one cache line (a push writes, and its pop reads, one
// line besides the thread's current device): infinirt's current device before the push, the
// backend and device id pushed, the pushed backend's native state as it was (thread_state_save's
// answer; meaningful where that backend has thread_state_restore), and what the pop calls (the
// backend's pop_restore, kept in the entry so that the pop's call waits for no load through the
// backend).
struct alignas(64) DeviceStackEntry {
    CurrentDevice prev;
    const Backend *backend;
    void *state;
    infiniStatus_t (*restore)(int device, void *state);
    int id;
};
static_assert(sizeof(DeviceStackEntry) == 64, "a device stack entry is one cache line");
// The thread's per-thread state that the hot entries touch, in one thread-local object, so that a
// call computes its address once (one TLS descriptor call). Plain __thread of a trivial type with
// a constant initialiser (errors.cpp): other translation units read it without a TLS wrapper
// function, and the library's TLS descriptors (CMakeLists.txt) keep the access a few instructions
// while ctypes and others can still dlopen the library. A new thread starts with the initialiser:
// no current device chosen, an empty device stack.
// ThreadHot::flags, these two bits and no other: markSubmitting (capture.h) reads "registered" as
// "what is left after dropping the pending detail is not zero".
constexpr uint8_t kPluginDetailPending = 1; // set by host->set_error on the calling thread; see beginPluginCall
constexpr uint8_t kSubmitterRegistered = 2; // capture.h: `submitting` is registered for the begin of a capture to see
constexpr uint8_t kNoPluginDetailPending = static_cast<uint8_t>(~kPluginDetailPending); // the mask that drops it
struct ThreadHot {
    // kPluginDetailPending and kSubmitterRegistered (one byte: a submission drops the one and
    // tests the other with one instruction).
    uint8_t flags;
    // capture.h: the stream this thread is submitting to outside the capture lock (nullptr: none).
    std::atomic<const HandleSlot *> submitting;
    // The thread's current device (infinirtSetDevice, infinirtGetDevice, the NULL stream).
    CurrentDevice current;
    // What was current while infinirtSetDevice's set_device runs (`current` is already the new
    // device then): a failure puts it back (dispatch.h, makeCurrent).
    CurrentDevice switch_undo;
    // The thread's device stack (api_device_stack.cpp): stack_top is the byte offset of its first
    // free entry in `stack` (the depth times sizeof(DeviceStackEntry)), so that a push adds and a
    // pop subtracts the entry's size in place, the pop testing the sign with the same instruction,
    // and neither scales an index to find its entry.
    long stack_top;
    DeviceStackEntry stack[kDeviceStackDepth];
    // thread_state_save where it failed in a push (pushSavingThenSetting), for the push's message;
    // nullptr otherwise.
    const char *push_failed_call;
    // The thread's answers from the allocation record (allocations.h): the copy, fill and launch
    // paths read them with the same TLS access as the fields above.
    detail::LookupCache lookups;
};
extern __thread ThreadHot t_hot INFINIRT_HIDDEN;
// Reading ThreadHot relative to the thread pointer, for an entry that reads a field or two and
// nothing else (infinirtGetDevice): threadHotOffset() is the object's offset from the thread
// pointer, which GCC takes straight from the TLS descriptor call, and tpLoad<R, Field>(off) reads
// the 4-byte field at `off + Field` through %fs, widened to R, without forming the absolute
// address (one instruction fewer than `&t_hot`). x86-64 with GCC, without sanitizers (whose
// checks would not see these reads); elsewhere the entries read t_hot. threadHot() below adds
// the same offset to the thread pointer.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define INFINIRT_TP_RELATIVE 1
INFINIRT_INLINE uintptr_t threadHotOffset() {
    return reinterpret_cast<uintptr_t>(&t_hot) - reinterpret_cast<uintptr_t>(__builtin_thread_pointer());
}
template <typename R, size_t Field>
INFINIRT_INLINE R tpLoad(uintptr_t off) {
    static_assert(sizeof(R) == 8 || sizeof(R) == 4, "tpLoad reads a 4-byte field into an int or a long");
    R value;
    if constexpr (sizeof(R) == 8) {
        __asm__ volatile("movslq %%fs:%c2(%1), %0" : "=r"(value) : "r"(off), "i"(Field) : "memory");
    } else {
        __asm__ volatile("movl %%fs:%c2(%1), %0" : "=r"(value) : "r"(off), "i"(Field) : "memory");
    }
    return value;
}
#else
#define INFINIRT_TP_RELATIVE 0
#endif
// The address of the calling thread's ThreadHot, computed once, for a function that uses it on
// both sides of a call: GCC would otherwise compute it again (a TLS descriptor call) after each
// call, or for each atomic access, unless it is pinned in a register.
INFINIRT_INLINE ThreadHot *threadHot() {
#if INFINIRT_TP_RELATIVE
    // The descriptor call's answer, the offset, added to the thread pointer once pinned: GCC would
    // otherwise materialise the descriptor's address in a register of its own first.
    uintptr_t off = threadHotOffset();
    __asm__("" : "+r"(off));
    ThreadHot *pinned = reinterpret_cast<ThreadHot *>(off + reinterpret_cast<uintptr_t>(__builtin_thread_pointer()));
#else
    ThreadHot *pinned = &t_hot;
#endif
#if defined(__GNUC__)
    __asm__("" : "+r"(pinned));
#endif
    return pinned;
}
// `st`, which the caller has just found to be SUCCESS, returned as it is: without the barrier GCC
// sets the return register to the constant again after the test.
INFINIRT_INLINE infiniStatus_t successAsIs(infiniStatus_t st) {
#if defined(__GNUC__)
    __asm__("" : "+r"(st));
#endif
    return st;
}
// Drops any detail pending on the calling thread; called right before a plugin call.
inline void beginPluginCall() { t_hot.flags &= kNoPluginDetailPending; }
// Logs at `level` when INFINIRT_LOG allows it.
void logf(infinirtLogLevel_t level, const char *fmt, ...) INFINIRT_PRINTF(2, 3);
// The services handed to every plugin.
const infinirtPluginHost_t *pluginHost();
// Formats a byte count as "2.0 TiB".
std::string formatBytes(size_t bytes);

// ---- backends (registry.cpp) -------------------------------------------------------------------

struct Backend {
    infinirtPluginTable_t table{};   // the plugin's table, widened to our size; missing entries NULL
    std::string name;
    std::string path;
    std::string reason;
    infiniDevice_t type = INFINI_DEVICE_TYPE_COUNT;
    uint32_t version = 0;
    int device_count = 0;
    infinirtBackendState_t state = INFINIRT_BACKEND_FAILED;
    // What the plugin says of itself (get_plugin_traits; the defaults where it has none), asked
    // once after init. The strings are the plugin's (static storage), never NULL.
    infinirtPluginTraits_t traits{};
    // Per device: 1 where its memory is ordinary host memory (traits.device_memory_is_host, or
    // where that is 2 the device's properties), asked once with the device count.
    std::vector<unsigned char> memory_is_host;
    // What a push calls to make a device of this backend current, saving the thread's native
    // state into *state (api_device_stack.cpp): the table's set_device_saving (layers included),
    // else the loader's pushSavingThenSetting, pushSetting or pushNothing, by the entries the backend
    // has; set once the tables are final, never NULL then.
    infinirtPluginSetDeviceSavingFn *push_switch = nullptr;
    // What a pop calls for an entry this backend pushed: the table's thread_state_restore (layers
    // included), or noThreadStateRestore where the backend has no native thread state; set with
    // push_switch, never NULL then.
    infinirtPluginThreadStateRestoreFn *pop_restore = nullptr;
};
// pop_restore of a backend without native thread state: does nothing, answers SUCCESS.
infiniStatus_t noThreadStateRestore(int device, void *state);
// push_switch of a backend without set_device_saving, called with `state` in the pushed entry:
// thread_state_save, then set_device where the backend has it; set_device (a backend without native
// thread state); nothing (a backend with neither). A failure of thread_state_save is named in
// ThreadHot::push_failed_call.
infiniStatus_t pushSavingThenSetting(int device, void **state);
infiniStatus_t pushSetting(int device, void **state);
infiniStatus_t pushNothing(int device, void **state);

// traits.device_memory_is_host's value for "each device's get_device_properties says"
// (infinirt_plugin.h); any other value but 0 means every device.
constexpr int kMemoryIsHostPerDevice = 2;
// Whether the memory of every device of `b` is host memory (the cpu backend's traits).
inline bool backendMemoryIsHost(const Backend *b) {
    const int says = b->traits.device_memory_is_host;
    return says != 0 && says != kMemoryIsHostPerDevice;
}

struct Registry {
    // All plugins found, in search order (owned, never freed: no teardown at exit).
    Backend *backends = nullptr;
    int backend_count = 0;
    // The backend serving each device type (LOADED or UNAVAILABLE), or nullptr.
    Backend *by_type[kTypeCount] = {};
    int device_count[kTypeCount] = {};
    // Process default device; default_type == kTypeCount when there is no device at all.
    int default_type = kTypeCount;
    int default_id = 0;
};

// LoadFailed: host memory ran out while the plugins were loading; every call fails OUT_OF_MEMORY.
enum class LoaderState : int { Uninitialised = 0, Ready = 1, ForkedChild = 2, LoadFailed = 3 };
extern std::atomic<int> g_state;
extern Registry g_registry;
// g_registry.by_type as the calls may use it: published (release) once the loader is Ready, and
// emptied in a forked child, so that one acquire load answers both "ready?" and "which backend?"
// (readyBackend). nullptr until then, and for a type no backend serves.
extern std::atomic<Backend *> g_ready_backends[kTypeCount] INFINIRT_HIDDEN;

// Loads the plugins once; thread-safe. Returns SUCCESS or why the loader cannot serve calls.
INFINIRT_COLD infiniStatus_t initSlow();
inline infiniStatus_t ensureInit() {
    if (INFINIRT_LIKELY(g_state.load(std::memory_order_acquire) == static_cast<int>(LoaderState::Ready))) {
        return INFINI_STATUS_SUCCESS;
    }
    return initSlow();
}

// Short name of a device type for messages: "cpu", "nvidia", ...
const char *typeName(int type);

// ---- the thread's current device --------------------------------------------------------------

// Resolves the calling thread's current device. Fails with DEVICE_NOT_FOUND when none exists.
INFINIRT_COLD infiniStatus_t currentDeviceSlow(Backend *&backend, int &type, int &id);
INFINIRT_INLINE infiniStatus_t currentDevice(Backend *&backend, int &type, int &id) {
    const CurrentDevice &c = t_hot.current;
    if (INFINIRT_LIKELY(c.type >= 0)) {
        type = c.type;
        id = c.id;
        backend = g_registry.by_type[type];
        return INFINI_STATUS_SUCCESS;
    }
    return currentDeviceSlow(backend, type, id);
}

// Validates a (type, id) pair against the loaded backends.
INFINIRT_COLD infiniStatus_t refuseDevice(int type, int id);
// Why readyBackend gave nullptr for (type, id): loads the plugins if nobody did (or reports why
// the loader cannot serve calls), then checks the pair. SUCCESS when it is valid after all (the
// process's first call): its backend is g_registry.by_type[type].
INFINIRT_COLD infiniStatus_t readyBackendRefused(int type, int id);
INFINIRT_INLINE infiniStatus_t checkDevice(int type, int id, Backend *&backend) {
    if (INFINIRT_LIKELY(static_cast<unsigned>(type) < static_cast<unsigned>(kTypeCount))) {
        backend = g_registry.by_type[type];
        if (INFINIRT_LIKELY(backend != nullptr && static_cast<unsigned>(id) < static_cast<unsigned>(backend->device_count))) {
            return INFINI_STATUS_SUCCESS;
        }
    }
    return refuseDevice(type, id);
}

// The backend of a valid (type, id), for an entry with no INFINIRT_ENTER of its own (SetDevice,
// PushDevice): from g_ready_backends, which is empty until the loader is ready and in a forked
// child. nullptr otherwise: the entry then asks readyBackendRefused.
INFINIRT_INLINE Backend *readyBackend(int type, int id) {
    const size_t index = static_cast<unsigned>(type); // the one zero-extension: it indexes and is the type
    if (INFINIRT_LIKELY(index < static_cast<size_t>(kTypeCount))) {
        Backend *const backend = g_ready_backends[index].load(std::memory_order_acquire);
        if (INFINIRT_LIKELY(backend != nullptr &&
                            static_cast<unsigned>(id) < static_cast<unsigned>(backend->device_count))) {
            return backend;
        }
    }
    return nullptr;
}

} // namespace infinirt
