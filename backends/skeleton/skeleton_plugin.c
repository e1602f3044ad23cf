/*
 * skeleton_plugin.c - the template a vendor copies to write an infinirt backend.
 *
 * Every entry of the plugin table is present and answers INFINI_STATUS_NOT_IMPLEMENTED, except
 * init (SUCCESS) and get_device_count (0 devices, with the reason). Loaded as is, the backend is
 * listed as UNAVAILABLE with reason "skeleton backend: template only" and serves nothing.
 *
 * To make a real backend:
 *  1. Copy this folder, rename the file and SKELETON_NAME, pick your infiniDevice_t.
 *  2. Build it with infinirt_add_plugin(<name> SOURCES ...) from find_package(infinirt): that
 *     produces libinfinirt-<name>.so exporting only infinirtPluginQuery, and installs it into
 *     <libdir>/infinirt/ where the loader finds it.
 *  3. Load your vendor library with dlopen inside init/get_device_count (never link it), so the
 *     plugin loads on machines without the driver and reports 0 devices with the reason.
 *  4. Fill the entries one by one, and run the conformance suite (tests/conformance) on your
 *     device: everything it checks is the contract. An entry you leave NULL is answered
 *     NOT_IMPLEMENTED by the loader (graph capture: the loader records and replays instead).
 *
 * Rules that hold for every entry (see include/infinirt_plugin.h):
 *  - arguments are validated by the loader: device indices are in range, pointers to outputs are
 *    not NULL, sizes are > 0, streams/events/graphs are objects this plugin returned;
 *  - a NULL stream means the device's default stream;
 *  - outputs are written only on success; before returning an error, call
 *    g_host->set_error() with the native call, the native error's name and number and figures;
 *  - may be called from many threads at once; never throw, exit or abort.
 */
#include <infinirt_plugin.h>

#include <stdio.h>

#define SKELETON_NAME "skeleton"
#define SKELETON_DEVICE_TYPE INFINI_DEVICE_KUNLUN

/* The loader's services (error detail, logging); valid for the life of the process. */
static const infinirtPluginHost_t *g_host;

/* Every unimplemented entry says which one it was, so a caller sees what is missing. */
static infiniStatus_t notImplemented(const char *entry) {
    if (g_host != NULL && g_host->set_error != NULL) {
        char message[128];
        snprintf(message, sizeof message, SKELETON_NAME " backend: %s is not implemented", entry);
        g_host->set_error(message);
    }
    return INFINI_STATUS_NOT_IMPLEMENTED;
}

/* ---- lifetime and devices ---------------------------------------------------------------- */

/* Called once before anything else. Load the vendor library (dlopen) and resolve its symbols
 * here; a missing library is NOT a failure: remember why and report 0 devices later. Fail only
 * for a broken installation (e.g. a library that lacks symbols it must have). */
static infiniStatus_t skeletonInit(void) { return INFINI_STATUS_SUCCESS; }

/* The number of usable devices. Never fails because a driver is missing: *count = 0 and the
 * reason ("libfoo.so.1 not found", "driver 1.2 older than 1.4") in `reason`; "" when found. */
static infiniStatus_t skeletonGetDeviceCount(int *count, char *reason, size_t reason_size) {
    *count = 0;
    snprintf(reason, reason_size, "%s", SKELETON_NAME " backend: template only");
    return INFINI_STATUS_SUCCESS;
}

/* Fill what the device knows: name, vendor, total_memory, architecture, compute units, uuid,
 * pci bus id. Fields left alone keep the loader's defaults (-1 / 0 / ""). */
static infiniStatus_t skeletonGetDeviceProperties(int device, infinirtDeviceProperties_t *props) {
    (void)device;
    (void)props;
    return notImplemented("get_device_properties");
}

/* Optional: make the device's native context current on the calling thread. */
static infiniStatus_t skeletonSetDevice(int device) {
    (void)device;
    return notImplemented("set_device");
}

/* Wait for all work on every stream of the device, the default one included. */
static infiniStatus_t skeletonDeviceSynchronize(int device) {
    (void)device;
    return notImplemented("device_synchronize");
}

