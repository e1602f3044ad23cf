/*
 * infinirt_plugin.h - the interface between libinfinirt (the loader) and a backend plugin.
 *
 * A plugin is a shared object named libinfinirt-<name>.so that exports exactly one symbol,
 * INFINIRT_PLUGIN_ENTRY (a function of type infinirtPluginQueryFn). The loader calls it once with
 * the newest interface version it speaks and a table of services it offers; the plugin answers
 * with the version it will use (the minimum of both) and a pointer to its const function table.
 *
 * Rules for plugins:
 *  - Only C types cross this boundary. No C++ exceptions escape (catch everything), no exit/abort.
 *  - Every function takes the device index explicitly (0 <= device < the count the plugin
 *    reported; the loader validates it). The plugin owns its vendor state: contexts, queues,
 *    native handles. It must make the right native context current itself and leave the calling
 *    thread's native state as it found it, except in set_device.
 *  - Stream, event, graph and graph-exec arguments are the plugin's own opaque objects, as it
 *    returned them; the loader has already validated them and routed them to their device.
 *    A NULL stream means the device's default stream.
 *  - Output parameters are written only on success. On failure the plugin should call
 *    host->set_error() with the detail (native call, native error name and number, figures)
 *    before returning the status.
 *  - A NULL entry means "not supported": the loader answers INFINI_STATUS_NOT_IMPLEMENTED, or
 *    falls back where documented (graph capture: the loader records and replays).
 *  - Entries are only ever appended; struct_size tells the loader which ones a plugin has.
 *  - The loader never dlcloses a plugin and never calls it after the process starts exiting;
 *    plugins must not join threads or release driver objects from static destructors.
 *  - Functions may be called concurrently from many threads, for the same or different devices.
 */
#ifndef INFINIRT_PLUGIN_H
#define INFINIRT_PLUGIN_H

#include "infinirt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The newest interface version this header describes. */
/* Version 2 appended the module and kernel entries; version-1 plugins keep loading (their
 * missing entries are NULL: NOT_IMPLEMENTED). */
#define INFINIRT_PLUGIN_INTERFACE_VERSION 2u
/* The one symbol a plugin exports. */
#define INFINIRT_PLUGIN_ENTRY infinirtPluginQuery
#define INFINIRT_PLUGIN_ENTRY_NAME "infinirtPluginQuery"

typedef enum {
    INFINIRT_LOG_ERROR = 0,
    INFINIRT_LOG_WARN = 1,
    INFINIRT_LOG_INFO = 2,
    INFINIRT_LOG_DEBUG = 3
} infinirtLogLevel_t;

/* Services the loader offers to plugins. Valid for the life of the process. */
typedef struct infinirtPluginHost {
    size_t struct_size;
    uint32_t version;
    /* Sets the calling thread's last-error detail (copied). The loader prefixes the backend name. */
    void (*set_error)(const char *message);
    /* Logs through INFINIRT_LOG (copied; no trailing newline needed). */
    void (*log)(infinirtLogLevel_t level, const char *message);
} infinirtPluginHost_t;

/* ---- entry types ------------------------------------------------------------------------
 * One function type per table entry (function types, not pointers), so a plugin declares its
 * entries with them instead of retyping each signature:
 *     infinirtPluginStreamCreateFn streamCreate;      (declares: infiniStatus_t streamCreate(int, void **))
 * The contract of each entry is at its field in infinirtPluginTable_t below. */
