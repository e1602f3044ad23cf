/*
 * external_plugin.c - a small but working backend built outside the infinirt tree.
 *
 * Claims INFINI_DEVICE_QY with one device whose "device memory" is host memory and whose streams
 * complete work as it is submitted (an in-order queue that is always drained), so everything the
 * drop-in client does can be checked. Graph entries are left NULL: the loader captures generically.
 */
#include <infinirt_plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXTERNAL_MEMORY ((size_t)1 << 30)

static const infinirtPluginHost_t *g_host;

static infiniStatus_t externalInit(void) { return INFINI_STATUS_SUCCESS; }

static infiniStatus_t externalGetDeviceCount(int *count, char *reason, size_t reason_size) {
    (void)reason_size;
    reason[0] = '\0';
    *count = 1;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t externalGetDeviceProperties(int device, infinirtDeviceProperties_t *props) {
    snprintf(props->name, sizeof props->name, "external device %d", device);
    snprintf(props->vendor, sizeof props->vendor, "infinirt tests");
    props->total_memory = EXTERNAL_MEMORY;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t externalDeviceSynchronize(int device) {
    (void)device;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t externalGetMemInfo(int device, size_t *free_bytes, size_t *total_bytes) {
    (void)device;
    *free_bytes = EXTERNAL_MEMORY;
    *total_bytes = EXTERNAL_MEMORY;
    return INFINI_STATUS_SUCCESS;
}

/* Streams and events carry no state (work is done on submission): each is a distinct token. */
static infiniStatus_t externalObjectCreate(int device, void **object) {
    (void)device;
    void *token = malloc(1);
    if (token == NULL) {
        g_host->set_error("external: out of host memory for a stream or event");
        return INFINI_STATUS_OUT_OF_MEMORY;
    }
    *object = token;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t externalObjectDestroy(int device, void *object) {
    (void)device;
    free(object);
    return INFINI_STATUS_SUCCESS;
}

/* Synchronize/query: nothing is ever pending. */
static infiniStatus_t externalObjectDone(int device, void *object) {
    (void)device;
    (void)object;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t externalStreamWaitEvent(int device, void *stream, void *event) {
    (void)device;
    (void)stream;
    (void)event;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t externalEventCreate(int device, uint32_t flags, void **event) {
    (void)flags;
    return externalObjectCreate(device, event);
}

static infiniStatus_t externalEventRecord(int device, void *event, void *stream) {
    (void)device;
    (void)event;
    (void)stream;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t externalEventQuery(int device, void *event, infinirtEventStatus_t *status) {
    (void)device;
    (void)event;
    *status = INFINIRT_EVENT_COMPLETE;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t externalMalloc(int device, void **ptr, size_t size) {
    (void)device;
    void *p = size <= EXTERNAL_MEMORY ? malloc(size) : NULL;
    if (p == NULL) {
        char message[128];
        snprintf(message, sizeof message, "external: malloc of %zu bytes failed", size);
        g_host->set_error(message);
        return INFINI_STATUS_OUT_OF_MEMORY;
    }
    *ptr = p;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t externalFree(int device, void *ptr) {
    (void)device;
    free(ptr);
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t externalMemcpy(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind) {
    (void)device;
    (void)kind;
    memmove(dst, src, size);
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t externalMemcpyAsync(int device, void *dst, const void *src, size_t size,
                                          infinirtMemcpyKind_t kind, void *stream) {
    (void)stream;
    return externalMemcpy(device, dst, src, size, kind);
}

static infiniStatus_t externalMemset(int device, void *ptr, int value, size_t count) {
    (void)device;
    memset(ptr, value, count);
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t externalMemsetAsync(int device, void *ptr, int value, size_t count, void *stream) {
    (void)stream;
    return externalMemset(device, ptr, value, count);
}

static const infinirtPluginTable_t kTable = {
    .struct_size = sizeof(infinirtPluginTable_t),
    .version = INFINIRT_PLUGIN_INTERFACE_VERSION,
    .name = "external",
    .device_type = INFINI_DEVICE_QY,
    .init = externalInit,
    .get_device_count = externalGetDeviceCount,
    .get_device_properties = externalGetDeviceProperties,
    .device_synchronize = externalDeviceSynchronize,
    .get_mem_info = externalGetMemInfo,
    .stream_create = externalObjectCreate,
    .stream_destroy = externalObjectDestroy,
    .stream_synchronize = externalObjectDone,
    .stream_query = externalObjectDone,
    .stream_wait_event = externalStreamWaitEvent,
    .event_create = externalEventCreate,
    .event_destroy = externalObjectDestroy,
    .event_record = externalEventRecord,
    .event_query = externalEventQuery,
    .event_synchronize = externalObjectDone,
    .malloc_device = externalMalloc,
    .free_device = externalFree,
    .malloc_host = externalMalloc,
    .free_host = externalFree,
    .memcpy_sync = externalMemcpy,
    .memcpy_async = externalMemcpyAsync,
    .memset_sync = externalMemset,
    .memset_async = externalMemsetAsync,
};

INFINIRT_PLUGIN_EXPORT infiniStatus_t INFINIRT_PLUGIN_ENTRY(uint32_t loader_version, const infinirtPluginHost_t *host,
                                                            uint32_t *plugin_version,
                                                            const infinirtPluginTable_t **table) {
    if (loader_version < 1) {
        return INFINI_STATUS_NOT_IMPLEMENTED;
    }
    g_host = host;
    *plugin_version = INFINIRT_PLUGIN_INTERFACE_VERSION < loader_version ? INFINIRT_PLUGIN_INTERFACE_VERSION
                                                                         : loader_version;
    *table = &kTable;
    return INFINI_STATUS_SUCCESS;
}
