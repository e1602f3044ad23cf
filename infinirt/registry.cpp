// Plugin discovery, loading and negotiation; the process default device; fork handling.
#include "handles.h"
#include "internal.h"
#include "layers.h"
#include "plugin_search.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <limits.h>
#include <mutex>
#include <pthread.h>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace infinirt {

std::atomic<int> g_state{static_cast<int>(LoaderState::Uninitialised)};
Registry g_registry;
std::atomic<Backend *> g_ready_backends[kTypeCount] = {};

namespace {

const char *const kTypeNames[kTypeCount] = {"cpu",    "nvidia", "cambricon", "ascend", "metax", "moore", "iluvatar",
                                            "kunlun", "hygon",  "qy",        "ali",    "amd",   "opencl", "vulkan"};

// The longest plugin name read from a table (the plugin's string need not be terminated within it).
constexpr size_t kMaxPluginName = 64;

// The smallest table a plugin may give: everything up to and including get_device_count.
constexpr size_t kMinTableSize = offsetof(infinirtPluginTable_t, get_device_count) + sizeof(void *);

// "libinfinirt-cuda.so" -> "cuda"; "" if the file does not follow the naming scheme.
std::string pluginNameFromPath(const std::string &path) { return plugins::nameFromPath(path, "libinfinirt-"); }

void logLine(infinirtLogLevel_t level, const char *message) { logf(level, "%s", message); }

// INFINIRT_PLUGINS, or INFINIRT_PLUGIN_PATH's folders then <libdir>/infinirt beside libinfinirt
// (plugin_search.h, shared with libinfiniccl). Collective plugins named in INFINIRT_PLUGINS are
// libinfiniccl's, not ours.
std::vector<std::string> candidatePlugins() {
    std::vector<std::string> files;
    const std::string own = plugins::libraryDirOf(reinterpret_cast<void *>(&logLine));
    for (const std::string &f : plugins::candidateFiles("libinfinirt-", own, logLine)) {
        if (!plugins::nameFromPath(f, "libinfiniccl-").empty()) {
            logf(INFINIRT_LOG_DEBUG, "%s: a collective plugin (libinfiniccl's), not loaded here", f.c_str());
            continue;
        }
        files.push_back(f);
    }
    return files;
}

bool allowedByFilter(const std::string &name) { return plugins::allowedByBackends(name); }

// A failed plugin call made while loading: its status, with the detail the plugin gave during
// that call. For the backend's reason (and the log), never the thread's last-error message: the
// call that loads the plugins does not fail because one of them did.
std::string pluginFailure(infiniStatus_t st) {
    std::string text = infinirtGetErrorName(st);
    if (const char *detail = takePluginDetail()) {
        text += std::string(": ") + detail;
    }
    return text;
}

// Device `id`'s properties as b's plugin fills them (the loader's pre-fill for what it leaves), or
// false, logged as unreadable `while_doing`, where b has no get_device_properties or it fails.
bool pluginProperties(Backend &b, int id, infinirtDeviceProperties_t &p, const char *while_doing) {
    p = infinirtDeviceProperties_t{};
    p.struct_size = sizeof p;
    p.compute_capability_major = -1;
    p.compute_capability_minor = -1;
    if (b.table.get_device_properties == nullptr) {
        return false;
    }
    beginPluginCall();
    if (b.table.get_device_properties(id, &p) != INFINI_STATUS_SUCCESS) {
        logf(INFINIRT_LOG_INFO, "%s:%d: properties unreadable %s", b.name.c_str(), id, while_doing);
        return false;
    }
    return true;
}

// Backend::memory_is_host for each of b's devices: every device or none as the traits say, or, for
// kMemoryIsHostPerDevice, what each device's properties say (memory_is_host; a device whose
// properties are unreadable counts as device memory).
void recordDeviceMemory(Backend &b) {
    b.memory_is_host.assign(static_cast<size_t>(b.device_count), backendMemoryIsHost(&b) ? 1 : 0);
    if (b.traits.device_memory_is_host != kMemoryIsHostPerDevice) {
        return;
    }
    for (int id = 0; id < b.device_count; ++id) {
        infinirtDeviceProperties_t p;
        if (pluginProperties(b, id, p, "while loading the plugin")) {
            b.memory_is_host[static_cast<size_t>(id)] = p.memory_is_host == 1 ? 1 : 0;
        }
    }
}

// Loads, negotiates and initialises one plugin. Failures are recorded in `b` (and logged by the
// caller), never fatal, and never written to the thread's last-error message.
void loadPlugin(Backend &b, const std::string &path) {
    b.path = path;
    b.name = pluginNameFromPath(path);
    if (b.name.empty()) {
        b.name = path.substr(path.find_last_of('/') + 1);
    }
    void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
        const char *err = dlerror();
        b.reason = std::string("dlopen failed: ") + (err != nullptr ? err : "unknown error");
        return;
    }
    // Never dlclosed: plugins own driver state that must outlive every handle.
    auto query = reinterpret_cast<infinirtPluginQueryFn>(dlsym(lib, INFINIRT_PLUGIN_ENTRY_NAME));
    if (query == nullptr) {
        b.reason = "missing entry symbol " INFINIRT_PLUGIN_ENTRY_NAME;
        return;
    }
    uint32_t version = 0;
    const infinirtPluginTable_t *table = nullptr;
    beginPluginCall();
    infiniStatus_t st = query(INFINIRT_PLUGIN_INTERFACE_VERSION, pluginHost(), &version, &table);
    if (st != INFINI_STATUS_SUCCESS) {
        b.reason = "negotiation failed: " + pluginFailure(st);
        return;
    }
    if (table == nullptr) {
        b.reason = "negotiation failed: " INFINIRT_PLUGIN_ENTRY_NAME " succeeded but gave no table";
        return;
    }
    if (version == 0 || version > INFINIRT_PLUGIN_INTERFACE_VERSION || table->version != version) {
        b.reason = "interface version " + std::to_string(version) + " refused (loader speaks 1.." +
                   std::to_string(INFINIRT_PLUGIN_INTERFACE_VERSION) + ")";
        return;
    }
    if (table->struct_size < kMinTableSize || table->init == nullptr || table->get_device_count == nullptr) {
        b.reason = "plugin table too small or missing init/get_device_count";
        return;
    }
    const int device_type = enumInt(table->device_type);
    if (device_type < 0 || device_type >= INFINI_DEVICE_TYPE_COUNT) {
        b.reason = "plugin claims unknown device type " + std::to_string(device_type);
        return;
    }
    b.version = version;
    b.type = static_cast<infiniDevice_t>(device_type);
    if (table->name != nullptr && *table->name != '\0') {
        b.name.assign(table->name, strnlen(table->name, kMaxPluginName)); // plugin text: bounded
    }
    if (!allowedByFilter(b.name) && !allowedByFilter(pluginNameFromPath(path))) {
        b.reason = "excluded by INFINIRT_BACKENDS";
        b.state = INFINIRT_BACKEND_FAILED;
        return;
    }
    beginPluginCall();
    st = table->init();
    // The entries as init left them (infinirt_plugin.h), widened to our table size; entries the
    // plugin's (older) table lacks stay NULL, and so does an entry its struct_size cuts through
    // (only whole entries are copied).
    constexpr size_t kFirstEntry = offsetof(infinirtPluginTable_t, init);
    static_assert(kFirstEntry % sizeof(void *) == 0 && (sizeof(infinirtPluginTable_t) - kFirstEntry) % sizeof(void *) == 0,
                  "after the header, the plugin table is function pointers only");
    const size_t given = std::min(table->struct_size, sizeof(infinirtPluginTable_t));
    std::memcpy(&b.table, table, kFirstEntry + (given - kFirstEntry) / sizeof(void *) * sizeof(void *));
    b.table.struct_size = sizeof(infinirtPluginTable_t);
    // The thread-state entries come as a pair, and set_device_saving only with them (the device
    // stack relies on it): a plugin that gives less has no native thread state for the loader.
    if (b.table.thread_state_save == nullptr || b.table.thread_state_restore == nullptr) {
        b.table.thread_state_save = nullptr;
        b.table.thread_state_restore = nullptr;
        b.table.set_device_saving = nullptr;
    }
    if (st != INFINI_STATUS_SUCCESS) {
        b.reason = "init failed: " + pluginFailure(st);
        return;
    }
    b.traits.struct_size = sizeof b.traits;
    if (b.table.get_plugin_traits != nullptr) {
        beginPluginCall();
        st = b.table.get_plugin_traits(&b.traits);
        if (st != INFINI_STATUS_SUCCESS) {
            b.reason = "get_plugin_traits failed: " + pluginFailure(st);
            return;
        }
        b.traits.struct_size = sizeof b.traits;
    }
    if (b.traits.native_out_of_memory_error == nullptr) {
        b.traits.native_out_of_memory_error = "ENOMEM";
    }
    if (b.traits.native_failure_error == nullptr) {
        b.traits.native_failure_error = "EIO";
    }
    char reason[512] = "";
    int count = 0;
    beginPluginCall();
    st = b.table.get_device_count(&count, reason, sizeof reason);
    if (st != INFINI_STATUS_SUCCESS) {
        b.reason = "device count failed: " + pluginFailure(st);
        return;
    }
    if (count < 0) {
        b.reason = "device count failed: the plugin reported " + std::to_string(count) + " devices";
        return;
    }
    b.device_count = count;
    recordDeviceMemory(b);
    b.state = count > 0 ? INFINIRT_BACKEND_LOADED : INFINIRT_BACKEND_UNAVAILABLE;
    // The plugin's text is read only within its buffer: it may have left out the terminating NUL.
    const size_t reason_length = strnlen(reason, sizeof reason);
    b.reason = count > 0 ? "" : (reason_length > 0 ? std::string(reason, reason_length) : "no devices found");
}

