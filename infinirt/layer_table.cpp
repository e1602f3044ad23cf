// The interposition: one wrapper per (device type, entry), generated from INFINIRT_LAYER_ENTRIES,
// installed in place of the plugin's entry only when a layer is enabled. A wrapper turns its
// arguments into a LayerCall and runs the layers around the plugin's own entry:
//   trace (outermost: the span covers everything) -> fault injection -> validation -> plugin.
#include "layers.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/syscall.h>
#include <unistd.h>
#include <tuple>
#include <type_traits>

namespace infinirt {

LayerFlags g_layers;

namespace {

infinirtPluginTable_t g_next[kTypeCount];

struct EntryInfo {
    const char *field;
    const char *api;
    Arg roles[kMaxArgs];
    const char *names[kMaxArgs];
};

using A = Arg;
// What each argument of each entry is, in the order of the entry's parameters.
constexpr EntryInfo kEntries[kEntryCount] = {
    {"get_device_properties", "infinirtGetDeviceProperties", {A::Device, A::Skip}, {"device", nullptr}},
    {"set_device", "infinirtSetDevice", {A::Device}, {"device"}},
    {"device_synchronize", "infinirtDeviceSynchronize", {A::Device}, {"device"}},
    {"get_mem_info", "infinirtGetMemInfo", {A::Device, A::Skip, A::Skip}, {"device"}},
    {"get_resource_snapshot", "infinirtGetDeviceResourceSnapshot", {A::Device, A::Skip}, {"device"}},
    {"stream_create", "infinirtStreamCreate", {A::Device, A::OutStream}, {"device", "stream"}},
    {"stream_destroy", "infinirtStreamDestroy", {A::Device, A::DestroyStream}, {"device", "stream"}},
    {"stream_synchronize", "infinirtStreamSynchronize", {A::Device, A::Stream}, {"device", "stream"}},
    {"stream_query", "infinirtStreamQuery", {A::Device, A::Stream}, {"device", "stream"}},
    {"stream_wait_event", "infinirtStreamWaitEvent", {A::Device, A::Stream, A::Event}, {"device", "stream", "event"}},
    {"event_create", "infinirtEventCreate", {A::Device, A::Value, A::OutEvent}, {"device", "flags", "event"}},
    {"event_destroy", "infinirtEventDestroy", {A::Device, A::DestroyEvent}, {"device", "event"}},
    {"event_record", "infinirtEventRecord", {A::Device, A::Event, A::Stream}, {"device", "event", "stream"}},
    {"event_query", "infinirtEventQuery", {A::Device, A::Event, A::Skip}, {"device", "event"}},
    {"event_synchronize", "infinirtEventSynchronize", {A::Device, A::Event}, {"device", "event"}},
    {"event_elapsed_time", "infinirtEventElapsedTime", {A::Device, A::Skip, A::Event, A::Event},
     {"device", nullptr, "start", "end"}},
    {"malloc_device", "infinirtMalloc", {A::Device, A::OutMem, A::Size}, {"device", "ptr", "size"}},
    {"free_device", "infinirtFree", {A::Device, A::FreePtr}, {"device", "ptr"}},
    {"malloc_host", "infinirtMallocHost", {A::Device, A::OutMem, A::Size}, {"device", "ptr", "size"}},
    {"free_host", "infinirtFreeHost", {A::Device, A::FreePtr}, {"device", "ptr"}},
    {"memcpy_sync", "infinirtMemcpy", {A::Device, A::Dst, A::Src, A::Size, A::Value},
     {"device", "dst", "src", "size", "kind"}},
    {"memcpy_async", "infinirtMemcpyAsync", {A::Device, A::Dst, A::Src, A::Size, A::Value, A::Stream},
     {"device", "dst", "src", "size", "kind", "stream"}},
    {"memset_sync", "infinirtMemset", {A::Device, A::Dst, A::Value, A::Size}, {"device", "ptr", "value", "size"}},
    {"memset_async", "infinirtMemsetAsync", {A::Device, A::Dst, A::Value, A::Size, A::Stream},
     {"device", "ptr", "value", "size", "stream"}},
    {"malloc_async", "infinirtMallocAsync", {A::Device, A::OutMem, A::Size, A::Stream},
     {"device", "ptr", "size", "stream"}},
    {"free_async", "infinirtFreeAsync", {A::Device, A::FreePtr, A::Stream}, {"device", "ptr", "stream"}},
    {"stream_begin_capture", "infinirtStreamBeginCapture", {A::Device, A::Stream, A::Value},
     {"device", "stream", "mode"}},
    {"stream_end_capture", "infinirtStreamEndCapture", {A::Device, A::Stream, A::OutGraph},
     {"device", "stream", "graph"}},
    {"graph_destroy", "infinirtGraphDestroy", {A::Device, A::DestroyGraph}, {"device", "graph"}},
    {"graph_instantiate", "infinirtGraphInstantiate", {A::Device, A::OutExec, A::Graph, A::Skip, A::Skip},
     {"device", "exec", "graph"}},
    {"graph_exec_destroy", "infinirtGraphExecDestroy", {A::Device, A::DestroyExec}, {"device", "exec"}},
    {"graph_launch", "infinirtGraphLaunch", {A::Device, A::Exec, A::Stream}, {"device", "exec", "stream"}},
    {"stream_get_native", "infinirtStreamGetNativeHandle", {A::Device, A::Stream, A::Skip}, {"device", "stream"}},
    {"event_get_native", "infinirtEventGetNativeHandle", {A::Device, A::Event, A::Skip}, {"device", "event"}},
    {"device_get_native_context", "infinirtDeviceGetNativeContext", {A::Device, A::Skip}, {"device"}},
    {"pointer_get_attributes", "infinirtPointerGetAttributes", {A::Src, A::Skip}, {"ptr"}},
    {"module_load", "infinirtModuleLoad", {A::Device, A::Skip, A::Value, A::Skip, A::Skip, A::OutModule},
     {"device", nullptr, "images", nullptr, nullptr, "module"}},
    {"module_unload", "infinirtModuleUnload", {A::Device, A::DestroyModule}, {"device", "module"}},
    {"module_get_kernel", "infinirtModuleGetKernel", {A::Device, A::Module, A::Skip, A::OutKernel},
     {"device", "module", nullptr, "kernel"}},
    {"module_get_global", "infinirtModuleGetGlobal", {A::Device, A::Module, A::Skip, A::OutGlobal, A::OutGlobalSize},
     {"device", "module"}},
    {"kernel_get_attribute", "infinirtKernelGetAttribute", {A::Device, A::Kernel, A::Value, A::Skip},
     {"device", "kernel", "attr"}},
    {"kernel_set_attribute", "infinirtKernelSetAttribute", {A::Device, A::Kernel, A::Value, A::Value},
     {"device", "kernel", "attr", "value"}},
    {"launch_kernel", "infinirtLaunchKernel", {A::Device, A::Kernel, A::Skip, A::KernelArgs, A::Value, A::Stream},
     {"device", "kernel", nullptr, "args", "num_args", "stream"}},
};

constexpr bool sameText(const char *a, const char *b) {
    return *a == *b && (*a == '\0' || sameText(a + 1, b + 1));
}
// kEntries is in the order of INFINIRT_LAYER_ENTRIES.
#define INFINIRT_LAYER_ORDER(field_name)                                                                  \
    static_assert(sameText(kEntries[static_cast<int>(Entry::field_name)].field, #field_name),             \
                  "kEntries is out of order at " #field_name);
INFINIRT_LAYER_ENTRIES(INFINIRT_LAYER_ORDER)
#undef INFINIRT_LAYER_ORDER

// The table field behind each entry.
template <Entry E> struct Field;
#define INFINIRT_LAYER_FIELD(field_name)                                                   \
    template <> struct Field<Entry::field_name> {                                               \
        using Fn = std::remove_pointer_t<decltype(infinirtPluginTable_t::field_name)>;          \
        static Fn *&of(infinirtPluginTable_t &t) { return t.field_name; }                      \
    };
INFINIRT_LAYER_ENTRIES(INFINIRT_LAYER_FIELD)
#undef INFINIRT_LAYER_FIELD

template <typename T> uint64_t asValue(T v) {
    if constexpr (std::is_pointer_v<T>) {
        return reinterpret_cast<uintptr_t>(v);
    } else if constexpr (std::is_enum_v<T>) {
        return static_cast<uint64_t>(static_cast<int64_t>(v));
    } else {
        return static_cast<uint64_t>(v);
    }
}

bool hasDeviceSpan(Entry e) {
    return e == Entry::memcpy_async || e == Entry::memset_async || e == Entry::launch_kernel;
}

bool isSynchronising(Entry e) {
    return e == Entry::device_synchronize || e == Entry::stream_synchronize || e == Entry::event_synchronize;
}

// The layers around one plugin call; `next(context)` makes the plugin's own call. One function
// for every wrapper (not a template): the wrappers stay a few instructions each.
INFINIRT_HIDDEN __attribute__((noinline)) infiniStatus_t runLayers(LayerCall &c, infiniStatus_t (*next)(const void *),
                                                                const void *context) {
    const uint64_t start = g_layers.trace ? traceNow() : 0;
    infiniStatus_t st = INFINI_STATUS_SUCCESS;
    // An injected failure skips the plugin, except for a synchronising entry: it waits as usual,
    // then fails (if the plugin did not fail on its own), since a failed wait must not return
    // while the work it waited for still runs (layer_fault.cpp).
    const uint64_t injected = g_layers.fault ? faultFires(c) : 0;
    const bool wait_then_fail = injected != 0 && isSynchronising(c.entry);
    if (injected != 0 && !wait_then_fail) {
        st = faultFail(c, injected);
    } else if (g_layers.validation && (st = validateBefore(c)) != INFINI_STATUS_SUCCESS) {
        // refused, with the detail set
    } else {
        void *span = nullptr;
        const bool device_span = g_layers.trace_device && hasDeviceSpan(c.entry);
        void *stream = device_span ? reinterpret_cast<void *>(c.find(Arg::Stream)) : nullptr;
        if (device_span) {
            traceDeviceSpanBegin(c, stream, span);
        }
        st = next(context);
        if (device_span) {
            traceDeviceSpanEnd(c, stream, span, st == INFINI_STATUS_SUCCESS);
        }
        if (g_layers.validation) {
            validateAfter(c, st);
        }
    }
    if (wait_then_fail && st == INFINI_STATUS_SUCCESS) {
        st = faultFail(c, injected);
    }
    if (g_layers.trace) {
        traceSpan(c, start, traceNow(), st);
        if (g_layers.trace_device && isSynchronising(c.entry) && st == INFINI_STATUS_SUCCESS) {
            traceDeviceResolve(c.type, c.device());
        }
    }
    return st;
}

template <int Type, Entry E, typename Sig> struct Wrapper;
template <int Type, Entry E, typename... P> struct Wrapper<Type, E, infiniStatus_t(P...)> {
    static_assert(sizeof...(P) <= kMaxArgs, "raise kMaxArgs");
    static infiniStatus_t call(P... args) {
        const EntryInfo &info = kEntries[static_cast<int>(E)];
        LayerCall c;
        c.type = Type;
        c.entry = E;
        c.argc = sizeof...(P);
        c.roles = info.roles;
        c.names = info.names;
        int i = 0;
        ((c.value[i++] = asValue(args)), ...);
        const std::tuple<P...> context(args...);
        return runLayers(c, &invoke, &context);
    }
    static infiniStatus_t invoke(const void *context) {
        return std::apply(Field<E>::of(g_next[Type]), *static_cast<const std::tuple<P...> *>(context));
    }
};

template <int Type> void wrapTable(infinirtPluginTable_t &t) {
#define INFINIRT_LAYER_WRAP(field_name)                                                              \
    if (t.field_name != nullptr) {                                                                        \
        t.field_name = &Wrapper<Type, Entry::field_name, Field<Entry::field_name>::Fn>::call;             \
    }
    INFINIRT_LAYER_ENTRIES(INFINIRT_LAYER_WRAP)
#undef INFINIRT_LAYER_WRAP
}

template <int... Types> void wrapByType(int type, infinirtPluginTable_t &t, std::integer_sequence<int, Types...>) {
    ((type == Types ? wrapTable<Types>(t) : void()), ...);
}

bool envFlag(const char *name) {
    const char *v = std::getenv(name);
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

void atExit() {
    if (g_layers.trace) {
        traceExitFlush();
    }
    if (g_layers.validation) {
        validationExitReport();
    }
}

} // namespace

int LayerCall::device() const {
    const uint64_t d = find(Arg::Device);
    return static_cast<int>(static_cast<int64_t>(d));
}

uint64_t LayerCall::find(Arg r) const {
    for (int i = 0; i < argc; ++i) {
        if (roles[i] == r) {
            return value[i];
        }
    }
    return 0;
}

const char *entryField(Entry e) { return kEntries[static_cast<int>(e)].field; }
const char *entryApi(Entry e) { return kEntries[static_cast<int>(e)].api; }

const infinirtPluginTable_t &layerNext(int type) { return g_next[type]; }

long layerThreadId() {
    // A system call each time would cost about a microsecond per traced call.
    static thread_local const long id = static_cast<long>(syscall(SYS_gettid));
    return id;
}

void layerReport(const char *layer, const char *fmt, ...) {
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "infinirt %s: %s\n", layer, text);
}

void installLayers(Registry &r) {
    g_layers.validation = envFlag("INFINIRT_VALIDATION");
    const char *trace = std::getenv("INFINIRT_TRACE");
    if (trace != nullptr && *trace != '\0') {
        traceInit(trace);
        g_layers.trace = true;
        g_layers.trace_device = envFlag("INFINIRT_TRACE_DEVICE");
    }
    const char *fault = std::getenv("INFINIRT_FAULT_INJECT");
    if (fault != nullptr && *fault != '\0') {
        g_layers.fault = faultInit(fault);
    }
    if (!g_layers.any()) {
        return;
    }
    if (g_layers.validation) {
        validationInit();
    }
    for (int t = 0; t < kTypeCount; ++t) {
        if (r.by_type[t] == nullptr) {
            continue;
        }
        g_next[t] = r.by_type[t]->table;
        wrapByType(t, r.by_type[t]->table, std::make_integer_sequence<int, kTypeCount>{});
    }
    std::atexit(atExit);
    logf(INFINIRT_LOG_INFO, "layers on:%s%s%s%s", g_layers.validation ? " validation" : "",
         g_layers.trace ? " trace" : "", g_layers.trace_device ? " trace-device" : "",
         g_layers.fault ? " fault-injection" : "");
}

} // namespace infinirt
