// negotiate.hpp - the plugin entry point's work, written once for every backend. Part of the
// header-only plugin-support layer (backends/common/, namespace infinirt::common).
#ifndef INFINIRT_COMMON_NEGOTIATE_HPP
#define INFINIRT_COMMON_NEGOTIATE_HPP

#include "common/entry_guard.hpp"
#include "common/host_services.hpp"

namespace infinirt::common {

// The oldest interface version the plugins of this tree speak.
constexpr uint32_t kOldestInterfaceVersion = 1;

// Answers infinirtPluginQuery: remembers `host` (see host_services.hpp) and the plugin's name for
// messages, then agrees on min(loader_version, INFINIRT_PLUGIN_INTERFACE_VERSION) and hands out
// `plugin_table` (static storage). Refusals, the same in every backend:
//  - plugin_version or table NULL: INFINI_STATUS_NULL_POINTER;
//  - a loader older than every version this plugin speaks: INFINI_STATUS_NOT_IMPLEMENTED, with a
//    detail naming both versions through host->set_error.
// Writes its outputs only on success. Called once by the loader, before any other entry.
inline infiniStatus_t negotiate(uint32_t loader_version, const infinirtPluginHost_t *host, uint32_t *plugin_version,
                                const infinirtPluginTable_t **table, const infinirtPluginTable_t &plugin_table) noexcept {
    installHost(host);
    g_plugin_name = plugin_table.name;
    if (plugin_version == nullptr || table == nullptr) {
        return fail(INFINI_STATUS_NULL_POINTER, "%s plugin: infinirtPluginQuery needs plugin_version and table",
                    plugin_table.name);
    }
    if (loader_version < kOldestInterfaceVersion) {
        return fail(INFINI_STATUS_NOT_IMPLEMENTED,
                    "%s plugin: the loader speaks plugin interface version %u, this plugin speaks %u..%u",
                    plugin_table.name, loader_version, kOldestInterfaceVersion, INFINIRT_PLUGIN_INTERFACE_VERSION);
    }
    *plugin_version =
        loader_version < INFINIRT_PLUGIN_INTERFACE_VERSION ? loader_version : INFINIRT_PLUGIN_INTERFACE_VERSION;
    *table = &plugin_table;
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::common

// Defines the exported entry point of a plugin whose table is `table_expr` (an lvalue of type
// const infinirtPluginTable_t with static storage, built with plugin_table.hpp).
#define INFINIRT_COMMON_DEFINE_PLUGIN_ENTRY(table_expr)                                                        \
    extern "C" INFINIRT_PLUGIN_EXPORT infiniStatus_t INFINIRT_PLUGIN_ENTRY(                                    \
        uint32_t loader_version, const infinirtPluginHost_t *host, uint32_t *plugin_version,                   \
        const infinirtPluginTable_t **table) {                                                                 \
        return ::infinirt::common::negotiate(loader_version, host, plugin_version, table, (table_expr));       \
    }

#endif // INFINIRT_COMMON_NEGOTIATE_HPP