bool parseDefaultDevice(int &type, int &id) {
    const char *v = std::getenv("INFINICORE_DEFAULT_DEVICE");
    if (v == nullptr || *v == '\0') {
        return false;
    }
    std::string s = v;
    const size_t colon = s.find(':');
    const std::string tname = s.substr(0, colon);
    id = 0;
    if (colon != std::string::npos) {
        // Strictly a decimal index in int range: "1junk", "", "-1" and "4294967297" are refused.
        const char *digits = s.c_str() + colon + 1;
        char *end = nullptr;
        errno = 0;
        const long parsed = *digits >= '0' && *digits <= '9' ? std::strtol(digits, &end, 10) : -1;
        if (parsed < 0 || end == nullptr || *end != '\0' || errno == ERANGE || parsed > INT_MAX) {
            logf(INFINIRT_LOG_WARN, "INFINICORE_DEFAULT_DEVICE=%s: \"%s\" is not a device index; ignored", v, digits);
            return false;
        }
        id = static_cast<int>(parsed);
    }
    for (int t = 0; t < kTypeCount; ++t) {
        if (tname == kTypeNames[t] || (t == INFINI_DEVICE_NVIDIA && tname == "cuda") ||
            (t == INFINI_DEVICE_AMD && tname == "hip")) {
            type = t;
            return true;
        }
    }
    logf(INFINIRT_LOG_WARN, "INFINICORE_DEFAULT_DEVICE=%s: unknown device type, ignored", v);
    return false;
}