/* Free and total device memory in bytes, as the driver reports them. */
static infiniStatus_t skeletonGetMemInfo(int device, size_t *free_bytes, size_t *total_bytes) {
    (void)device;
    (void)free_bytes;
    (void)total_bytes;
    return notImplemented("get_mem_info");
}

/* Optional: utilisation figures; set valid_fields for each one filled. Without this entry the
 * loader fills the memory fields from get_mem_info. */
static infiniStatus_t skeletonGetResourceSnapshot(int device, infinirtDeviceResourceSnapshot_t *snapshot) {
    (void)device;
    (void)snapshot;
    return notImplemented("get_resource_snapshot");
}

/* ---- streams ------------------------------------------------------------------------------ */

/* An in-order queue on the device; work on it runs asynchronously to the host. */
static infiniStatus_t skeletonStreamCreate(int device, void **stream) {
    (void)device;
    (void)stream;
    return notImplemented("stream_create");
}

/* Wait for the stream's pending work, then release it. */
static infiniStatus_t skeletonStreamDestroy(int device, void *stream) {
    (void)device;
    (void)stream;
    return notImplemented("stream_destroy");
}

/* Block until all work submitted to the stream has completed. */
static infiniStatus_t skeletonStreamSynchronize(int device, void *stream) {
    (void)device;
    (void)stream;
    return notImplemented("stream_synchronize");
}

/* SUCCESS when the stream is idle, INFINI_STATUS_NOT_READY while work is pending. */
static infiniStatus_t skeletonStreamQuery(int device, void *stream) {
    (void)device;
    (void)stream;
    return notImplemented("stream_query");
}

/* Work submitted to `stream` afterwards runs after the work `event` captured; does not block the
 * host. An event never recorded imposes no wait. */
static infiniStatus_t skeletonStreamWaitEvent(int device, void *stream, void *event) {
    (void)device;
    (void)stream;
    (void)event;
    return notImplemented("stream_wait_event");
}

/* ---- events ------------------------------------------------------------------------------- */

/* flags: INFINIRT_EVENT_DISABLE_TIMING / BLOCKING_SYNC (already checked by the loader). A new
 * event is COMPLETE until recorded. */
static infiniStatus_t skeletonEventCreate(int device, uint32_t flags, void **event) {
    (void)device;
    (void)flags;
    (void)event;
    return notImplemented("event_create");
}

static infiniStatus_t skeletonEventDestroy(int device, void *event) {
    (void)device;
    (void)event;
    return notImplemented("event_destroy");
}

/* Capture the work submitted to `stream` so far; the event completes when that work has run.
 * Recording again moves the event to the new point. */
static infiniStatus_t skeletonEventRecord(int device, void *event, void *stream) {
    (void)device;
    (void)event;
    (void)stream;
    return notImplemented("event_record");
}

/* COMPLETE or NOT_READY in *status; the call itself succeeds in both cases. */
static infiniStatus_t skeletonEventQuery(int device, void *event, infinirtEventStatus_t *status) {
    (void)device;
    (void)event;
    (void)status;
    return notImplemented("event_query");
}

/* Block until the event has completed (at once if never recorded). */
static infiniStatus_t skeletonEventSynchronize(int device, void *event) {
    (void)device;
    (void)event;
    return notImplemented("event_synchronize");
}

/* Milliseconds between two completed recordings: BAD_PARAM if either was created with
 * DISABLE_TIMING or never recorded, NOT_READY if either has not completed. */
static infiniStatus_t skeletonEventElapsedTime(int device, float *ms, void *start, void *end) {
    (void)device;
    (void)ms;
    (void)start;
    (void)end;
    return notImplemented("event_elapsed_time");
}

/* ---- memory ------------------------------------------------------------------------------- */

/* `size` bytes of device memory; a request the device cannot satisfy is OUT_OF_MEMORY, with the
 * size and the free memory in the message. */
static infiniStatus_t skeletonMallocDevice(int device, void **ptr, size_t size) {
    (void)device;
    (void)ptr;
    (void)size;
    return notImplemented("malloc_device");
}

/* Release memory from malloc_device or malloc_async (the loader checked it is ours). */
static infiniStatus_t skeletonFreeDevice(int device, void *ptr) {
    (void)device;
    (void)ptr;
    return notImplemented("free_device");
}

