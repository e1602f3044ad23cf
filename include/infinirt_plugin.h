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
#define INFINIRT_PLUGIN_INTERFACE_VERSION 1u
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

typedef struct infinirtPluginTable {
    size_t struct_size;      /* sizeof(infinirtPluginTable_t) as the plugin was built */
    uint32_t version;        /* interface version the table follows */
    const char *name;        /* short backend name: "cpu", "cuda", ... (static storage) */
    infiniDevice_t device_type;

    /* ---- lifetime and devices -------------------------------------------------------- */

    /* Called once, before anything else. A failure marks the plugin FAILED (reason from
     * set_error). A missing vendor library is NOT a failure: init succeeds and
     * get_device_count reports 0 with the reason. */
    infiniStatus_t (*init)(void);
    /* Never fails for a missing driver: *count = 0 and `reason` (size reason_size) says why.
     * `reason` is "" when devices were found. */
    infiniStatus_t (*get_device_count)(int *count, char *reason, size_t reason_size);
    /* props->struct_size is sizeof(infinirtDeviceProperties_t) of this header; the loader
     * pre-fills unknown fields (-1 / 0 / ""). */
    infiniStatus_t (*get_device_properties)(int device, infinirtDeviceProperties_t *props);
    /* Optional. Called when a thread makes this device current (infinirtSetDevice), so that
     * native per-thread state (e.g. the CUDA current context) can follow. Failure leaves the
     * thread's current device unchanged. */
    infiniStatus_t (*set_device)(int device);
    infiniStatus_t (*device_synchronize)(int device);
    infiniStatus_t (*get_mem_info)(int device, size_t *free_bytes, size_t *total_bytes);
    /* Optional; without it the loader fills the memory fields from get_mem_info. */
    infiniStatus_t (*get_resource_snapshot)(int device, infinirtDeviceResourceSnapshot_t *snapshot);

    /* ---- streams ------------------------------------------------------------------------ */
    infiniStatus_t (*stream_create)(int device, void **stream);
    /* Waits for pending work, then destroys. */
    infiniStatus_t (*stream_destroy)(int device, void *stream);
    infiniStatus_t (*stream_synchronize)(int device, void *stream);
    /* SUCCESS when idle, INFINI_STATUS_NOT_READY when work is pending. */
    infiniStatus_t (*stream_query)(int device, void *stream);
    infiniStatus_t (*stream_wait_event)(int device, void *stream, void *event);

    /* ---- events ------------------------------------------------------------------------- */
    infiniStatus_t (*event_create)(int device, uint32_t flags, void **event);
    infiniStatus_t (*event_destroy)(int device, void *event);
    infiniStatus_t (*event_record)(int device, void *event, void *stream);
    infiniStatus_t (*event_query)(int device, void *event, infinirtEventStatus_t *status);
    infiniStatus_t (*event_synchronize)(int device, void *event);
    /* Both events belong to `device`. Same error rules as infinirtEventElapsedTime. */
    infiniStatus_t (*event_elapsed_time)(int device, float *ms, void *start, void *end);

    /* ---- memory ------------------------------------------------------------------------- */
    /* size > 0 (the loader refuses 0). Failure to allocate is INFINI_STATUS_OUT_OF_MEMORY. */
    infiniStatus_t (*malloc_device)(int device, void **ptr, size_t size);
    /* Like cudaFree: waits for the device's pending work first, so memory still in use by queued
     * work is never released under it. */
    infiniStatus_t (*free_device)(int device, void *ptr);
    infiniStatus_t (*malloc_host)(int device, void **ptr, size_t size);
    infiniStatus_t (*free_host)(int device, void *ptr);
    /* kind is H2H/H2D/D2H/D2D, or DEFAULT when the loader could not tell a pointer's side
     * (memory infinirt did not allocate); size > 0. Synchronous copies are ordered after work
     * already submitted to the device's default stream and complete before returning. */
    infiniStatus_t (*memcpy_sync)(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind);
    infiniStatus_t (*memcpy_async)(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind,
                                   void *stream);
    infiniStatus_t (*memset_sync)(int device, void *ptr, int value, size_t count);
    infiniStatus_t (*memset_async)(int device, void *ptr, int value, size_t count, void *stream);
    infiniStatus_t (*malloc_async)(int device, void **ptr, size_t size, void *stream);
    infiniStatus_t (*free_async)(int device, void *ptr, void *stream);

    /* ---- graphs (all optional: when stream_begin_capture is NULL the loader records the calls
     * made on a capturing stream and replays them through the entries above) ------------- */
    infiniStatus_t (*stream_begin_capture)(int device, void *stream, infinirtStreamCaptureMode_t mode);
    infiniStatus_t (*stream_end_capture)(int device, void *stream, void **graph);
    infiniStatus_t (*graph_destroy)(int device, void *graph);
    infiniStatus_t (*graph_instantiate)(int device, void **exec, void *graph, char *log, size_t log_size);
    infiniStatus_t (*graph_exec_destroy)(int device, void *exec);
    infiniStatus_t (*graph_launch)(int device, void *exec, void *stream);

    /* ---- native interop (optional) ------------------------------------------------------ */
    infiniStatus_t (*stream_get_native)(int device, void *stream, void **native);
    infiniStatus_t (*event_get_native)(int device, void *event, void **native);
    infiniStatus_t (*device_get_native_context)(int device, void **native);
    /* For pointers infinirt did not allocate: SUCCESS and attributes filled if the backend
     * recognises the pointer (e.g. cuPointerGetAttributes), anything else otherwise. */
    infiniStatus_t (*pointer_get_attributes)(const void *ptr, infinirtPointerAttributes_t *attributes);
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
