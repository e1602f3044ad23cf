// Discovery of the collective plugins: libinfiniccl-<name>.so in INFINIRT_PLUGIN_PATH's folders,
// then in <libdir>/infinirt/ beside libinfinirt (where infinirt's own plugins are), in name order;
// the first plugin for a device type serves it. Loaded once, on the first call that needs one.
#include "internal.h"

#include <dirent.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace infiniccl {

namespace {

// Written once under call_once, then read only; never destroyed (no teardown at exit, as in infinirt).
std::vector<Plugin *> &g_plugins = *new std::vector<Plugin *>;

std::vector<std::string> searchDirs() {
    std::vector<std::string> dirs;
    if (const char *path = secure_getenv("INFINIRT_PLUGIN_PATH")) {
        std::string all(path);
        size_t start = 0;
        while (start <= all.size()) {
            size_t end = all.find(':', start);
            if (end == std::string::npos) end = all.size();
            if (end > start) dirs.push_back(all.substr(start, end - start));
            start = end + 1;
        }
    }
    Dl_info info{};
    if (dladdr(reinterpret_cast<void *>(&infinirtInit), &info) != 0 && info.dli_fname != nullptr) {
        std::string lib(info.dli_fname);
        const size_t slash = lib.rfind('/');
        dirs.push_back((slash == std::string::npos ? std::string(".") : lib.substr(0, slash)) + "/infinirt");
    }
    return dirs;
}

void loadOne(const std::string &file) {
    void *handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        std::fprintf(stderr, "infiniccl [warn] %s: %s\n", file.c_str(), dlerror());
        return;
    }
    auto query = reinterpret_cast<infinicclPluginQueryFn>(dlsym(handle, INFINICCL_PLUGIN_QUERY_SYMBOL));
    uint32_t version = 0;
    const infinicclPluginTable_t *table = nullptr;
    if (query == nullptr || query(INFINICCL_PLUGIN_INTERFACE_VERSION, pluginHost(), &version, &table) !=
                                INFINI_STATUS_SUCCESS ||
        table == nullptr || table->struct_size < offsetof(infinicclPluginTable_t, init) || table->name == nullptr) {
        std::fprintf(stderr, "infiniccl [warn] %s: no usable %s\n", file.c_str(), INFINICCL_PLUGIN_QUERY_SYMBOL);
        return;
    }
    for (const Plugin *p : g_plugins) {
        if (p->table.device_type == table->device_type) {
            return; // shadowed: an earlier plugin serves the type
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

void loadAll() {
    for (const std::string &dir : searchDirs()) {
        DIR *d = opendir(dir.c_str());
        if (d == nullptr) continue;
        std::vector<std::string> names;
        while (dirent *e = readdir(d)) {
            const size_t n = std::strlen(e->d_name);
            if (n > 15 && std::strncmp(e->d_name, "libinfiniccl-", 13) == 0 &&
                std::strcmp(e->d_name + n - 3, ".so") == 0) {
                names.emplace_back(e->d_name);
            }
        }
        closedir(d);
        std::sort(names.begin(), names.end());
        for (const std::string &name : names) loadOne(dir + "/" + name);
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
    for (const Plugin *p : g_plugins) {
        if (p->table.device_type != type) continue;
        if (!p->usable) {
            return fail(INFINI_STATUS_BACKEND_UNAVAILABLE, "%s: %s (%s)", p->table.name, p->reason.c_str(),
                        p->file.c_str());
        }
        *plugin = p;
        return INFINI_STATUS_SUCCESS;
    }
    return fail(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED,
                "no infiniccl plugin serves device type %d (looked for libinfiniccl-*.so in INFINIRT_PLUGIN_PATH "
                "and <libdir>/infinirt)",
                static_cast<int>(type));
}

} // namespace infiniccl
