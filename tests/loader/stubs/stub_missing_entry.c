/*
 * stub_missing_entry.c - a shared object named like a plugin that does not export
 * infinirtPluginQuery (only a misspelled look-alike). The loader must list it as FAILED.
 */
#include <infinirt_plugin.h>

__attribute__((visibility("default"))) infiniStatus_t infinirtPluginQueri(uint32_t loader_version,
                                                                           const infinirtPluginHost_t *host,
                                                                           uint32_t *plugin_version,
                                                                           const infinirtPluginTable_t **table);

infiniStatus_t infinirtPluginQueri(uint32_t loader_version, const infinirtPluginHost_t *host,
                                   uint32_t *plugin_version, const infinirtPluginTable_t **table) {
    (void)loader_version;
    (void)host;
    (void)plugin_version;
    (void)table;
    return INFINI_STATUS_INTERNAL_ERROR;
}
