/*
 * stub_wrong_version.c - answers an interface version newer than the loader speaks. The loader
 * must refuse it (FAILED, negotiated version 0) and never call its table.
 */
#include <infinirt_plugin.h>

#include <stdlib.h>

static infiniStatus_t stubInit(void) { abort(); /* the loader must not get this far */ }

static infiniStatus_t stubGetDeviceCount(int *count, char *reason, size_t reason_size) {
    (void)reason;
    (void)reason_size;
    *count = 1;
    return INFINI_STATUS_SUCCESS;
}

static const infinirtPluginTable_t kTable = {
    .struct_size = sizeof(infinirtPluginTable_t),
    .version = INFINIRT_PLUGIN_INTERFACE_VERSION + 1,
    .name = "stubversion",
    .device_type = INFINI_DEVICE_ASCEND,
    .init = stubInit,
    .get_device_count = stubGetDeviceCount,
};

INFINIRT_PLUGIN_EXPORT infiniStatus_t INFINIRT_PLUGIN_ENTRY(uint32_t loader_version, const infinirtPluginHost_t *host,
                                                            uint32_t *plugin_version,
                                                            const infinirtPluginTable_t **table) {
    (void)host;
    *plugin_version = loader_version + 1;
    *table = &kTable;
    return INFINI_STATUS_SUCCESS;
}