typedef infiniStatus_t infinirtPluginInitFn(void);
typedef infiniStatus_t infinirtPluginGetDeviceCountFn(int *count, char *reason, size_t reason_size);
typedef infiniStatus_t infinirtPluginGetDevicePropertiesFn(int device, infinirtDeviceProperties_t *props);
typedef infiniStatus_t infinirtPluginSetDeviceFn(int device);
typedef infiniStatus_t infinirtPluginDeviceSynchronizeFn(int device);
typedef infiniStatus_t infinirtPluginGetMemInfoFn(int device, size_t *free_bytes, size_t *total_bytes);
typedef infiniStatus_t infinirtPluginGetResourceSnapshotFn(int device, infinirtDeviceResourceSnapshot_t *snapshot);
typedef infiniStatus_t infinirtPluginStreamCreateFn(int device, void **stream);
typedef infiniStatus_t infinirtPluginStreamDestroyFn(int device, void *stream);
typedef infiniStatus_t infinirtPluginStreamSynchronizeFn(int device, void *stream);
typedef infiniStatus_t infinirtPluginStreamQueryFn(int device, void *stream);
typedef infiniStatus_t infinirtPluginStreamWaitEventFn(int device, void *stream, void *event);
typedef infiniStatus_t infinirtPluginEventCreateFn(int device, uint32_t flags, void **event);
typedef infiniStatus_t infinirtPluginEventDestroyFn(int device, void *event);
typedef infiniStatus_t infinirtPluginEventRecordFn(int device, void *event, void *stream);
typedef infiniStatus_t infinirtPluginEventQueryFn(int device, void *event, infinirtEventStatus_t *status);
typedef infiniStatus_t infinirtPluginEventSynchronizeFn(int device, void *event);
typedef infiniStatus_t infinirtPluginEventElapsedTimeFn(int device, float *ms, void *start, void *end);
typedef infiniStatus_t infinirtPluginMallocDeviceFn(int device, void **ptr, size_t size);
typedef infiniStatus_t infinirtPluginFreeDeviceFn(int device, void *ptr);
typedef infiniStatus_t infinirtPluginMallocHostFn(int device, void **ptr, size_t size);
typedef infiniStatus_t infinirtPluginFreeHostFn(int device, void *ptr);
typedef infiniStatus_t infinirtPluginMemcpySyncFn(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind);
typedef infiniStatus_t infinirtPluginMemcpyAsyncFn(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind, void *stream);
typedef infiniStatus_t infinirtPluginMemsetSyncFn(int device, void *ptr, int value, size_t count);
typedef infiniStatus_t infinirtPluginMemsetAsyncFn(int device, void *ptr, int value, size_t count, void *stream);
typedef infiniStatus_t infinirtPluginMallocAsyncFn(int device, void **ptr, size_t size, void *stream);
typedef infiniStatus_t infinirtPluginFreeAsyncFn(int device, void *ptr, void *stream);
typedef infiniStatus_t infinirtPluginStreamBeginCaptureFn(int device, void *stream, infinirtStreamCaptureMode_t mode);
typedef infiniStatus_t infinirtPluginStreamEndCaptureFn(int device, void *stream, void **graph);
typedef infiniStatus_t infinirtPluginGraphDestroyFn(int device, void *graph);
typedef infiniStatus_t infinirtPluginGraphInstantiateFn(int device, void **exec, void *graph, char *log, size_t log_size);
typedef infiniStatus_t infinirtPluginGraphExecDestroyFn(int device, void *exec);
typedef infiniStatus_t infinirtPluginGraphLaunchFn(int device, void *exec, void *stream);
typedef infiniStatus_t infinirtPluginStreamGetNativeFn(int device, void *stream, void **native);
typedef infiniStatus_t infinirtPluginEventGetNativeFn(int device, void *event, void **native);
typedef infiniStatus_t infinirtPluginDeviceGetNativeContextFn(int device, void **native);
typedef infiniStatus_t infinirtPluginPointerGetAttributesFn(const void *ptr, infinirtPointerAttributes_t *attributes);
/* version 2 */
typedef infiniStatus_t infinirtPluginModuleLoadFn(int device, const infinirtModuleImage_t *images, size_t count,
                                                  char *log, size_t log_size, void **module);
typedef infiniStatus_t infinirtPluginModuleUnloadFn(int device, void *module);
typedef infiniStatus_t infinirtPluginModuleGetKernelFn(int device, void *module, const char *name, void **kernel);
typedef infiniStatus_t infinirtPluginModuleGetGlobalFn(int device, void *module, const char *name, void **ptr,
                                                       size_t *size);