// The kind the backend reports for its device `id`; UNKNOWN if it says nothing (a plugin built
// before the field), something out of range, has no get_device_properties, or it fails.
infinirtDeviceKind_t deviceKind(Backend &b, int id) {
    infinirtDeviceProperties_t p;
    if (!pluginProperties(b, id, p, "while choosing the default device")) {
        return INFINIRT_DEVICE_KIND_UNKNOWN;
    }
    const int kind = enumInt(p.device_kind);
    return kind >= INFINIRT_DEVICE_KIND_CPU && kind <= INFINIRT_DEVICE_KIND_ACCELERATOR
               ? static_cast<infinirtDeviceKind_t>(kind)
               : INFINIRT_DEVICE_KIND_UNKNOWN;
}

// Whether the backend can serve as the process default device: it has the entries every program
// uses on its default device. A plugin with devices but (almost) no entries is never chosen
// unless INFINICORE_DEFAULT_DEVICE names it.
bool servesDefault(const Backend &b) {
    const infinirtPluginTable_t &t = b.table;
    return t.malloc_device != nullptr && t.free_device != nullptr && t.memcpy_sync != nullptr &&
           t.memcpy_async != nullptr && t.stream_create != nullptr && t.stream_synchronize != nullptr &&
           t.device_synchronize != nullptr;
}

