/*
 * stub_failing_init.c - negotiates correctly, then its init fails with a detail set through the
 * host. The loader must list it as FAILED with that detail in the reason and keep going.
 */
#include <infinirt_plugin.h>

static const infinirtPluginHost_t *g_host;

static infiniStatus_t stubInit(void) {
    g_host->set_error("stub init failed on purpose (marker 4711)");
    return INFINI_STATUS_INTERNAL_ERROR;
}

static infiniStatus_t stubGetDeviceCount(int *count, char *reason, size_t reason_size) {
    (void)reason;
    (void)reason_size;
    *count = 1;
    return INFINI_STATUS_SUCCESS;
}

static const infinirtPluginTable_t kTable = {
    .struct_size = sizeof(infinirtPluginTable_t),
    .version = INFINIRT_PLUGIN_INTERFACE_VERSION,
    .name = "stubinitfail",
    .device_type = INFINI_DEVICE_METAX,
    .init = stubInit,
    .get_device_count = stubGetDeviceCount,
};

INFINIRT_PLUGIN_EXPORT infiniStatus_t INFINIRT_PLUGIN_ENTRY(uint32_t loader_version, const infinirtPluginHost_t *host,
                                                            uint32_t *plugin_version,
                                                            const infinirtPluginTable_t **table) {
    (void)loader_version;
    g_host = host;
    *plugin_version = INFINIRT_PLUGIN_INTERFACE_VERSION;
    *table = &kTable;
    return INFINI_STATUS_SUCCESS;
}
