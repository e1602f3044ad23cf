/*
 * stub_minimal.c - a plugin with only init and get_device_count; every other entry is NULL.
 *
 * Built several times with different STUB_NAME / STUB_DEVICE_TYPE / STUB_DEVICES:
 *  - twice claiming one device type, to check the first in search order wins (the other SHADOWED);
 *  - once as a backend whose NULL entries the loader must answer with NOT_IMPLEMENTED;
 *  - once claiming the cpu type from an INFINIRT_PLUGIN_PATH directory, which is searched first;
 *  - with no device and a STUB_REASON (default ""), as a backend whose driver failed.
 */
#include <infinirt_plugin.h>

#include <stdio.h>

#if !defined(STUB_NAME) || !defined(STUB_DEVICE_TYPE) || !defined(STUB_DEVICES)
#error "define STUB_NAME, STUB_DEVICE_TYPE and STUB_DEVICES"
#endif
#ifndef STUB_REASON
#define STUB_REASON ""
#endif

static infiniStatus_t stubInit(void) { return INFINI_STATUS_SUCCESS; }

static infiniStatus_t stubGetDeviceCount(int *count, char *reason, size_t reason_size) {
    snprintf(reason, reason_size, "%s", STUB_REASON);
    *count = STUB_DEVICES;
    return INFINI_STATUS_SUCCESS;
}

static const infinirtPluginTable_t kTable = {
    .struct_size = sizeof(infinirtPluginTable_t),
    .version = INFINIRT_PLUGIN_INTERFACE_VERSION,
    .name = STUB_NAME,
    .device_type = STUB_DEVICE_TYPE,
    .init = stubInit,
    .get_device_count = stubGetDeviceCount,
};

INFINIRT_PLUGIN_EXPORT infiniStatus_t INFINIRT_PLUGIN_ENTRY(uint32_t loader_version, const infinirtPluginHost_t *host,
                                                            uint32_t *plugin_version,
                                                            const infinirtPluginTable_t **table) {
    (void)loader_version;
    (void)host;
    *plugin_version = INFINIRT_PLUGIN_INTERFACE_VERSION;
    *table = &kTable;
    return INFINI_STATUS_SUCCESS;
}
