/*
 * stub_short_table.c - a plugin built against an older, shorter table: interface version 1
 * (before modules and kernels), and a struct_size that ends before the memory entries. The entries past struct_size are filled here with functions that
 * would succeed; the loader must not read them and must answer NOT_IMPLEMENTED instead.
 */
#include <infinirt_plugin.h>

#include <stddef.h>

static infiniStatus_t stubInit(void) { return INFINI_STATUS_SUCCESS; }

static infiniStatus_t stubGetDeviceCount(int *count, char *reason, size_t reason_size) {
    (void)reason_size;
    reason[0] = '\0';
    *count = 1;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubStreamCreate(int device, void **stream) {
    static int streams[8];
    *stream = &streams[device & 7];
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubStreamDestroy(int device, void *stream) {
    (void)device;
    (void)stream;
    return INFINI_STATUS_SUCCESS;
}

/* Past struct_size: must never be called. */
static infiniStatus_t stubMallocDevice(int device, void **ptr, size_t size) {
    static char arena[64];
    (void)device;
    (void)size;
    *ptr = arena;
    return INFINI_STATUS_SUCCESS;
}

static const infinirtPluginTable_t kTable = {
    .struct_size = offsetof(infinirtPluginTable_t, malloc_device),
    .version = 1,
    .name = "stubshort",
    .device_type = INFINI_DEVICE_HYGON,
    .init = stubInit,
    .get_device_count = stubGetDeviceCount,
    .stream_create = stubStreamCreate,
    .stream_destroy = stubStreamDestroy,
    .malloc_device = stubMallocDevice,
};

INFINIRT_PLUGIN_EXPORT infiniStatus_t INFINIRT_PLUGIN_ENTRY(uint32_t loader_version, const infinirtPluginHost_t *host,
                                                            uint32_t *plugin_version,
                                                            const infinirtPluginTable_t **table) {
    (void)loader_version;
    (void)host;
    *plugin_version = 1;
    *table = &kTable;
    return INFINI_STATUS_SUCCESS;
}