void chooseDefaultDevice(Registry &r) {
    int type = 0;
    int id = 0;
    if (parseDefaultDevice(type, id)) {
        if (id >= 0 && id < r.device_count[type]) {
            r.default_type = type;
            r.default_id = id;
            return;
        }
        logf(INFINIRT_LOG_WARN, "INFINICORE_DEFAULT_DEVICE names %s:%d, which does not exist; ignored",
             kTypeNames[type], id);
    }
    // The first GPU or accelerator (in infiniDevice_t order, then by index): a device of another
    // type that is itself a CPU (PoCL's OpenCL device) does not win over cpu:0. A device whose
    // backend does not report its kind counts as an accelerator, as every non-cpu type did before
    // the kind existed.
    for (int t = 1; t < kTypeCount; ++t) {
        for (int id = 0; id < r.device_count[t] && servesDefault(*r.by_type[t]); ++id) {
            if (deviceKind(*r.by_type[t], id) != INFINIRT_DEVICE_KIND_CPU) {
                r.default_type = t;
                r.default_id = id;
                return;
            }
        }
    }
    if (r.device_count[INFINI_DEVICE_CPU] > 0) {
        r.default_type = INFINI_DEVICE_CPU;
        r.default_id = 0;
        return;
    }
    // No cpu backend: the first device there is, whatever its kind (a backend that serves the
    // default device's needs first).
    for (int t = 1; t < kTypeCount; ++t) {
        if (r.device_count[t] > 0 && servesDefault(*r.by_type[t])) {
            r.default_type = t;
            r.default_id = 0;
            return;
        }
    }
    for (int t = 1; t < kTypeCount; ++t) {
        if (r.device_count[t] > 0) {
            r.default_type = t;
            r.default_id = 0;
            return;
        }
    }
}

// Set (before std::call_once is entered) by the first thread that starts loading the plugins.
std::atomic<bool> g_loading_started{false};

void onForkChild() {
    // The parent's plugin threads and driver state do not exist in the child, and neither does a
    // thread that was loading the plugins (its std::call_once would never finish in the child).
    if (g_loading_started.load(std::memory_order_relaxed)) {
        g_state.store(static_cast<int>(LoaderState::ForkedChild), std::memory_order_relaxed);
        // The forking thread is the child's only one: its current device is forgotten, so that
        // infinirtGetDevice's fast path (which reads only this) goes to the refusal too.
        t_hot.current.type = -1;
        t_hot.stack_top = 0; // the parent's pushes are not the child's to pop
        g_handles.forgetInForkedChild();
        for (std::atomic<Backend *> &ready : g_ready_backends) {
            ready.store(nullptr, std::memory_order_relaxed);
        }
    }
}

// Registered when the library is loaded, before any plugin can be: a fork at any moment, even
// while another thread is loading the plugins, leaves a child that answers DEVICE_NOT_INITIALIZED.
__attribute__((constructor)) void registerForkHandler() { pthread_atfork(nullptr, nullptr, onForkChild); }

