/* A collective plugin for cpu whose init always fails: listed before the real cpu plugin, it must
 * give way to it (the loader prefers a usable plugin for a device type, as infinirt prefers one
 * that found devices). */
#include <infiniccl_plugin.h>

#include <stdio.h>

static infiniStatus_t init(char *reason, size_t reason_size) {
    snprintf(reason, reason_size, "a test plugin that is never usable");
    return INFINI_STATUS_BACKEND_UNAVAILABLE;
}

static const infinicclPluginTable_t kTable = {
    .struct_size = sizeof(infinicclPluginTable_t),
    .version = INFINICCL_PLUGIN_INTERFACE_VERSION,
    .name = "aaunusable",
    .device_type = INFINI_DEVICE_CPU,
    .init = init,
};

__attribute__((visibility("default"))) infiniStatus_t infinicclPluginQuery(uint32_t loader_version,
                                                                           const infinicclPluginHost_t *host,
                                                                           uint32_t *plugin_version,
                                                                           const infinicclPluginTable_t **table) {
    (void)loader_version;
    (void)host;
    *plugin_version = INFINICCL_PLUGIN_INTERFACE_VERSION;
    *table = &kTable;
    return INFINI_STATUS_SUCCESS;
}
