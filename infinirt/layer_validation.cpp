// The validation layer (INFINIRT_VALIDATION=1): its own record of every allocation and plugin
// object made through the wrapped tables, a bounded record of recent frees and destroys (a freed
// range the backend hands out again, as an allocation or a module global, or that the backend's
// pointer_get_attributes says is live memory, is not called freed), and the
// calls in flight on each object. Refuses (BAD_PARAM / INVALID_HANDLE, the detail naming the call,
// the pointer and the allocation) what would corrupt memory or crash; reports on stderr what
// works but is likely a mistake; prints the leak report at exit. One mutex: this layer is for
// finding bugs, not for speed.
#include "layers.h"
#include "never_destroyed.h"

#include <algorithm>
#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <unistd.h>
#include <vector>

namespace infinirt {

namespace {

const char *kLayer = "validation";
constexpr size_t kFreedRecord = 4096; // recent frees and destroys remembered
constexpr int kReportsPerKind = 20;   // reports of one kind before they are suppressed


struct Origin {
    Entry entry = Entry::Count;
    long thread = 0;
    uint64_t seq = 0;
};

struct Memory {
    uintptr_t base = 0;
    size_t size = 0;
    int type = 0;
    int device = 0;
    Entry kind = Entry::malloc_device; // the creating entry says which memory
    Origin created;
};

struct Object {
    Arg kind = Arg::Stream;
    int type = 0;
    int device = 0;
    uintptr_t parent = 0; // a kernel's module
    Origin created;
    int in_flight = 0;
    Origin last_use; // the most recent call that entered on it
    bool dying = false;
};

struct Freed {
    Memory memory;
    Origin freed;
};

struct Gone {
    Object object;
    uintptr_t native = 0;
    Origin destroyed;
};

struct State {
    std::mutex mutex;
    std::condition_variable idle;
    std::map<uintptr_t, Memory> memory;
    std::map<std::pair<int, uintptr_t>, Object> objects;
    std::deque<Freed> freed;
    std::deque<Gone> gone;
    uint64_t seq = 0;
    int reports[8] = {};
};

State &state() {
    static NeverDestroyed<State> s_storage; // never destroyed: the exit report and late calls use it
    State *const s = &s_storage.get();
    return *s;
}

const char *memoryKind(Entry e) {
    switch (e) {
    case Entry::malloc_host: return "pinned host memory";
    case Entry::malloc_async: return "stream-ordered device memory";
    case Entry::mem_map: return "mapped device memory";
    default: return "device memory";
    }
}

const char *objectKind(Arg a) {
    switch (a) {
    case Arg::Stream: case Arg::OutStream: case Arg::DestroyStream: return "stream";
    case Arg::Event: case Arg::OutEvent: case Arg::DestroyEvent: return "event";
    case Arg::Graph: case Arg::OutGraph: case Arg::DestroyGraph: return "graph";
    case Arg::Exec: case Arg::OutExec: case Arg::DestroyExec: return "graph exec";
    case Arg::Module: case Arg::OutModule: case Arg::DestroyModule: return "module";
    case Arg::Kernel: case Arg::OutKernel: return "kernel";
    default: return "object";
    }
}

// The in-use role of a creating or destroying role.
Arg baseKind(Arg a) {
    switch (a) {
    case Arg::OutStream: case Arg::DestroyStream: return Arg::Stream;
    case Arg::OutEvent: case Arg::DestroyEvent: return Arg::Event;
    case Arg::OutGraph: case Arg::DestroyGraph: return Arg::Graph;
    case Arg::OutExec: case Arg::DestroyExec: return Arg::Exec;
    case Arg::OutModule: case Arg::DestroyModule: return Arg::Module;
    case Arg::OutKernel: return Arg::Kernel;
    default: return a;
    }
}

bool isUse(Arg a) {
    return a == Arg::Stream || a == Arg::Event || a == Arg::Graph || a == Arg::Exec || a == Arg::Module ||
           a == Arg::Kernel;
}
bool isCreate(Arg a) {
    return a == Arg::OutStream || a == Arg::OutEvent || a == Arg::OutGraph || a == Arg::OutExec ||
           a == Arg::OutModule || a == Arg::OutKernel;
}
bool isDestroy(Arg a) {
    return a == Arg::DestroyStream || a == Arg::DestroyEvent || a == Arg::DestroyGraph || a == Arg::DestroyExec ||
           a == Arg::DestroyModule;
}

Origin origin(State &s, Entry e) { return Origin{e, layerThreadId(), ++s.seq}; }

std::string describe(const Memory &m) {
    char text[256];
    std::snprintf(text, sizeof text, "%#" PRIxPTR " (%zu bytes, %s on %s:%d, allocated by %s on thread %ld, call #%" PRIu64 ")",
                  m.base, m.size, memoryKind(m.kind), typeName(m.type), m.device, entryApi(m.created.entry),
                  m.created.thread, m.created.seq);
    return text;
}

// Caller holds the lock.
const Memory *holding(State &s, uintptr_t p) {
    auto it = s.memory.upper_bound(p);
    if (it == s.memory.begin()) {
        return nullptr;
    }
    --it;
    return p < it->first + std::max<size_t>(it->second.size, 1) ? &it->second : nullptr;
}

bool overlaps(const Memory &m, uintptr_t base, size_t size) {
    return base < m.base + std::max<size_t>(m.size, 1) && m.base < base + std::max<size_t>(size, 1);
}

// The backend made [base, base + size) live again (an allocation, a module global): the frees
// recorded there no longer say anything about it.
void forgetFreed(State &s, uintptr_t base, size_t size) {
    s.freed.erase(std::remove_if(s.freed.begin(), s.freed.end(),
                                 [&](const Freed &f) { return overlaps(f.memory, base, size); }),
                  s.freed.end());
}

// The most recent free recorded at `p`, unless the backend that made that allocation now knows
// `p` as live memory: the driver reuses freed ranges for memory infinirt never sees (allocated
// natively by the caller, a framework's pool). Caller holds the lock; the plugin's own entry is
// asked (never blocks; the wrappers would take the lock again).
const Freed *recentlyFreed(State &s, uintptr_t p) {
    for (auto it = s.freed.rbegin(); it != s.freed.rend(); ++it) {
        if (!overlaps(it->memory, p, 1)) {
            continue;
        }
        infinirtPluginPointerGetAttributesFn *ask = layerNext(it->memory.type).pointer_get_attributes;
        infinirtPointerAttributes_t a{};
        a.struct_size = sizeof a;
        if (ask != nullptr && ask(reinterpret_cast<const void *>(p), &a) == INFINI_STATUS_SUCCESS &&
            a.kind != INFINIRT_MEMORY_UNKNOWN) {
            return nullptr;
        }
        return &*it;
    }
    return nullptr;
}

INFINIRT_COLD infiniStatus_t refuse(infiniStatus_t st, const char *fmt, ...) INFINIRT_PRINTF(2, 3);
infiniStatus_t refuse(infiniStatus_t st, const char *fmt, ...) {
    char text[900];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    layerReport(kLayer, "%s", text);
    pluginHost()->set_error((std::string("validation: ") + text).c_str());
    return st;
}

// Reports a finding that does not stop the call, at most kReportsPerKind times per kind.
enum class Kind { CrossDevice, CrossBackendWait, ElapsedAcrossDevices, DestroyInUse };
bool shouldReport(State &s, Kind k) {
    int &n = s.reports[static_cast<int>(k)];
    if (n == kReportsPerKind) {
        layerReport(kLayer, "(further reports of this kind suppressed)");
    }
    return n++ < kReportsPerKind;
}

// A device-side range [p, p + size) used by call `c` as `what`.
infiniStatus_t checkRange(State &s, const LayerCall &c, const char *what, uintptr_t p, size_t size, bool device_side) {
    if (p == 0) {
        return INFINI_STATUS_SUCCESS;
    }
    if (const Memory *m = holding(s, p)) {
        const uintptr_t end = m->base + m->size;
        if (size > end - p) {
            return refuse(INFINI_STATUS_BAD_PARAM, "%s: %s %#" PRIxPTR " + %zu bytes overruns the allocation %s by %zu bytes",
                          entryApi(c.entry), what, p, size, describe(*m).c_str(), static_cast<size_t>(size - (end - p)));
        }
        return INFINI_STATUS_SUCCESS;
    }
    if (device_side) {
        if (const Freed *f = recentlyFreed(s, p)) {
            return refuse(INFINI_STATUS_BAD_PARAM,
                          "%s: %s %#" PRIxPTR " uses freed memory: it lies in the allocation %s, freed by %s on thread %ld (call #%" PRIu64 ")",
                          entryApi(c.entry), what, p, describe(f->memory).c_str(), entryApi(f->freed.entry),
                          f->freed.thread, f->freed.seq);
        }
    }
    return INFINI_STATUS_SUCCESS;
}

// Device memory of another device than the stream's, used by a call queued on that stream.
void checkDeviceOf(State &s, const LayerCall &c, const char *what, uintptr_t p) {
    const Memory *m = p != 0 ? holding(s, p) : nullptr;
    if (m == nullptr || m->kind == Entry::malloc_host || (m->type == c.type && m->device == c.device())) {
        return;
    }
    if (shouldReport(s, Kind::CrossDevice)) {
        layerReport(kLayer, "%s: %s %#" PRIxPTR " is in %s, used on a stream of %s:%d, which has no peer access to it",
                    entryApi(c.entry), what, p, describe(*m).c_str(), typeName(c.type), c.device());
    }
}

infiniStatus_t checkKernelArgs(State &s, const LayerCall &c, uintptr_t args_value, uint64_t count) {
    const auto *args = reinterpret_cast<const infinirtKernelArg_t *>(args_value);
    for (uint64_t i = 0; args != nullptr && i < count; ++i) {
        if (args[i].kind != INFINIRT_KERNEL_ARG_POINTER || args[i].value == nullptr) {
            continue;
        }
        const uintptr_t p = reinterpret_cast<uintptr_t>(*static_cast<void *const *>(args[i].value));
        char what[48];
        std::snprintf(what, sizeof what, "POINTER argument %" PRIu64, i);
        const infiniStatus_t st = checkRange(s, c, what, p, 1, true);
        if (st != INFINI_STATUS_SUCCESS) {
            return st;
        }
        checkDeviceOf(s, c, what, p);
    }
    return INFINI_STATUS_SUCCESS;
}

Object *findObject(State &s, int type, uintptr_t native) {
    auto it = s.objects.find({type, native});
    return it == s.objects.end() ? nullptr : &it->second;
}

INFINIRT_COLD infiniStatus_t usedAfterDestroy(State &s, const LayerCall &c, Arg role, uintptr_t native) {
    for (auto it = s.gone.rbegin(); it != s.gone.rend(); ++it) {
        if (it->native == native && it->object.type == c.type) {
            return refuse(INFINI_STATUS_INVALID_HANDLE,
                          "%s: %s %#" PRIxPTR " of %s:%d was destroyed by %s on thread %ld (call #%" PRIu64 ") while this "
                          "call was on its way to it: destroying a handle another thread is using is the caller's error",
                          entryApi(c.entry), objectKind(role), native, typeName(c.type), it->object.device,
                          entryApi(it->destroyed.entry), it->destroyed.thread, it->destroyed.seq);
        }
    }
    return INFINI_STATUS_SUCCESS; // never seen: made before the layer, or by the loader itself
}

// Mapped memory: [base, base + size) of (type, device) joins the record, merged with mapped
// neighbours of the same device that touch it, so that ranges across the seams between physical
// allocations check like one allocation (as the loader's own record does). Caller holds the lock.
void recordMapped(State &s, const LayerCall &c, uintptr_t base, size_t size) {
    Memory m;
    m.base = base;
    m.size = size;
    m.type = c.type;
    m.device = c.device();
    m.kind = Entry::mem_map;
    m.created = origin(s, c.entry);
    auto mergeable = [&](const Memory &n) {
        return n.kind == Entry::mem_map && n.type == m.type && n.device == m.device;
    };
    auto after = s.memory.find(base + size);
    if (after != s.memory.end() && mergeable(after->second)) {
        m.size += after->second.size;
        s.memory.erase(after);
    }
    auto before = s.memory.lower_bound(base);
    if (before != s.memory.begin()) {
        --before;
        if (before->first + before->second.size == base && mergeable(before->second)) {
            m.base = before->first;
            m.size += before->second.size;
            m.created = before->second.created;
            s.memory.erase(before);
        }
    }
    s.memory[m.base] = m;
    forgetFreed(s, base, size);
}

// [base, base + size) is no longer mapped: cut out of the mapped records it lies in (the pieces
// outside it stay), and remembered as freed. Caller holds the lock.
void recordUnmapped(State &s, const LayerCall &c, uintptr_t base, size_t size) {
    const uintptr_t end = base + size;
    auto it = s.memory.lower_bound(base);
    if (it != s.memory.begin() && std::prev(it)->first + std::prev(it)->second.size > base) {
        --it;
    }
    while (it != s.memory.end() && it->first < end) {
        const Memory m = it->second;
        it = s.memory.erase(it);
        if (m.kind != Entry::mem_map) {
            s.memory[m.base] = m; // not mapped memory: left as it was
            continue;
        }
        if (m.base < base) {
            Memory head = m;
            head.size = base - m.base;
            s.memory[head.base] = head;
        }
        if (m.base + m.size > end) {
            Memory tail = m;
            tail.base = end;
            tail.size = m.base + m.size - end;
            s.memory[tail.base] = tail;
        }
        it = s.memory.upper_bound(m.base);
    }
    Memory gone;
    gone.base = base;
    gone.size = size;
    gone.type = c.type;
    gone.device = c.device();
    gone.kind = Entry::mem_map;
    s.freed.push_back(Freed{gone, origin(s, c.entry)});
    if (s.freed.size() > kFreedRecord) {
        s.freed.pop_front();
    }
}

} // namespace

void validationInit() { state(); }

infiniStatus_t validateBefore(const LayerCall &c) {
    State &s = state();
    std::unique_lock<std::mutex> lock(s.mutex);
    const size_t size = static_cast<size_t>(c.find(Arg::Size));
    const int64_t kind = static_cast<int64_t>(c.find(Arg::Value));
    const bool stream_call = c.entry == Entry::memcpy_async || c.entry == Entry::memset_async;
    for (int i = 0; i < c.argc; ++i) {
        const Arg role = c.roles[i];
        const uintptr_t v = static_cast<uintptr_t>(c.value[i]);
        infiniStatus_t st = INFINI_STATUS_SUCCESS;
        if (role == Arg::Dst || (role == Arg::Src && c.entry != Entry::pointer_get_attributes)) {
            // Which side is device memory: memsets always; copies by their kind (host memory
            // infinirt did not allocate may reuse the addresses of freed blocks).
            const bool is_copy = c.entry == Entry::memcpy_sync || c.entry == Entry::memcpy_async;
            const bool device_side =
                !is_copy || (role == Arg::Dst ? (kind == INFINIRT_MEMCPY_H2D || kind == INFINIRT_MEMCPY_D2D)
                                              : (kind == INFINIRT_MEMCPY_D2H || kind == INFINIRT_MEMCPY_D2D));
            st = checkRange(s, c, c.names[i], v, size, device_side);
            if (st == INFINI_STATUS_SUCCESS && stream_call) {
                checkDeviceOf(s, c, c.names[i], v);
            }
        } else if (role == Arg::KernelArgs) {
            st = checkKernelArgs(s, c, v, i + 1 < c.argc ? c.value[i + 1] : 0);
        } else if ((isUse(role) || isDestroy(role)) && v != 0) {
            Object *o = findObject(s, c.type, v);
            if (o == nullptr || o->dying) {
                st = o == nullptr ? usedAfterDestroy(s, c, role, v)
                                  : refuse(INFINI_STATUS_INVALID_HANDLE,
                                           "%s: %s %#" PRIxPTR " of %s:%d is being destroyed by another thread: using a "
                                           "handle while it is destroyed is the caller's error",
                                           entryApi(c.entry), objectKind(role), v, typeName(c.type), o->device);
            }
        }
        if (st != INFINI_STATUS_SUCCESS) {
            return st;
        }
    }
    // Accepted: note the calls in flight, and wait out those on an object about to be destroyed.
    for (int i = 0; i < c.argc; ++i) {
        const Arg role = c.roles[i];
        const uintptr_t v = static_cast<uintptr_t>(c.value[i]);
        Object *o = v != 0 && (isUse(role) || isDestroy(role)) ? findObject(s, c.type, v) : nullptr;
        if (o == nullptr) {
            continue;
        }
        if (isUse(role)) {
            ++o->in_flight;
            o->last_use = origin(s, c.entry);
            continue;
        }
        o->dying = true;
        if (o->in_flight > 0) {
            if (shouldReport(s, Kind::DestroyInUse)) {
                layerReport(kLayer,
                            "%s: %s %#" PRIxPTR " of %s:%d is destroyed while thread %ld is inside %s on it (the caller's "
                            "error, as in CUDA); waiting for that call to return before destroying it",
                            entryApi(c.entry), objectKind(role), v, typeName(c.type), o->device, o->last_use.thread,
                            entryApi(o->last_use.entry));
            }
            s.idle.wait(lock, [&] { return findObject(s, c.type, v)->in_flight == 0; });
        }
    }
    return INFINI_STATUS_SUCCESS;
}

void validateAfter(const LayerCall &c, infiniStatus_t st) {
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    const bool ok = st == INFINI_STATUS_SUCCESS;
    bool wake = false;
    for (int i = 0; i < c.argc; ++i) {
        const Arg role = c.roles[i];
        const uintptr_t v = static_cast<uintptr_t>(c.value[i]);
        if (v == 0) {
            continue;
        }
        if (isUse(role)) {
            if (Object *o = findObject(s, c.type, v)) {
                wake |= --o->in_flight == 0;
            }
        } else if (isDestroy(role)) {
            auto it = s.objects.find({c.type, v});
            if (it == s.objects.end()) {
                continue;
            }
            if (!ok) {
                it->second.dying = false;
                continue;
            }
            s.gone.push_back(Gone{it->second, v, origin(s, c.entry)});
            if (s.gone.size() > kFreedRecord) {
                s.gone.pop_front();
            }
            if (role == Arg::DestroyModule) { // its kernels go with it
                for (auto k = s.objects.begin(); k != s.objects.end();) {
                    k = k->second.kind == Arg::Kernel && k->second.parent == v && k->first.first == c.type
                            ? s.objects.erase(k)
                            : std::next(k);
                }
            }
            s.objects.erase({c.type, v});
        } else if (ok && isCreate(role)) {
            const uintptr_t created = reinterpret_cast<uintptr_t>(*reinterpret_cast<void **>(v));
            Object o;
            o.kind = baseKind(role);
            o.type = c.type;
            o.device = c.device();
            o.parent = role == Arg::OutKernel ? static_cast<uintptr_t>(c.find(Arg::Module)) : 0;
            o.created = origin(s, c.entry);
            // The plugin may hand out the same kernel object again for the same name.
            s.objects.insert({{c.type, created}, o});
        } else if (ok && role == Arg::OutMem) {
            Memory m;
            m.base = reinterpret_cast<uintptr_t>(*reinterpret_cast<void **>(v));
            m.size = static_cast<size_t>(c.find(Arg::Size));
            m.type = c.type;
            m.device = c.device();
            m.kind = c.entry;
            m.created = origin(s, c.entry);
            s.memory[m.base] = m;
            forgetFreed(s, m.base, m.size);
        } else if (ok && role == Arg::OutGlobal) {
            const uintptr_t size_at = static_cast<uintptr_t>(c.find(Arg::OutGlobalSize));
            forgetFreed(s, reinterpret_cast<uintptr_t>(*reinterpret_cast<void **>(v)),
                        size_at != 0 ? *reinterpret_cast<const size_t *>(size_at) : 1);
        } else if (ok && role == Arg::Mapped) {
            recordMapped(s, c, v, static_cast<size_t>(c.find(Arg::Size)));
        } else if (ok && role == Arg::Unmapped) {
            recordUnmapped(s, c, v, static_cast<size_t>(c.find(Arg::Size)));
        } else if (ok && role == Arg::FreePtr) {
            auto it = s.memory.find(v);
            if (it != s.memory.end()) {
                s.freed.push_back(Freed{it->second, origin(s, c.entry)});
                if (s.freed.size() > kFreedRecord) {
                    s.freed.pop_front();
                }
                s.memory.erase(it);
            }
        }
    }
    if (wake) {
        s.idle.notify_all();
    }
}

namespace {
// A report about two devices `a` and `b`, from the loader's cold paths.
void reportPair(Kind k, const char *fmt, int type_a, int device_a, int type_b, int device_b) {
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (shouldReport(s, k)) {
        char text[512];
        std::snprintf(text, sizeof text, fmt, typeName(type_a), device_a, typeName(type_b), device_b);
        layerReport(kLayer, "%s", text);
    }
}
} // namespace

void validationCrossBackendWait(int stream_type, int stream_device, int event_type, int event_device) {
    reportPair(Kind::CrossBackendWait,
               "infinirtStreamWaitEvent: the event was recorded on %s:%d and is waited on a stream of %s:%d, another "
               "backend: infinirt makes the host wait for it, blocking the caller",
               event_type, event_device, stream_type, stream_device);
}

void validationElapsedAcrossDevices(int type_a, int device_a, int type_b, int device_b) {
    reportPair(Kind::ElapsedAcrossDevices,
               "infinirtEventElapsedTime: the start event is of %s:%d and the end event of %s:%d; their clocks are "
               "not comparable (refused with BAD_PARAM)",
               type_a, device_a, type_b, device_b);
}

void validationExitReport() {
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    struct Line {
        uint64_t seq;
        std::string text;
    };
    std::vector<Line> lines;
    size_t bytes = 0;
    for (const auto &[base, m] : s.memory) {
        bytes += m.size;
        lines.push_back({m.created.seq, "leak: " + describe(m)});
    }
    for (const auto &[key, o] : s.objects) {
        char text[256];
        std::snprintf(text, sizeof text, "leak: %s %#" PRIxPTR " on %s:%d, created by %s on thread %ld (call #%" PRIu64 ")",
                      objectKind(o.kind), key.second, typeName(o.type), o.device, entryApi(o.created.entry),
                      o.created.thread, o.created.seq);
        lines.push_back({o.created.seq, text});
    }
    if (lines.empty()) {
        layerReport(kLayer, "no leaks: every allocation and handle was released");
        return;
    }
    std::sort(lines.begin(), lines.end(), [](const Line &a, const Line &b) { return a.seq < b.seq; });
    constexpr size_t kShown = 50;
    for (size_t i = 0; i < lines.size() && i < kShown; ++i) {
        layerReport(kLayer, "%s", lines[i].text.c_str());
    }
    layerReport(kLayer, "%zu allocation(s) (%zu bytes) and %zu handle(s) alive at exit%s", s.memory.size(), bytes,
                s.objects.size(), lines.size() > kShown ? " (the first 50 listed)" : "");
}

} // namespace infinirt