/* Page-locked host memory the device can copy to and from asynchronously. */
static infiniStatus_t skeletonMallocHost(int device, void **ptr, size_t size) {
    (void)device;
    (void)ptr;
    (void)size;
    return notImplemented("malloc_host");
}

static infiniStatus_t skeletonFreeHost(int device, void *ptr) {
    (void)device;
    (void)ptr;
    return notImplemented("free_host");
}

/* A copy ordered after work already on the device's default stream, complete on return. kind is
 * H2H/H2D/D2H/D2D, or DEFAULT when the loader could not tell which side a pointer is on. */
static infiniStatus_t skeletonMemcpySync(int device, void *dst, const void *src, size_t size,
                                         infinirtMemcpyKind_t kind) {
    (void)device;
    (void)dst;
    (void)src;
    (void)size;
    (void)kind;
    return notImplemented("memcpy_sync");
}

/* The same copy enqueued on `stream`; host memory must stay valid until it has run. */
static infiniStatus_t skeletonMemcpyAsync(int device, void *dst, const void *src, size_t size,
                                          infinirtMemcpyKind_t kind, void *stream) {
    (void)device;
    (void)dst;
    (void)src;
    (void)size;
    (void)kind;
    (void)stream;
    return notImplemented("memcpy_async");
}

/* Set `count` bytes to (unsigned char)value, ordered like memcpy_sync. */
static infiniStatus_t skeletonMemsetSync(int device, void *ptr, int value, size_t count) {
    (void)device;
    (void)ptr;
    (void)value;
    (void)count;
    return notImplemented("memset_sync");
}

static infiniStatus_t skeletonMemsetAsync(int device, void *ptr, int value, size_t count, void *stream) {
    (void)device;
    (void)ptr;
    (void)value;
    (void)count;
    (void)stream;
    return notImplemented("memset_async");
}

/* Stream-ordered allocation: usable by work submitted to `stream` after this call. */
static infiniStatus_t skeletonMallocAsync(int device, void **ptr, size_t size, void *stream) {
    (void)device;
    (void)ptr;
    (void)size;
    (void)stream;
    return notImplemented("malloc_async");
}

/* Release once the stream's earlier work has run; must not block the host. */
static infiniStatus_t skeletonFreeAsync(int device, void *ptr, void *stream) {
    (void)device;
    (void)ptr;
    (void)stream;
    return notImplemented("free_async");
}

/* ---- graphs: leave these six NULL to get the loader's generic capture and replay; fill all of
 * them to use the vendor's own graphs. -------------------------------------------------------- */

/* Start recording work submitted to `stream` instead of running it. */
static infiniStatus_t skeletonStreamBeginCapture(int device, void *stream, infinirtStreamCaptureMode_t mode) {
    (void)device;
    (void)stream;
    (void)mode;
    return notImplemented("stream_begin_capture");
}

/* Stop recording and return the graph of what was recorded. */
static infiniStatus_t skeletonStreamEndCapture(int device, void *stream, void **graph) {
    (void)device;
    (void)stream;
    (void)graph;
    return notImplemented("stream_end_capture");
}

static infiniStatus_t skeletonGraphDestroy(int device, void *graph) {
    (void)device;
    (void)graph;
    return notImplemented("graph_destroy");
}

/* An executable form of the graph; on failure write the reason into `log` (if not NULL). */
static infiniStatus_t skeletonGraphInstantiate(int device, void **exec, void *graph, char *log, size_t log_size) {
    (void)device;
    (void)exec;
    (void)graph;
    (void)log;
    (void)log_size;
    return notImplemented("graph_instantiate");
}

static infiniStatus_t skeletonGraphExecDestroy(int device, void *exec) {
    (void)device;
    (void)exec;
    return notImplemented("graph_exec_destroy");
}

/* Run the recorded work on `stream`, in stream order. */
static infiniStatus_t skeletonGraphLaunch(int device, void *exec, void *stream) {
    (void)device;
    (void)exec;
    (void)stream;
    return notImplemented("graph_launch");
}

/* ---- native interop ----------------------------------------------------------------------- */

