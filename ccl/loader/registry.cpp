// Discovery of the collective plugins: libinfiniccl-<name>.so where infinirt finds its own
// (INFINIRT_PLUGINS, else INFINIRT_PLUGIN_PATH's folders then <libdir>/infinirt/ beside
// libinfinirt, in name order; the same code: common/plugin_search.h), restricted by
// INFINIRT_BACKENDS; the first usable plugin for a device type serves it (one whose init failed
// gives way to a later one, as infinirt prefers a plugin that found devices). Loaded once, on the
// first call that needs one. Warnings follow INFINIRT_LOG, as infinirt's do.
#include "internal.h"
#include "log_level.h"
#include "plugin_search.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace infiniccl {

namespace plugins = infinirt::plugins;

namespace {

constexpr const char *kPrefix = "libinfiniccl-";

// Written once under call_once, then read only; never destroyed (no teardown at exit, as in infinirt).
std::vector<Plugin *> &g_plugins = *new std::vector<Plugin *>;

// "INFINIRT_BACKENDS=... excluded <files>" when it left plugins out: said when a type finds none.
std::string &g_excluded = *new std::string;

// A warning on stderr unless INFINIRT_LOG asks for errors only.
void warn(const std::string &message) {
    static const int level = infinirt::logLevelFromEnvironment();
    if (level >= static_cast<int>(INFINIRT_LOG_WARN)) std::fprintf(stderr, "infiniccl [warn] %s\n", message.c_str());
}

void logLine(infinirtLogLevel_t level, const char *message) {
    if (level <= INFINIRT_LOG_WARN) warn(message);
}

void loadOne(const std::string &file) {
    void *handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        warn(file + ": " + dlerror());
        return;
    }
    auto query = reinterpret_cast<infinicclPluginQueryFn>(dlsym(handle, INFINICCL_PLUGIN_QUERY_SYMBOL));
    uint32_t version = 0;
    const infinicclPluginTable_t *table = nullptr;
    if (query == nullptr || query(INFINICCL_PLUGIN_INTERFACE_VERSION, pluginHost(), &version, &table) !=
                                INFINI_STATUS_SUCCESS ||
        table == nullptr || table->struct_size < offsetof(infinicclPluginTable_t, init) || table->name == nullptr) {
        warn(file + ": no usable " + INFINICCL_PLUGIN_QUERY_SYMBOL);
        return;
    }
    for (const Plugin *p : g_plugins) {
        if (p->table.device_type == table->device_type && p->usable) {
            return; // shadowed: an earlier usable plugin serves the type
        }
    }
    auto *plugin = new Plugin;
    std::memcpy(&plugin->table, table, std::min(table->struct_size, sizeof(infinicclPluginTable_t)));
    plugin->table.struct_size = sizeof(infinicclPluginTable_t);
    plugin->file = file;
    char reason[512] = "";
    if (plugin->table.init == nullptr) {
        plugin->usable = true;
    } else {
        beginPluginCall();
        plugin->usable = plugin->table.init(reason, sizeof reason) == INFINI_STATUS_SUCCESS;
        reason[sizeof reason - 1] = '\0';
    }
    plugin->reason = plugin->usable ? "" : (reason[0] != '\0' ? reason : "init failed");
    g_plugins.push_back(plugin);
}

// The files infinirt's own loader would consider (plugin_search.h: INFINIRT_PLUGINS, else
// INFINIRT_PLUGIN_PATH then <libdir>/infinirt beside libinfinirt), those of our naming scheme,
// each allowed by INFINIRT_BACKENDS by its name ("cpu", "nccl") before it is dlopen'ed.
void loadAll() {
    const std::string infinirt_dir = plugins::libraryDirOf(reinterpret_cast<void *>(&infinirtInit));
    for (const std::string &file : plugins::candidateFiles(kPrefix, infinirt_dir, logLine)) {
        const std::string name = plugins::nameFromPath(file, kPrefix);
        if (name.empty()) continue; // an infinirt plugin named in INFINIRT_PLUGINS
        if (!plugins::allowedByBackends(name)) {
            if (g_excluded.empty()) {
                const char *filter = std::getenv("INFINIRT_BACKENDS");
                g_excluded = std::string("INFINIRT_BACKENDS=") + (filter != nullptr ? filter : "") + " excluded ";
            } else {
                g_excluded += ", ";
            }
            g_excluded += file;
            continue;
        }
        loadOne(file);
    }
}

} // namespace

infiniStatus_t pluginFor(infiniDevice_t type, const Plugin **plugin) {
    static std::once_flag once;
    std::call_once(once, loadAll);
    if (static_cast<int>(type) < 0 || type >= INFINI_DEVICE_TYPE_COUNT) {
        return fail(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED, "device type %d is not an infiniDevice_t",
                    static_cast<int>(type));
    }
    const Plugin *unusable = nullptr; // the first of the type, when none is usable
    for (const Plugin *p : g_plugins) {
        if (p->table.device_type != type) continue;
        if (p->usable) {
            *plugin = p;
            return INFINI_STATUS_SUCCESS;
        }
        if (unusable == nullptr) unusable = p;
    }
    if (unusable != nullptr) {
        return fail(INFINI_STATUS_BACKEND_UNAVAILABLE, "%s: %s (%s)", unusable->table.name, unusable->reason.c_str(),
                    unusable->file.c_str());
    }
    if (!g_excluded.empty()) {
        return fail(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED, "no infiniccl plugin serves device type %d (%s)",
                    static_cast<int>(type), g_excluded.c_str());
    }
    return fail(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED,
                "no infiniccl plugin serves device type %d (looked for libinfiniccl-*.so in INFINIRT_PLUGINS, or "
                "INFINIRT_PLUGIN_PATH and <libdir>/infinirt)",
                static_cast<int>(type));
}

} // namespace infiniccl