typedef infiniStatus_t infinirtPluginKernelGetAttributeFn(int device, void *kernel, infinirtKernelAttribute_t attr,
                                                          int64_t *value);
typedef infiniStatus_t infinirtPluginKernelSetAttributeFn(int device, void *kernel, infinirtKernelAttribute_t attr,
                                                          int64_t value);
typedef infiniStatus_t infinirtPluginLaunchKernelFn(int device, void *kernel, const infinirtLaunchConfig_t *config,
                                                    const infinirtKernelArg_t *args, uint32_t num_args, void *stream);
/* appended without a version change (struct_size tells): peers (issue 11) */
typedef infiniStatus_t infinirtPluginDeviceCanAccessPeerFn(int device, int peer, int *can_access);
typedef infiniStatus_t infinirtPluginDeviceGetPeerAttributeFn(int device, int peer, infinirtPeerAttribute_t attr,
                                                              int *value);
typedef infiniStatus_t infinirtPluginDeviceEnablePeerAccessFn(int device, int peer);
typedef infiniStatus_t infinirtPluginDeviceDisablePeerAccessFn(int device, int peer);
typedef infiniStatus_t infinirtPluginMemcpyPeerAsyncFn(int dst_device, void *dst, int src_device, const void *src,
                                                       size_t size, int stream_device, void *stream);
typedef infiniStatus_t infinirtPluginStreamWaitPeerEventFn(int device, void *stream, int event_device, void *event);

typedef struct infinirtPluginTable {
    size_t struct_size;      /* sizeof(infinirtPluginTable_t) as the plugin was built */
    uint32_t version;        /* interface version the table follows */
    const char *name;        /* short backend name: "cpu", "cuda", ... (static storage) */
    infiniDevice_t device_type;

    /* ---- lifetime and devices -------------------------------------------------------- */

    /* Called once, before anything else. A failure marks the plugin FAILED (reason from
     * set_error). A missing vendor library is NOT a failure: init succeeds and
     * get_device_count reports 0 with the reason. */
    infinirtPluginInitFn *init;
    /* Never fails for a missing driver: *count = 0 and `reason` (size reason_size) says why.
     * `reason` is "" when devices were found. */
    infinirtPluginGetDeviceCountFn *get_device_count;
    /* props->struct_size is sizeof(infinirtDeviceProperties_t) of this header; the loader
     * pre-fills unknown fields (-1 / 0 / ""). Set device_kind: the loader reads it to choose the
     * process default device (a CPU-kind device never wins over cpu:0); graphs_native is the
     * loader's (overwritten). */
    infinirtPluginGetDevicePropertiesFn *get_device_properties;
    /* Optional. Called when a thread makes this device current (infinirtSetDevice), so that
     * native per-thread state (e.g. the CUDA current context) can follow. Failure leaves the
     * thread's current device unchanged. */
    infinirtPluginSetDeviceFn *set_device;
    infinirtPluginDeviceSynchronizeFn *device_synchronize;
    infinirtPluginGetMemInfoFn *get_mem_info;
    /* Optional; without it the loader fills the memory fields from get_mem_info. */
    infinirtPluginGetResourceSnapshotFn *get_resource_snapshot;

    /* ---- streams ------------------------------------------------------------------------ */
    infinirtPluginStreamCreateFn *stream_create;
    /* Waits for pending work, then destroys. A failure leaves the stream as it was, usable (the
     * loader keeps its handle); SUCCESS means it is gone. */
    infinirtPluginStreamDestroyFn *stream_destroy;
    infinirtPluginStreamSynchronizeFn *stream_synchronize;
    /* SUCCESS when idle, INFINI_STATUS_NOT_READY when work is pending. */
    infinirtPluginStreamQueryFn *stream_query;
    infinirtPluginStreamWaitEventFn *stream_wait_event;

    /* ---- events ------------------------------------------------------------------------- */
    infinirtPluginEventCreateFn *event_create;
    infinirtPluginEventDestroyFn *event_destroy;
    infinirtPluginEventRecordFn *event_record;
    infinirtPluginEventQueryFn *event_query;
    infinirtPluginEventSynchronizeFn *event_synchronize;
    /* Both events belong to `device`. Same error rules as infinirtEventElapsedTime. */
    infinirtPluginEventElapsedTimeFn *event_elapsed_time;

    /* ---- memory ------------------------------------------------------------------------- */
    /* size > 0 (the loader refuses 0). Failure to allocate is INFINI_STATUS_OUT_OF_MEMORY. */
    infinirtPluginMallocDeviceFn *malloc_device;
    /* Like cudaFree: waits for the device's pending work first, so memory still in use by queued
     * work is never released under it. */
    infinirtPluginFreeDeviceFn *free_device;
    infinirtPluginMallocHostFn *malloc_host;
    infinirtPluginFreeHostFn *free_host;
    /* kind is H2H/H2D/D2H/D2D, or DEFAULT when the loader could not tell a pointer's side
     * (memory infinirt did not allocate); size > 0. Synchronous copies are ordered after work
     * already submitted to the device's default stream and complete before returning. */
    infinirtPluginMemcpySyncFn *memcpy_sync;
    infinirtPluginMemcpyAsyncFn *memcpy_async;
    infinirtPluginMemsetSyncFn *memset_sync;
    infinirtPluginMemsetAsyncFn *memset_async;
    infinirtPluginMallocAsyncFn *malloc_async;
    infinirtPluginFreeAsyncFn *free_async;

    /* ---- graphs (all optional: when stream_begin_capture is NULL the loader records the calls
     * made on a capturing stream and replays them through the entries above) ------------- */
    infinirtPluginStreamBeginCaptureFn *stream_begin_capture;
    infinirtPluginStreamEndCaptureFn *stream_end_capture;
    infinirtPluginGraphDestroyFn *graph_destroy;
    infinirtPluginGraphInstantiateFn *graph_instantiate;
    infinirtPluginGraphExecDestroyFn *graph_exec_destroy;
    infinirtPluginGraphLaunchFn *graph_launch;

    /* ---- native interop (optional) ------------------------------------------------------ */
    infinirtPluginStreamGetNativeFn *stream_get_native;
    infinirtPluginEventGetNativeFn *event_get_native;
    infinirtPluginDeviceGetNativeContextFn *device_get_native_context;
    /* For pointers infinirt did not allocate: SUCCESS and attributes filled if the backend
     * recognises the pointer (e.g. cuPointerGetAttributes), anything else otherwise. */
    infinirtPluginPointerGetAttributesFn *pointer_get_attributes;

    /* ---- modules and kernels (version 2; all optional, together) ------------------------
     * Modules and kernels are the plugin's own objects; the loader wraps them in handles and
     * validates them before every call. A kernel belongs to its module and is never used after
     * module_unload. */

    /* `images` (count >= 1) are validated: struct_size == sizeof(infinirtModuleImage_t), data
     * non-NULL, size > 0, format resolved (never AUTO). The plugin copies what it keeps. `log`
     * may be NULL (log_size 0); when not, the plugin writes the build/JIT log there, truncated
     * and NUL-terminated, on success and on failure ("" when there is none). A format it does not
     * load: BAD_PARAM naming those it does; a build failure: BUILD_FAILED with the log's first
     * lines through set_error. */
    infinirtPluginModuleLoadFn *module_load;
    /* Releases the module and its kernels. Launches already queued must still run correctly
     * (keep references, or wait for them). The loader calls it once, when no handle or graph
     * refers to the module any more. */
    infinirtPluginModuleUnloadFn *module_unload;
    /* SYMBOL_NOT_FOUND naming `name` (and some names that exist, where the plugin can list
     * them). The loader asks once per name and keeps the answer. */
    infinirtPluginModuleGetKernelFn *module_get_kernel;
    /* Optional even when the others exist (NOT_IMPLEMENTED). `size` may be NULL. */
    infinirtPluginModuleGetGlobalFn *module_get_global;
    /* attr is in range. The loader asks MAX_THREADS_PER_BLOCK, MAX_DYNAMIC_SHARED_BYTES and
     * NUM_PARAMS once per kernel and validates launches against them: they must be finite
     * (NUM_PARAMS may be -1). */
    infinirtPluginKernelGetAttributeFn *kernel_get_attribute;
    /* Only MAX_DYNAMIC_SHARED_BYTES reaches it, with a value >= 0. */
    infinirtPluginKernelSetAttributeFn *kernel_set_attribute;
    /* Everything the loader can check is checked (infinirtLaunchKernel's list): config is whole
     * (struct_size == sizeof), each dimension >= 1, the block within MAX_THREADS_PER_BLOCK,
     * dynamic_shared_bytes + LOCAL sizes within MAX_DYNAMIC_SHARED_BYTES, kinds and sizes valid,
     * num_args == NUM_PARAMS where known, the stream on `device`. Argument bytes must be
     * consumed (copied) before returning. Hot path: no allocation, no context call when the
     * stream is explicit. */
    infinirtPluginLaunchKernelFn *launch_kernel;

    /* ---- peers (appended; all optional) -------------------------------------------------
     * Two devices of this plugin: `device` != `peer` (or dst_device != src_device), both valid;
     * the loader answers pairs of a device with itself and pairs of two backends itself. */

    /* Whether access can be enabled. NULL entry: the loader answers 0. */
    infinirtPluginDeviceCanAccessPeerFn *device_can_access_peer;
    /* attr is in range. NULL entry: the loader answers ACCESS_SUPPORTED from
     * device_can_access_peer, COPY_WITHOUT_STAGING from memcpy_peer_async being set, the others 0. */
    infinirtPluginDeviceGetPeerAttributeFn *device_get_peer_attribute;
    /* One direction. Enabling what is enabled is SUCCESS; disabling what is not enabled is
     * BAD_PARAM; a pair without support is BAD_PARAM. NULL entries: the loader answers BAD_PARAM
     * (no pair of such a plugin can access the other). */
    infinirtPluginDeviceEnablePeerAccessFn *device_enable_peer_access;
    infinirtPluginDeviceDisablePeerAccessFn *device_disable_peer_access;
    /* Enqueues a copy of `size` (> 0) bytes from src_device's memory to dst_device's on `stream`,
     * a stream of `stream_device` (dst_device or src_device; NULL: its default stream), whether
     * or not access is enabled. Returns without waiting for the copy. NULL entry: the loader
     * stages the copy through host memory with memcpy_async on each device. */
    infinirtPluginMemcpyPeerAsyncFn *memcpy_peer_async;
    /* Like stream_wait_event, for an event of another device of this plugin (event_device !=
     * device): a device-side wait. NULL entry: the loader blocks the caller until the event has
     * completed. */
    infinirtPluginStreamWaitPeerEventFn *stream_wait_peer_event;
} infinirtPluginTable_t;

/* The entry point. `loader_version` is the newest version the loader speaks; the plugin writes
 * the version it will use (<= loader_version, else the loader refuses it) and its table. */
typedef infiniStatus_t (*infinirtPluginQueryFn)(uint32_t loader_version, const infinirtPluginHost_t *host,
                                                uint32_t *plugin_version, const infinirtPluginTable_t **table);

#if defined(__GNUC__)
#define INFINIRT_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define INFINIRT_PLUGIN_EXPORT
#endif

/* Plugins define this with INFINIRT_PLUGIN_EXPORT. */
infiniStatus_t INFINIRT_PLUGIN_ENTRY(uint32_t loader_version, const infinirtPluginHost_t *host,
                                     uint32_t *plugin_version, const infinirtPluginTable_t **table);

#ifdef __cplusplus
}
#endif

#endif /* INFINIRT_PLUGIN_H */