void loadAll() {
    std::vector<std::string> files;
    for (const std::string &f : candidatePlugins()) {
        // Applied before dlopen, by file name; a plugin whose file name says nothing is checked
        // again by its declared name after negotiation.
        const std::string name = pluginNameFromPath(f);
        if (!name.empty() && !allowedByFilter(name)) {
            logf(INFINIRT_LOG_INFO, "%s: excluded by INFINIRT_BACKENDS", f.c_str());
            continue;
        }
        files.push_back(f);
    }
    Registry &r = g_registry;
    r.backends = new Backend[files.size() > 0 ? files.size() : 1];
    r.backend_count = static_cast<int>(files.size());
    for (size_t i = 0; i < files.size(); ++i) {
        Backend &b = r.backends[i];
        loadPlugin(b, files[i]);
        if (b.state == INFINIRT_BACKEND_FAILED) {
            logf(INFINIRT_LOG_WARN, "plugin %s skipped: %s", files[i].c_str(), b.reason.c_str());
            continue;
        }
        if (r.by_type[b.type] != nullptr && r.by_type[b.type]->device_count == 0 && b.device_count > 0) {
            // A plugin with devices wins over an earlier one of the same type that found none.
            Backend &empty = *r.by_type[b.type];
            empty.state = INFINIRT_BACKEND_SHADOWED;
            empty.reason = "device type " + std::string(kTypeNames[b.type]) + " served by " + b.path +
                           ", which has devices (this one: " + (empty.reason.empty() ? "none" : empty.reason) + ")";
            logf(INFINIRT_LOG_INFO, "plugin %s shadowed: %s", empty.path.c_str(), empty.reason.c_str());
            r.by_type[b.type] = nullptr;
        }
        if (r.by_type[b.type] != nullptr) {
            b.state = INFINIRT_BACKEND_SHADOWED;
            b.reason = "device type " + std::string(kTypeNames[b.type]) + " already served by " +
                       r.by_type[b.type]->path;
            logf(INFINIRT_LOG_WARN, "plugin %s shadowed: %s", files[i].c_str(), b.reason.c_str());
            continue;
        }
        r.by_type[b.type] = &b;
        r.device_count[b.type] = b.device_count;
        logf(INFINIRT_LOG_INFO, "plugin %s (%s): %d device(s)%s%s", b.name.c_str(), b.path.c_str(), b.device_count,
             b.reason.empty() ? "" : ": ", b.reason.c_str());
    }
    chooseDefaultDevice(r);
    // Last: the layers wrap the tables the calls will use (nothing when no layer is enabled).
    installLayers(r);
    for (Backend *b : r.by_type) {
        if (b != nullptr) {
            b->push_switch = b->table.set_device_saving != nullptr    ? b->table.set_device_saving
                             : b->table.thread_state_save != nullptr ? pushSavingThenSetting
                             : b->table.set_device != nullptr        ? pushSetting
                                                                     : pushNothing;
            b->pop_restore = b->table.thread_state_restore != nullptr ? b->table.thread_state_restore
                                                                      : noThreadStateRestore;
        }
    }
}

} // namespace

const char *typeName(int type) { return type >= 0 && type < kTypeCount ? kTypeNames[type] : "unknown"; }

infiniStatus_t initSlow() {
    static std::once_flag once;
    if (g_state.load(std::memory_order_acquire) != static_cast<int>(LoaderState::ForkedChild)) {
        g_loading_started.store(true, std::memory_order_seq_cst);
        std::call_once(once, [] {
            loadAll();
            for (int t = 0; t < kTypeCount; ++t) {
                g_ready_backends[t].store(g_registry.by_type[t], std::memory_order_release);
            }
            g_state.store(static_cast<int>(LoaderState::Ready), std::memory_order_release);
        });
    }
    if (g_state.load(std::memory_order_acquire) == static_cast<int>(LoaderState::Ready)) {
        return INFINI_STATUS_SUCCESS;
    }
    return fail(INFINI_STATUS_DEVICE_NOT_INITIALIZED,
                "infinirt was initialised in the parent process; it cannot be used in a forked child "
                "(exec a new program, or initialise only after fork)");
}

infiniStatus_t currentDeviceSlow(Backend *&backend, int &type, int &id) {
    CurrentDevice &c = t_hot.current;
    if (c.type < 0) {
        if (g_registry.default_type == kTypeCount) {
            return fail(INFINI_STATUS_DEVICE_NOT_FOUND, "no device: no backend plugin reported a device");
        }
        c.type = g_registry.default_type;
        c.id = g_registry.default_id;
    }
    type = c.type;
    id = c.id;
    backend = g_registry.by_type[type];
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t readyBackendRefused(int type, int id) {
    if (const infiniStatus_t st = ensureInit()) {
        return st;
    }
    Backend *backend = nullptr;
    return checkDevice(type, id, backend);
}

infiniStatus_t refuseDevice(int type, int id) {
    if (type < 0 || type >= kTypeCount) {
        return fail(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED, "device type %d is not a valid infiniDevice_t", type);
    }
    const Backend *backend = g_registry.by_type[type];
    if (backend == nullptr) {
        return fail(INFINI_STATUS_DEVICE_NOT_FOUND, "no backend plugin serves device type %s", kTypeNames[type]);
    }
    if (id < 0 || id >= backend->device_count) {
        return fail(INFINI_STATUS_DEVICE_NOT_FOUND, "%s:%d does not exist (%d device(s) of that type%s%s)",
                    kTypeNames[type], id, backend->device_count, backend->reason.empty() ? "" : ": ",
                    backend->reason.c_str());
    }
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt
