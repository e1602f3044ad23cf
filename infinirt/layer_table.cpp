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

// Each entry's field and C API names, and what each of its arguments is (role and name, in the
// order of its parameters), from INFINIRT_PLUGIN_ENTRIES. LOADER entries are never wrapped: no
// roles.
#define INFINIRT_LAYER_UNPAREN(...) __VA_ARGS__
#define INFINIRT_LAYER_ROLE(role, type, name) Arg::role
#define INFINIRT_LAYER_NAME(role, type, name) #name
#define INFINIRT_LAYER_ARGS_LOADER(params) {}
#define INFINIRT_LAYER_ARGS_COLD(params) {INFINIRT_LAYER_UNPAREN params}
#define INFINIRT_LAYER_ARGS_HOT INFINIRT_LAYER_ARGS_COLD
#define INFINIRT_LAYER_ARGS(c, field, Type, impl, api, kind, params) INFINIRT_LAYER_ARGS_##kind(params),
#define INFINIRT_LAYER_FIELD_NAME(c, field, Type, impl, api, kind, params) #field,
#define INFINIRT_LAYER_API_NAME(c, field, Type, impl, api, kind, params) #api,
#define INFINIRT_LAYER_IS_WRAPPED(c, field, Type, impl, api, kind, params) INFINIRT_LAYER_WRAPPED_##kind,
#define INFINIRT_LAYER_WRAPPED_LOADER false
#define INFINIRT_LAYER_WRAPPED_COLD true
#define INFINIRT_LAYER_WRAPPED_HOT true
constexpr const char *kFields[kEntryCount] = {INFINIRT_PLUGIN_ENTRIES(INFINIRT_LAYER_FIELD_NAME, ~, ~)};
constexpr const char *kApis[kEntryCount] = {INFINIRT_PLUGIN_ENTRIES(INFINIRT_LAYER_API_NAME, ~, ~)};
constexpr bool kWrapped[kEntryCount] = {INFINIRT_PLUGIN_ENTRIES(INFINIRT_LAYER_IS_WRAPPED, ~, ~)};
constexpr Arg kRoles[kEntryCount][kMaxArgs] = {INFINIRT_PLUGIN_ENTRIES(INFINIRT_LAYER_ARGS, INFINIRT_LAYER_ROLE, ~)};
constexpr const char *kNames[kEntryCount][kMaxArgs] = {
    INFINIRT_PLUGIN_ENTRIES(INFINIRT_LAYER_ARGS, INFINIRT_LAYER_NAME, ~)};

// The table field behind each entry.
template <Entry E> struct Field;
#define INFINIRT_LAYER_FIELD(c, field_name, Type, impl, api, kind, params)                                  \
    template <> struct Field<Entry::field_name> {                                                          \
        using Fn = infinirtPlugin##Type##Fn;                                                               \
        static Fn *&of(infinirtPluginTable_t &t) { return t.field_name; }                                  \
    };
INFINIRT_PLUGIN_ENTRIES(INFINIRT_LAYER_FIELD, ~, ~)
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
        LayerCall c;
        c.type = Type;
        c.entry = E;
        c.argc = sizeof...(P);
        c.roles = kRoles[static_cast<int>(E)];
        c.names = kNames[static_cast<int>(E)];
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
#define INFINIRT_LAYER_WRAP(c, field_name, Type, impl, api, kind, params) INFINIRT_LAYER_WRAP_##kind(field_name)
#define INFINIRT_LAYER_WRAP_LOADER(field_name)
#define INFINIRT_LAYER_WRAP_COLD(field_name)                                                                \
    if (t.field_name != nullptr) {                                                                          \
        t.field_name = &Wrapper<Type, Entry::field_name, Field<Entry::field_name>::Fn>::call;               \
    }
#define INFINIRT_LAYER_WRAP_HOT INFINIRT_LAYER_WRAP_COLD
    INFINIRT_PLUGIN_ENTRIES(INFINIRT_LAYER_WRAP, ~, ~)
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

const char *entryField(Entry e) { return kFields[static_cast<int>(e)]; }
const char *entryApi(Entry e) { return kApis[static_cast<int>(e)]; }
bool entryWrapped(Entry e) { return kWrapped[static_cast<int>(e)]; }

const infinirtPluginTable_t &layerNext(int type) { return g_next[type]; }

long layerThreadId() {
    // Asked once per thread: a system call on every traced call would dominate its cost.
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