/* The vendor object behind a stream (NULL: the default stream's), valid while the stream lives. */
static infiniStatus_t skeletonStreamGetNative(int device, void *stream, void **native) {
    (void)device;
    (void)stream;
    (void)native;
    return notImplemented("stream_get_native");
}

static infiniStatus_t skeletonEventGetNative(int device, void *event, void **native) {
    (void)device;
    (void)event;
    (void)native;
    return notImplemented("event_get_native");
}

/* The device's context (e.g. CUcontext, cl_context), valid for the life of the process. */
static infiniStatus_t skeletonDeviceGetNativeContext(int device, void **native) {
    (void)device;
    (void)native;
    return notImplemented("device_get_native_context");
}

/* For memory infinirt did not allocate: fill `attributes` and succeed if the driver recognises
 * the pointer; any error otherwise (the loader then answers UNKNOWN). */
static infiniStatus_t skeletonPointerGetAttributes(const void *ptr, infinirtPointerAttributes_t *attributes) {
    (void)ptr;
    (void)attributes;
    return notImplemented("pointer_get_attributes");
}

static const infinirtPluginTable_t kTable = {
    .struct_size = sizeof(infinirtPluginTable_t),
    .version = INFINIRT_PLUGIN_INTERFACE_VERSION,
    .name = SKELETON_NAME,
    .device_type = SKELETON_DEVICE_TYPE,
    .init = skeletonInit,
    .get_device_count = skeletonGetDeviceCount,
    .get_device_properties = skeletonGetDeviceProperties,
    .set_device = skeletonSetDevice,
    .device_synchronize = skeletonDeviceSynchronize,
    .get_mem_info = skeletonGetMemInfo,
    .get_resource_snapshot = skeletonGetResourceSnapshot,
    .stream_create = skeletonStreamCreate,
    .stream_destroy = skeletonStreamDestroy,
    .stream_synchronize = skeletonStreamSynchronize,
    .stream_query = skeletonStreamQuery,
    .stream_wait_event = skeletonStreamWaitEvent,
    .event_create = skeletonEventCreate,
    .event_destroy = skeletonEventDestroy,
    .event_record = skeletonEventRecord,
    .event_query = skeletonEventQuery,
    .event_synchronize = skeletonEventSynchronize,
    .event_elapsed_time = skeletonEventElapsedTime,
    .malloc_device = skeletonMallocDevice,
    .free_device = skeletonFreeDevice,
    .malloc_host = skeletonMallocHost,
    .free_host = skeletonFreeHost,
    .memcpy_sync = skeletonMemcpySync,
    .memcpy_async = skeletonMemcpyAsync,
    .memset_sync = skeletonMemsetSync,
    .memset_async = skeletonMemsetAsync,
    .malloc_async = skeletonMallocAsync,
    .free_async = skeletonFreeAsync,
    .stream_begin_capture = skeletonStreamBeginCapture,
    .stream_end_capture = skeletonStreamEndCapture,
    .graph_destroy = skeletonGraphDestroy,
    .graph_instantiate = skeletonGraphInstantiate,
    .graph_exec_destroy = skeletonGraphExecDestroy,
    .graph_launch = skeletonGraphLaunch,
    .stream_get_native = skeletonStreamGetNative,
    .event_get_native = skeletonEventGetNative,
    .device_get_native_context = skeletonDeviceGetNativeContext,
    .pointer_get_attributes = skeletonPointerGetAttributes,
};

/* Negotiation: use the older of the two interface versions; this table follows version 1. */
INFINIRT_PLUGIN_EXPORT infiniStatus_t INFINIRT_PLUGIN_ENTRY(uint32_t loader_version, const infinirtPluginHost_t *host,
                                                            uint32_t *plugin_version,
                                                            const infinirtPluginTable_t **table) {
    if (loader_version < INFINIRT_PLUGIN_INTERFACE_VERSION) {
        return INFINI_STATUS_NOT_IMPLEMENTED;
    }
    g_host = host;
    *plugin_version = INFINIRT_PLUGIN_INTERFACE_VERSION;
    *table = &kTable;
    return INFINI_STATUS_SUCCESS;
}
