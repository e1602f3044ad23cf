/*
 * stub_error_channel.c - a plugin that calls host->set_error where the loader must NOT report the
 * detail, to check that a detail never outlives the plugin call that set it.
 *
 * Built three times (see CMakeLists.txt), by STUB_FAIL:
 *  - STUB_FAIL_NONE ("errchan", one device): loads and serves its device type; its entries leave
 *    a detail behind on calls the loader does not report as failures:
 *      stream_query            set_error + NOT_READY (an answer, not a failure)      marker 8201
 *      event_query             set_error + SUCCESS (*status = NOT_READY)             marker 8202
 *                              or, for an event created with BLOCKING_SYNC,
 *                              set_error + NOT_READY as a status                     marker 8205
 *    and fails where the loader must report the failure with nothing of an earlier detail:
 *      event_query of an event created with DISABLE_TIMING alone: DRIVER_ERROR, no detail;
 *      with DISABLE_TIMING | BLOCKING_SYNC: its odd-numbered queries fail with DRIVER_ERROR and a
 *                              detail (marker 8206), the others succeed (*status = COMPLETE);
 *      stream_query while the environment has STUB_ERRCHAN_STREAM_QUERY=fail: DRIVER_ERROR, no
 *                              detail;
 *      pointer_get_attributes  set_error + BAD_PARAM (the loader's probe ignores it) marker 8203
 *    and event_elapsed_time always fails with NOT_READY: with no detail, unless the start event
 *    was created with INFINIRT_EVENT_BLOCKING_SYNC (then with its own detail, marker 8204);
 *  - STUB_FAIL_QUERY ("errquery"): the entry query fails with a detail (marker 8102);
 *  - STUB_FAIL_COUNT ("errcount"): get_device_count fails with a detail (marker 8103).
 */
#include <infinirt_plugin.h>

#include <stdint.h>
#include <stdlib.h>

#define STUB_FAIL_NONE 0
#define STUB_FAIL_QUERY 1
#define STUB_FAIL_COUNT 2

#if !defined(STUB_NAME) || !defined(STUB_DEVICE_TYPE) || !defined(STUB_FAIL)
#error "define STUB_NAME, STUB_DEVICE_TYPE and STUB_FAIL"
#endif

static const infinirtPluginHost_t *g_host;

typedef struct {
    uint32_t flags;
    unsigned queries; /* event_query calls so far */
} StubEvent;

static int g_stream_object; /* every stream is this one object: only its address matters */

static infiniStatus_t stubInit(void) { return INFINI_STATUS_SUCCESS; }

static infiniStatus_t stubGetDeviceCount(int *count, char *reason, size_t reason_size) {
    (void)reason_size;
    reason[0] = '\0';
    if (STUB_FAIL == STUB_FAIL_COUNT) {
        g_host->set_error("device count refused (marker 8103)");
        return INFINI_STATUS_DRIVER_ERROR;
    }
    *count = 1;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubStreamCreate(int device, void **stream) {
    (void)device;
    *stream = &g_stream_object;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubStreamDestroy(int device, void *stream) {
    (void)device;
    (void)stream;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubStreamQuery(int device, void *stream) {
    (void)device;
    (void)stream;
    const char *mode = getenv("STUB_ERRCHAN_STREAM_QUERY");
    if (mode != NULL && mode[0] == 'f') {
        return INFINI_STATUS_DRIVER_ERROR;
    }
    g_host->set_error("stream still busy (marker 8201)");
    return INFINI_STATUS_NOT_READY;
}

static infiniStatus_t stubEventCreate(int device, uint32_t flags, void **event) {
    (void)device;
    StubEvent *e = (StubEvent *)malloc(sizeof *e);
    if (e == NULL) {
        g_host->set_error("stub: malloc failed");
        return INFINI_STATUS_OUT_OF_MEMORY;
    }
    e->flags = flags;
    e->queries = 0;
    *event = e;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubEventDestroy(int device, void *event) {
    (void)device;
    free(event);
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubEventRecord(int device, void *event, void *stream) {
    (void)device;
    (void)event;
    (void)stream;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubEventQuery(int device, void *event, infinirtEventStatus_t *status) {
    (void)device;
    StubEvent *e = (StubEvent *)event;
    ++e->queries;
    if (e->flags == (INFINIRT_EVENT_DISABLE_TIMING | INFINIRT_EVENT_BLOCKING_SYNC)) {
        if (e->queries % 2 == 1) {
            g_host->set_error("event query failed for now (marker 8206)");
            return INFINI_STATUS_DRIVER_ERROR;
        }
        *status = INFINIRT_EVENT_COMPLETE;
        return INFINI_STATUS_SUCCESS;
    }
    if (e->flags == INFINIRT_EVENT_DISABLE_TIMING) {
        return INFINI_STATUS_DRIVER_ERROR;
    }
    if (((const StubEvent *)event)->flags & INFINIRT_EVENT_BLOCKING_SYNC) {
        g_host->set_error("event still pending (marker 8205)");
        return INFINI_STATUS_NOT_READY; /* the answer as a status, the way cudaEventQuery gives it */
    }
    g_host->set_error("event query note (marker 8202)");
    *status = INFINIRT_EVENT_NOT_READY;
    return INFINI_STATUS_SUCCESS;
}

static infiniStatus_t stubEventElapsedTime(int device, float *ms, void *start, void *end) {
    (void)device;
    (void)ms;
    (void)end;
    if (((const StubEvent *)start)->flags & INFINIRT_EVENT_BLOCKING_SYNC) {
        g_host->set_error("elapsed time refused (marker 8204)");
    }
    return INFINI_STATUS_NOT_READY;
}

static infiniStatus_t stubPointerGetAttributes(const void *ptr, infinirtPointerAttributes_t *attributes) {
    (void)ptr;
    (void)attributes;
    g_host->set_error("pointer not mine (marker 8203)");
    return INFINI_STATUS_BAD_PARAM;
}

static const infinirtPluginTable_t kTable = {
    .struct_size = sizeof(infinirtPluginTable_t),
    .version = INFINIRT_PLUGIN_INTERFACE_VERSION,
    .name = STUB_NAME,
    .device_type = STUB_DEVICE_TYPE,
    .init = stubInit,
    .get_device_count = stubGetDeviceCount,
    .stream_create = stubStreamCreate,
    .stream_destroy = stubStreamDestroy,
    .stream_query = stubStreamQuery,
    .event_create = stubEventCreate,
    .event_destroy = stubEventDestroy,
    .event_record = stubEventRecord,
    .event_query = stubEventQuery,
    .event_elapsed_time = stubEventElapsedTime,
    .pointer_get_attributes = stubPointerGetAttributes,
};

INFINIRT_PLUGIN_EXPORT infiniStatus_t INFINIRT_PLUGIN_ENTRY(uint32_t loader_version, const infinirtPluginHost_t *host,
                                                            uint32_t *plugin_version,
                                                            const infinirtPluginTable_t **table) {
    (void)loader_version;
    g_host = host;
    if (STUB_FAIL == STUB_FAIL_QUERY) {
        host->set_error("entry query refused (marker 8102)");
        return INFINI_STATUS_NOT_IMPLEMENTED;
    }
    *plugin_version = INFINIRT_PLUGIN_INTERFACE_VERSION;
    *table = &kTable;
    return INFINI_STATUS_SUCCESS;
}
