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
 *  - The loader reads the table's entries once init has returned: init may still set entries NULL
 *    (what the native runtime turned out not to support); after init the table stays as it is.
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

/* The most devices of one type the loader serves: a plugin whose get_device_count reports more
 * is refused whole (FAILED, with the count in its reason), so that no plugin's answer sizes the
 * loader's per-device state. */
#define INFINIRT_MAX_DEVICES_PER_TYPE 1024
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

/* Backend-wide facts the loader asks once, after init (get_plugin_traits). The loader sets
 * struct_size and the defaults below before the call; the plugin overwrites what it knows. */
typedef struct infinirtPluginTraits {
    size_t struct_size;
    /* How well the backend's devices copy from its own pinned host memory (malloc_host), when the
     * loader stages a copy between two devices that cannot copy to each other: the bounce buffers
     * come from the side with the higher rank (the source on a tie). 0 (default): ordinary host
     * memory, no gain; 1: host memory the device maps; 2: page-locked memory the device reaches by
     * DMA. */
    int host_staging_rank;
    /* The native error the backend reports when it runs out of memory, and a generic native
     * failure, each as the plugin's error details print it ("CUDA_ERROR_OUT_OF_MEMORY (2)"),
     * static storage. The loader's fault injection writes them into the failures it fakes. NULL
     * (default): "ENOMEM" and "EIO". */
    const char *native_out_of_memory_error;
    const char *native_failure_error;
    /* 1: the backend's device memory is ordinary host memory (the cpu backend's), so a copy
     * between it and another backend's device is that backend's own H2D or D2H, unstaged. 2: the
     * memory of some devices is: get_device_properties sets memory_is_host for each (asked once
     * per device while the plugin is loaded). 0 (default): staged through pinned host memory. */
    int device_memory_is_host;
} infinirtPluginTraits_t;

/* ---- the entries -------------------------------------------------------------------------
 * INFINIRT_PLUGIN_ENTRIES(X, P, c) is the one list of the table's entries, in table order. It
 * expands X(c, field, Type, impl, api, kind, params) once per entry:
 *   field   the member of infinirtPluginTable_t;
 *   Type    its function type is infinirtPlugin<Type>Fn (a function type, so an implementation
 *           is declared as `infinirtPluginStreamCreateFn streamCreate;`);
 *   impl    the conventional name of an implementation (the project's backends use it);
 *   api     the C API function whose calls reach the entry (what the loader's layers report);
 *   kind    LOADER: asked by the loader itself while loading or choosing (never wrapped by the
 *           layers); COLD; HOT: called once per enqueue or poll (the fast paths);
 *   params  the parameter list, `(void)` or `(P(role, type, name), ...)`;
 *   c       passed through unchanged (a context for X).
 * A parameter's role tells the loader's layers (validation, trace, fault injection) what it is:
 *   Skip (not recorded), Device (the device index), Value (an integer, enum or flags), Size (a
 *   byte count), Dst / Src (the range a call writes / reads, its size the Size argument),
 *   FreePtr (memory released), OutMem (void **: memory created), OutGlobal / OutGlobalSize (a
 *   module global's address and size), Stream, Event, Graph, Exec, Module, Kernel (an object
 *   used), Out<Object> (void **: an object created), Destroy<Object> (an object destroyed),
 *   KernelArgs (const infinirtKernelArg_t *, its count the next Value), Mapped / Unmapped (void *:
 *   a range made memory / given back, its size the Size argument).
 * The groups below can also be expanded alone. Entries are only ever appended to the last one.
 *
 * The contract of each entry follows, group by group.
 *
 * ---- lifetime and devices
 * init: called once, before anything else. A failure marks the plugin FAILED (reason from
 *   set_error). A missing vendor library is NOT a failure: init succeeds and get_device_count
 *   reports 0 with the reason.
 * get_device_count: never fails for a missing driver: *count = 0 and `reason` (size
 *   reason_size) says why; `reason` is "" when devices were found. A count above
 *   INFINIRT_MAX_DEVICES_PER_TYPE (or below 0) is refused: the plugin is FAILED, and its reason
 *   (infinirt-info, infinirtGetBackendInfo) gives the count and the limit. A reason that says "failed"
 *   ("cuInit failed: ...") marks a driver that is installed but did not work: when the process
 *   then falls back to cpu:0, the loader logs it as a warning; any other reason (the driver or
 *   the device is absent: "libcuda.so.1 not found: ...") is logged at info only.
 * get_device_properties: props->struct_size is sizeof(infinirtDeviceProperties_t) of this
 *   header; the loader pre-fills unknown fields (-1 / 0 / ""). Set device_kind: the loader reads
 *   it to choose the process default device (a CPU-kind device never wins over cpu:0);
 *   graphs_native is the loader's (overwritten), and so is memory_is_host, which a plugin whose
 *   traits say device_memory_is_host = 2 sets for the loader to read while loading it.
 * set_device: optional. Called when a thread makes this device current (infinirtSetDevice), so
 *   that native per-thread state (e.g. the CUDA current context) can follow. Failure leaves the
 *   thread's current device unchanged.
 * get_resource_snapshot: optional; without it the loader fills the memory fields from
 *   get_mem_info. */
#define INFINIRT_PLUGIN_ENTRIES_DEVICES(X, P, c)                                                                \
    X(c, init, Init, init, infinirtGetDeviceCount, LOADER, (void))                                               \
    X(c, get_device_count, GetDeviceCount, getDeviceCount, infinirtGetDeviceCount, LOADER,                       \
      (P(Skip, int *, count), P(Skip, char *, reason), P(Skip, size_t, reason_size)))                           \
    X(c, get_device_properties, GetDeviceProperties, getDeviceProperties, infinirtGetDeviceProperties, COLD,     \
      (P(Device, int, device), P(Skip, infinirtDeviceProperties_t *, props)))                                    \
    X(c, set_device, SetDevice, setDevice, infinirtSetDevice, COLD, (P(Device, int, device)))                    \
    X(c, device_synchronize, DeviceSynchronize, deviceSynchronize, infinirtDeviceSynchronize, COLD,             \
      (P(Device, int, device)))                                                                                  \
    X(c, get_mem_info, GetMemInfo, getMemInfo, infinirtGetMemInfo, COLD,                                         \
      (P(Device, int, device), P(Skip, size_t *, free_bytes), P(Skip, size_t *, total_bytes)))                   \
    X(c, get_resource_snapshot, GetResourceSnapshot, getResourceSnapshot, infinirtGetDeviceResourceSnapshot,     \
      COLD, (P(Device, int, device), P(Skip, infinirtDeviceResourceSnapshot_t *, snapshot)))

/* ---- streams
 * stream_destroy: waits for pending work, then destroys. A failure leaves the stream as it was,
 *   usable (the loader keeps its handle); SUCCESS means it is gone.
 * stream_query: SUCCESS when idle, INFINI_STATUS_NOT_READY when work is pending.
 * ---- events
 * event_elapsed_time: both events belong to `device`. Same error rules as
 *   infinirtEventElapsedTime. */
#define INFINIRT_PLUGIN_ENTRIES_STREAMS_EVENTS(X, P, c)                                                        \
    X(c, stream_create, StreamCreate, streamCreate, infinirtStreamCreate, COLD,                                  \
      (P(Device, int, device), P(OutStream, void **, stream)))                                                   \
    X(c, stream_destroy, StreamDestroy, streamDestroy, infinirtStreamDestroy, COLD,                              \
      (P(Device, int, device), P(DestroyStream, void *, stream)))                                                \
    X(c, stream_synchronize, StreamSynchronize, streamSynchronize, infinirtStreamSynchronize, COLD,              \
      (P(Device, int, device), P(Stream, void *, stream)))                                                       \
    X(c, stream_query, StreamQuery, streamQuery, infinirtStreamQuery, HOT,                                       \
      (P(Device, int, device), P(Stream, void *, stream)))                                                       \
    X(c, stream_wait_event, StreamWaitEvent, streamWaitEvent, infinirtStreamWaitEvent, HOT,                      \
      (P(Device, int, device), P(Stream, void *, stream), P(Event, void *, event)))                              \
    X(c, event_create, EventCreate, eventCreate, infinirtEventCreate, COLD,                                      \
      (P(Device, int, device), P(Value, uint32_t, flags), P(OutEvent, void **, event)))                          \
    X(c, event_destroy, EventDestroy, eventDestroy, infinirtEventDestroy, COLD,                                  \
      (P(Device, int, device), P(DestroyEvent, void *, event)))                                                  \
    X(c, event_record, EventRecord, eventRecord, infinirtEventRecord, HOT,                                       \
      (P(Device, int, device), P(Event, void *, event), P(Stream, void *, stream)))                              \
    X(c, event_query, EventQuery, eventQuery, infinirtEventQuery, HOT,                                           \
      (P(Device, int, device), P(Event, void *, event), P(Skip, infinirtEventStatus_t *, status)))               \
    X(c, event_synchronize, EventSynchronize, eventSynchronize, infinirtEventSynchronize, COLD,                  \
      (P(Device, int, device), P(Event, void *, event)))                                                         \
    X(c, event_elapsed_time, EventElapsedTime, eventElapsedTime, infinirtEventElapsedTime, COLD,                 \
      (P(Device, int, device), P(Skip, float *, ms), P(Event, void *, start), P(Event, void *, end)))

/* ---- memory
 * malloc_device: size > 0 (the loader refuses 0). Failure to allocate is
 *   INFINI_STATUS_OUT_OF_MEMORY.
 * free_device: like cudaFree, waits for the device's pending work first, so memory still in use
 *   by queued work is never released under it.
 * memcpy_sync, memcpy_async: kind is H2H/H2D/D2H/D2D, or DEFAULT when the loader could not tell
 *   a pointer's side (memory infinirt did not allocate); size > 0. Synchronous copies are
 *   ordered after work already submitted to the device's default stream and complete before
 *   returning. */
#define INFINIRT_PLUGIN_ENTRIES_MEMORY(X, P, c)                                                                \
    X(c, malloc_device, MallocDevice, mallocDevice, infinirtMalloc, COLD,                                        \
      (P(Device, int, device), P(OutMem, void **, ptr), P(Size, size_t, size)))                                  \
    X(c, free_device, FreeDevice, freeDevice, infinirtFree, COLD, (P(Device, int, device), P(FreePtr, void *, ptr))) \
    X(c, malloc_host, MallocHost, mallocHost, infinirtMallocHost, COLD,                                          \
      (P(Device, int, device), P(OutMem, void **, ptr), P(Size, size_t, size)))                                  \
    X(c, free_host, FreeHost, freeHost, infinirtFreeHost, COLD, (P(Device, int, device), P(FreePtr, void *, ptr))) \
    X(c, memcpy_sync, MemcpySync, memcpySync, infinirtMemcpy, COLD,                                              \
      (P(Device, int, device), P(Dst, void *, dst), P(Src, const void *, src), P(Size, size_t, size),            \
       P(Value, infinirtMemcpyKind_t, kind)))                                                                    \
    X(c, memcpy_async, MemcpyAsync, memcpyAsync, infinirtMemcpyAsync, HOT,                                       \
      (P(Device, int, device), P(Dst, void *, dst), P(Src, const void *, src), P(Size, size_t, size),            \
       P(Value, infinirtMemcpyKind_t, kind), P(Stream, void *, stream)))                                         \
    X(c, memset_sync, MemsetSync, memsetSync, infinirtMemset, COLD,                                              \
      (P(Device, int, device), P(Dst, void *, ptr), P(Value, int, value), P(Size, size_t, size)))               \
    X(c, memset_async, MemsetAsync, memsetAsync, infinirtMemsetAsync, HOT,                                       \
      (P(Device, int, device), P(Dst, void *, ptr), P(Value, int, value), P(Size, size_t, size),                \
       P(Stream, void *, stream)))                                                                               \
    X(c, malloc_async, MallocAsync, mallocAsync, infinirtMallocAsync, COLD,                                      \
      (P(Device, int, device), P(OutMem, void **, ptr), P(Size, size_t, size), P(Stream, void *, stream)))       \
    X(c, free_async, FreeAsync, freeAsync, infinirtFreeAsync, COLD,                                              \
      (P(Device, int, device), P(FreePtr, void *, ptr), P(Stream, void *, stream)))

/* ---- graphs (all optional, together: when stream_begin_capture is NULL the loader records the
 * calls made on a capturing stream and replays them through the entries above) */
#define INFINIRT_PLUGIN_ENTRIES_GRAPHS(X, P, c)                                                                \
    X(c, stream_begin_capture, StreamBeginCapture, streamBeginCapture, infinirtStreamBeginCapture, COLD,         \
      (P(Device, int, device), P(Stream, void *, stream), P(Value, infinirtStreamCaptureMode_t, mode)))          \
    X(c, stream_end_capture, StreamEndCapture, streamEndCapture, infinirtStreamEndCapture, COLD,                 \
      (P(Device, int, device), P(Stream, void *, stream), P(OutGraph, void **, graph)))                          \
    X(c, graph_destroy, GraphDestroy, graphDestroy, infinirtGraphDestroy, COLD,                                  \
      (P(Device, int, device), P(DestroyGraph, void *, graph)))                                                  \
    X(c, graph_instantiate, GraphInstantiate, graphInstantiate, infinirtGraphInstantiate, COLD,                  \
      (P(Device, int, device), P(OutExec, void **, exec), P(Graph, void *, graph), P(Skip, char *, log),         \
       P(Skip, size_t, log_size)))                                                                               \
    X(c, graph_exec_destroy, GraphExecDestroy, graphExecDestroy, infinirtGraphExecDestroy, COLD,                 \
      (P(Device, int, device), P(DestroyExec, void *, exec)))                                                    \
    X(c, graph_launch, GraphLaunch, graphLaunch, infinirtGraphLaunch, COLD,                                      \
      (P(Device, int, device), P(Exec, void *, exec), P(Stream, void *, stream)))

/* ---- native interop (optional)
 * pointer_get_attributes: for pointers infinirt did not allocate: SUCCESS and attributes filled
 *   if the backend recognises the pointer (e.g. cuPointerGetAttributes), anything else
 *   otherwise. */
#define INFINIRT_PLUGIN_ENTRIES_NATIVE(X, P, c)                                                                \
    X(c, stream_get_native, StreamGetNative, streamGetNative, infinirtStreamGetNativeHandle, COLD,               \
      (P(Device, int, device), P(Stream, void *, stream), P(Skip, void **, native)))                             \
    X(c, event_get_native, EventGetNative, eventGetNative, infinirtEventGetNativeHandle, COLD,                   \
      (P(Device, int, device), P(Event, void *, event), P(Skip, void **, native)))                               \
    X(c, device_get_native_context, DeviceGetNativeContext, deviceGetNativeContext,                              \
      infinirtDeviceGetNativeContext, COLD, (P(Device, int, device), P(Skip, void **, native)))                  \
    X(c, pointer_get_attributes, PointerGetAttributes, pointerGetAttributes, infinirtPointerGetAttributes, COLD, \
      (P(Src, const void *, ptr), P(Skip, infinirtPointerAttributes_t *, attributes)))

/* ---- modules and kernels (interface version 2; all optional, together)
 * Modules and kernels are the plugin's own objects; the loader wraps them in handles and
 * validates them before every call. A kernel belongs to its module and is never used after
 * module_unload.
 * module_load: `images` (count >= 1) are validated: struct_size == sizeof(infinirtModuleImage_t),
 *   data non-NULL, size > 0, format resolved (never AUTO). The plugin copies what it keeps. `log`
 *   may be NULL (log_size 0); when not, the plugin writes the build/JIT log there, truncated and
 *   NUL-terminated, on success and on failure ("" when there is none). A format it does not
 *   load: BAD_PARAM naming those it does; a build failure: BUILD_FAILED with the log's first
 *   lines through set_error.
 * module_unload: releases the module and its kernels. Launches already queued must still run
 *   correctly (keep references, or wait for them). The loader calls it once, when no handle or
 *   graph refers to the module any more.
 * module_get_kernel: SYMBOL_NOT_FOUND naming `name` (and some names that exist, where the plugin
 *   can list them). The loader asks once per name and keeps the answer.
 * module_get_global: optional even when the others exist (NOT_IMPLEMENTED). `size` may be NULL.
 * kernel_get_attribute: attr is in range. The loader asks MAX_THREADS_PER_BLOCK,
 *   MAX_DYNAMIC_SHARED_BYTES and NUM_PARAMS once per kernel and validates launches against them:
 *   they must be finite (NUM_PARAMS may be -1).
 * kernel_set_attribute: only MAX_DYNAMIC_SHARED_BYTES reaches it, with a value >= 0.
 * launch_kernel: everything the loader can check is checked (infinirtLaunchKernel's list): config
 *   is whole (struct_size == sizeof), each dimension >= 1, the block within
 *   MAX_THREADS_PER_BLOCK, dynamic_shared_bytes + LOCAL sizes within MAX_DYNAMIC_SHARED_BYTES,
 *   kinds and sizes valid, num_args == NUM_PARAMS where known, the stream on `device`. Argument
 *   bytes must be consumed (copied) before returning. Hot path: no allocation, no context call
 *   when the stream is explicit. */
#define INFINIRT_PLUGIN_ENTRIES_MODULES(X, P, c)                                                               \
    X(c, module_load, ModuleLoad, moduleLoad, infinirtModuleLoad, COLD,                                          \
      (P(Device, int, device), P(Skip, const infinirtModuleImage_t *, images), P(Value, size_t, count),          \
       P(Skip, char *, log), P(Skip, size_t, log_size), P(OutModule, void **, module)))                          \
    X(c, module_unload, ModuleUnload, moduleUnload, infinirtModuleUnload, COLD,                                  \
      (P(Device, int, device), P(DestroyModule, void *, module)))                                                \
    X(c, module_get_kernel, ModuleGetKernel, moduleGetKernel, infinirtModuleGetKernel, COLD,                     \
      (P(Device, int, device), P(Module, void *, module), P(Skip, const char *, name),                           \
       P(OutKernel, void **, kernel)))                                                                           \
    X(c, module_get_global, ModuleGetGlobal, moduleGetGlobal, infinirtModuleGetGlobal, COLD,                     \
      (P(Device, int, device), P(Module, void *, module), P(Skip, const char *, name), P(OutGlobal, void **, ptr), \
       P(OutGlobalSize, size_t *, size)))                                                                        \
    X(c, kernel_get_attribute, KernelGetAttribute, kernelGetAttribute, infinirtKernelGetAttribute, COLD,         \
      (P(Device, int, device), P(Kernel, void *, kernel), P(Value, infinirtKernelAttribute_t, attr),             \
       P(Skip, int64_t *, value)))                                                                               \
    X(c, kernel_set_attribute, KernelSetAttribute, kernelSetAttribute, infinirtKernelSetAttribute, COLD,         \
      (P(Device, int, device), P(Kernel, void *, kernel), P(Value, infinirtKernelAttribute_t, attr),             \
       P(Value, int64_t, value)))                                                                                \
    X(c, launch_kernel, LaunchKernel, launchKernel, infinirtLaunchKernel, HOT,                                   \
      (P(Device, int, device), P(Kernel, void *, kernel), P(Skip, const infinirtLaunchConfig_t *, config),      \
       P(KernelArgs, const infinirtKernelArg_t *, args), P(Value, uint32_t, num_args), P(Stream, void *, stream)))

/* ---- peers (all optional)
 * Two devices of this plugin: `device` != `peer` (or dst_device != src_device), both valid; the
 * loader answers pairs of a device with itself and pairs of two backends itself.
 * device_can_access_peer: whether access can be enabled. NULL entry: the loader answers 0.
 * device_get_peer_attribute: attr is in range. NULL entry: the loader answers ACCESS_SUPPORTED
 *   from device_can_access_peer, COPY_WITHOUT_STAGING from memcpy_peer_async being set, the
 *   others 0.
 * device_enable_peer_access, device_disable_peer_access: one direction. Enabling what is enabled
 *   is SUCCESS; disabling what is not enabled is BAD_PARAM; a pair without support is BAD_PARAM.
 *   NULL entries: the loader answers BAD_PARAM (no pair of such a plugin can access the other).
 * memcpy_peer_async: enqueues a copy of `size` (> 0) bytes from src_device's memory to
 *   dst_device's on `stream`, a stream of `stream_device` (dst_device or src_device; NULL: its
 *   default stream), whether or not access is enabled. Returns without waiting for the copy.
 *   NULL entry: the loader stages the copy through host memory with memcpy_async on each device.
 * stream_wait_peer_event: like stream_wait_event, for an event of another device of this plugin
 *   (event_device != device): a device-side wait. NULL entry: the loader blocks the caller until
 *   the event has completed. */
#define INFINIRT_PLUGIN_ENTRIES_PEERS(X, P, c)                                                                 \
    X(c, device_can_access_peer, DeviceCanAccessPeer, deviceCanAccessPeer, infinirtDeviceCanAccessPeer, COLD,    \
      (P(Device, int, device), P(Value, int, peer), P(Skip, int *, can_access)))                                 \
    X(c, device_get_peer_attribute, DeviceGetPeerAttribute, deviceGetPeerAttribute, infinirtDeviceGetPeerAttribute, \
      COLD, (P(Device, int, device), P(Value, int, peer), P(Value, infinirtPeerAttribute_t, attr),               \
             P(Skip, int *, value)))                                                                             \
    X(c, device_enable_peer_access, DeviceEnablePeerAccess, deviceEnablePeerAccess, infinirtDeviceEnablePeerAccess, \
      COLD, (P(Device, int, device), P(Value, int, peer)))                                                       \
    X(c, device_disable_peer_access, DeviceDisablePeerAccess, deviceDisablePeerAccess,                           \
      infinirtDeviceDisablePeerAccess, COLD, (P(Device, int, device), P(Value, int, peer)))                      \
    X(c, memcpy_peer_async, MemcpyPeerAsync, memcpyPeerAsync, infinirtMemcpyPeerAsync, COLD,                     \
      (P(Device, int, dst_device), P(Skip, void *, dst), P(Value, int, src_device), P(Skip, const void *, src),  \
       P(Size, size_t, size), P(Value, int, stream_device), P(Stream, void *, stream)))                         \
    X(c, stream_wait_peer_event, StreamWaitPeerEvent, streamWaitPeerEvent, infinirtStreamWaitEvent, COLD,        \
      (P(Device, int, device), P(Stream, void *, stream), P(Value, int, event_device), P(Event, void *, event)))

/* ---- what the loader asks of the backend (optional)
 * get_plugin_traits: see infinirtPluginTraits_t. NULL entry: the defaults.
 * module_rank_image: how well an image of `format` built for `arch` ("any": for no particular
 *   device) suits `device`, for infinirtModuleLoadFile choosing among a module file's images of
 *   this backend: *rank > 0 when it may load, the highest tried first; *rank = 0 when it cannot,
 *   with `why` (size why_size, NUL-terminated, may be cut) saying why for the caller's log.
 *   format is a known format other than AUTO. NULL entry: an image for "any" or for the device's
 *   architecture property ranks 1, others 0. */
#define INFINIRT_PLUGIN_ENTRIES_LOADER(X, P, c)                                                                \
    X(c, get_plugin_traits, GetPluginTraits, getPluginTraits, infinirtGetBackendInfo, LOADER,                    \
      (P(Skip, infinirtPluginTraits_t *, traits)))                                                               \
    X(c, module_rank_image, ModuleRankImage, moduleRankImage, infinirtModuleLoadFile, LOADER,                    \
      (P(Device, int, device), P(Value, infinirtModuleFormat_t, format), P(Skip, const char *, arch),            \
       P(Skip, int *, rank), P(Skip, char *, why), P(Skip, size_t, why_size)))

/* ---- memory beyond malloc (all optional; NULL: NOT_IMPLEMENTED)
 * The loader checks and records everything it can before these run (infinirt.h, "Memory beyond
 * malloc"): devices, NULL pointers, flags, sizes and offsets against the minimum granularity,
 * reservations, overlaps, handles; it keeps the records that make registered and mapped memory
 * infinirt memory.
 * host_register: pins [ptr, ptr + size) (size > 0) for the device's copies; flags are
 *   INFINIRT_HOST_REGISTER_ flags. NOT_IMPLEMENTED with the reason where the device cannot.
 * host_unregister: ptr is the start of a registration host_register made on `device`.
 * mem_get_granularity: with the other mem_ entries, or none of them.
 * mem_address_reserve: a range of `size` (a multiple of the minimum granularity) aligned to
 *   `alignment` (a power of two, >= the minimum granularity), no memory behind it.
 * mem_address_free: exactly a range mem_address_reserve gave, with nothing mapped in it.
 * mem_create: a physical allocation of `size` bytes (the plugin's object in *mem); flags are
 *   INFINIRT_MEM_CREATE_ flags.
 * mem_release: a physical allocation no longer mapped anywhere.
 * mem_map: [offset, offset + size) of `mem` (within it) at ptr, inside a reservation of `device`
 *   and over no other mapping; the device gets read-write access.
 * mem_unmap: a range of whole mappings of `device`; waits for the device's queued work first.
 * mem_set_access: access (an INFINIRT_MEM_ACCESS_ value) of the plugin's device `accessor` to a
 *   mapped range of `device`. */
#define INFINIRT_PLUGIN_ENTRIES_HOST_REGISTRATION(X, P, c)                                                        \
    X(c, host_register, HostRegister, hostRegister, infinirtHostRegister, COLD,                                  \
      (P(Device, int, device), P(Skip, void *, ptr), P(Size, size_t, size), P(Value, uint32_t, flags)))          \
    X(c, host_unregister, HostUnregister, hostUnregister, infinirtHostUnregister, COLD,                          \
      (P(Device, int, device), P(Skip, void *, ptr)))
#define INFINIRT_PLUGIN_ENTRIES_VIRTUAL_MEMORY(X, P, c)                                                       \
    X(c, mem_get_granularity, MemGetGranularity, memGetGranularity, infinirtMemGetAllocationGranularity, COLD,   \
      (P(Device, int, device), P(Value, infinirtMemGranularity_t, which), P(Skip, size_t *, granularity)))       \
    X(c, mem_address_reserve, MemAddressReserve, memAddressReserve, infinirtMemAddressReserve, COLD,             \
      (P(Device, int, device), P(Skip, void **, ptr), P(Size, size_t, size), P(Value, size_t, alignment)))       \
    X(c, mem_address_free, MemAddressFree, memAddressFree, infinirtMemAddressFree, COLD,                         \
      (P(Device, int, device), P(Skip, void *, ptr), P(Size, size_t, size)))                                     \
    X(c, mem_create, MemCreate, memCreate, infinirtMemCreate, COLD,                                              \
      (P(Device, int, device), P(Skip, void **, mem), P(Size, size_t, size), P(Value, uint32_t, flags)))         \
    X(c, mem_release, MemRelease, memRelease, infinirtMemRelease, COLD, (P(Device, int, device), P(Skip, void *, mem))) \
    X(c, mem_map, MemMap, memMap, infinirtMemMap, COLD,                                                          \
      (P(Device, int, device), P(Mapped, void *, ptr), P(Size, size_t, size), P(Skip, void *, mem),              \
       P(Value, size_t, offset)))                                                                                \
    X(c, mem_unmap, MemUnmap, memUnmap, infinirtMemUnmap, COLD,                                                  \
      (P(Device, int, device), P(Unmapped, void *, ptr), P(Size, size_t, size)))                                 \
    X(c, mem_set_access, MemSetAccess, memSetAccess, infinirtMemSetAccess, COLD,                                 \
      (P(Device, int, device), P(Skip, void *, ptr), P(Size, size_t, size), P(Value, int, accessor),             \
       P(Value, uint32_t, access)))
/* ---- contexts: the thread's native state, limits, stream priorities (all optional)
 * thread_state_save: writes to *state what the calling thread's native state is for this
 *   backend (on cuda its current CUcontext, NULL when none), so that thread_state_restore can
 *   give it back after set_device changed it. Never creates, retains or changes anything. NULL
 *   entry: the backend has no native per-thread state (set_device is NULL or changes nothing
 *   that outlives a call).
 * thread_state_restore: makes the calling thread's native state what thread_state_save wrote,
 *   exactly (on cuda: the saved context current, or no context at all), creating and retaining
 *   nothing. With thread_state_save, or NULL.
 * device_get_limit, device_set_limit: limit is one of infinirtLimit_t (the loader refuses
 *   others). A limit the backend cannot honour, or cannot change: NOT_IMPLEMENTED naming the
 *   limit and the backend. After a successful set, get returns at least the value set.
 * device_get_stream_priority_range: CUDA's numbering (*greatest <= *least). NULL entry: (0, 0).
 * stream_create_with_priority: like stream_create; `priority` is within the range (the loader
 *   refuses others). NULL entry: the loader creates an ordinary stream when the range is (0, 0). */
#define INFINIRT_PLUGIN_ENTRIES_CONTEXTS(X, P, c)                                                              \
    X(c, thread_state_save, ThreadStateSave, threadStateSave, infinirtPushDevice, COLD,                          \
      (P(Device, int, device), P(Skip, void **, state)))                                                         \
    X(c, thread_state_restore, ThreadStateRestore, threadStateRestore, infinirtPopDevice, COLD,                  \
      (P(Device, int, device), P(Skip, void *, state)))                                                          \
    X(c, device_get_limit, DeviceGetLimit, deviceGetLimit, infinirtDeviceGetLimit, COLD,                         \
      (P(Device, int, device), P(Value, infinirtLimit_t, limit), P(Skip, size_t *, value)))                      \
    X(c, device_set_limit, DeviceSetLimit, deviceSetLimit, infinirtDeviceSetLimit, COLD,                         \
      (P(Device, int, device), P(Value, infinirtLimit_t, limit), P(Value, size_t, value)))                       \
    X(c, device_get_stream_priority_range, DeviceGetStreamPriorityRange, deviceGetStreamPriorityRange,           \
      infinirtDeviceGetStreamPriorityRange, COLD,                                                                \
      (P(Device, int, device), P(Skip, int *, least), P(Skip, int *, greatest)))                                 \
    X(c, stream_create_with_priority, StreamCreateWithPriority, streamCreateWithPriority,                        \
      infinirtStreamCreateWithPriority, COLD,                                                                    \
      (P(Device, int, device), P(Value, int, priority), P(OutStream, void **, stream)))

/* ---- memory and events shared between processes (all optional; NULL: NOT_IMPLEMENTED)
 * The loader writes a header into the first INFINIRT_PLUGIN_IPC_HEADER_BYTES of each 128-byte
 * handle (a magic, its version, the kind, the device type, where the pointer lies in the exported
 * memory) and checks it before these run; the plugin's part is the rest, `payload` of
 * `payload_size` bytes (128 - INFINIRT_PLUGIN_IPC_HEADER_BYTES), whatever lets another process of
 * the same backend find the memory or the event. The loader counts the opens of one payload in a process and closes at the last.
 * ipc_get_mem_handle: exports the device memory [base, base + size) of `device`: an allocation of
 *   malloc_device (mem NULL), or a mapping of the physical allocation `mem` (mem_create's object,
 *   made with INFINIRT_MEM_CREATE_SHAREABLE) at its offset mem_offset. NOT_IMPLEMENTED with the
 *   reason for memory the backend cannot share.
 * ipc_open_mem_handle: maps the memory a payload names (`size` bytes, as exported) for `device`;
 *   *ptr is where it starts. A payload whose memory is gone: INVALID_HANDLE where the plugin can
 *   tell.
 * ipc_close_mem_handle: unmaps what ipc_open_mem_handle gave; the loader has waited for the
 *   device's queued work.
 * ipc_get_event_handle: exports an event created with INFINIRT_EVENT_INTERPROCESS (and
 *   DISABLE_TIMING).
 * ipc_open_event_handle: an event object of `device` (destroyed with event_destroy) that stands
 *   for the exported one. */
#define INFINIRT_PLUGIN_IPC_HEADER_BYTES 32u
#define INFINIRT_PLUGIN_ENTRIES_IPC_MEMORY(X, P, c)                                                                   \
    X(c, ipc_get_mem_handle, IpcGetMemHandle, ipcGetMemHandle, infinirtIpcGetMemHandle, COLD,                    \
      (P(Device, int, device), P(Skip, void *, base), P(Size, size_t, size), P(Skip, void *, mem),               \
       P(Value, size_t, mem_offset), P(Skip, void *, payload), P(Value, size_t, payload_size)))                 \
    X(c, ipc_open_mem_handle, IpcOpenMemHandle, ipcOpenMemHandle, infinirtIpcOpenMemHandle, COLD,                \
      (P(Device, int, device), P(Skip, const void *, payload), P(Value, size_t, payload_size),                   \
       P(Size, size_t, size), P(OutMem, void **, ptr)))                                                          \
    X(c, ipc_close_mem_handle, IpcCloseMemHandle, ipcCloseMemHandle, infinirtIpcCloseMemHandle, COLD,            \
      (P(Device, int, device), P(FreePtr, void *, ptr), P(Size, size_t, size)))
#define INFINIRT_PLUGIN_ENTRIES_IPC_EVENTS(X, P, c)                                                            \
    X(c, ipc_get_event_handle, IpcGetEventHandle, ipcGetEventHandle, infinirtIpcGetEventHandle, COLD,            \
      (P(Device, int, device), P(Event, void *, event), P(Skip, void *, payload), P(Value, size_t, payload_size))) \
    X(c, ipc_open_event_handle, IpcOpenEventHandle, ipcOpenEventHandle, infinirtIpcOpenEventHandle, COLD,        \
      (P(Device, int, device), P(Skip, const void *, payload), P(Value, size_t, payload_size),                   \
       P(OutEvent, void **, event)))

/* The two groups above each join two all-or-none halves. */
#define INFINIRT_PLUGIN_ENTRIES_MEMORY_MAPPING(X, P, c)                                                        \
    INFINIRT_PLUGIN_ENTRIES_HOST_REGISTRATION(X, P, c) INFINIRT_PLUGIN_ENTRIES_VIRTUAL_MEMORY(X, P, c)
#define INFINIRT_PLUGIN_ENTRIES_IPC(X, P, c)                                                                   \
    INFINIRT_PLUGIN_ENTRIES_IPC_MEMORY(X, P, c) INFINIRT_PLUGIN_ENTRIES_IPC_EVENTS(X, P, c)

/* ---- the device stack's fast push (optional)
 * set_device_saving: thread_state_save and set_device in one call, for infinirtPushDevice: writes
 *   to *state the calling thread's native state as it was (what thread_state_save would write),
 *   then makes `device` current as set_device does. Reads and changes the calling thread's state
 *   only, and waits for no device work. On failure the native state is unchanged and *state is
 *   unwritten. Only with thread_state_save and thread_state_restore (the loader ignores it
 *   otherwise); NULL: the loader calls thread_state_save, then set_device. */
#define INFINIRT_PLUGIN_ENTRIES_CONTEXT_SWITCH(X, P, c)                                                        \
    X(c, set_device_saving, SetDeviceSaving, setDeviceSaving, infinirtPushDevice, COLD,                          \
      (P(Device, int, device), P(Skip, void **, state)))

#define INFINIRT_PLUGIN_ENTRIES(X, P, c)                                                                       \
    INFINIRT_PLUGIN_ENTRIES_DEVICES(X, P, c)                                                                     \
    INFINIRT_PLUGIN_ENTRIES_STREAMS_EVENTS(X, P, c)                                                              \
    INFINIRT_PLUGIN_ENTRIES_MEMORY(X, P, c)                                                                      \
    INFINIRT_PLUGIN_ENTRIES_GRAPHS(X, P, c)                                                                      \
    INFINIRT_PLUGIN_ENTRIES_NATIVE(X, P, c)                                                                      \
    INFINIRT_PLUGIN_ENTRIES_MODULES(X, P, c)                                                                     \
    INFINIRT_PLUGIN_ENTRIES_PEERS(X, P, c)                                                                       \
    INFINIRT_PLUGIN_ENTRIES_LOADER(X, P, c)                                                                      \
    INFINIRT_PLUGIN_ENTRIES_CONTEXTS(X, P, c)                                                                  \
    INFINIRT_PLUGIN_ENTRIES_MEMORY_MAPPING(X, P, c)                                                              \
    INFINIRT_PLUGIN_ENTRIES_IPC(X, P, c)                                                                         \
    INFINIRT_PLUGIN_ENTRIES_CONTEXT_SWITCH(X, P, c)

/* The function types, infinirtPlugin<Type>Fn, and the table. */
#define INFINIRT_PLUGIN_PARAM_DECL_(role, type, name) type name
#define INFINIRT_PLUGIN_TYPEDEF_(c, field, Type, impl, api, kind, params) \
    typedef infiniStatus_t infinirtPlugin##Type##Fn params;
INFINIRT_PLUGIN_ENTRIES(INFINIRT_PLUGIN_TYPEDEF_, INFINIRT_PLUGIN_PARAM_DECL_, ~)
#undef INFINIRT_PLUGIN_TYPEDEF_

typedef struct infinirtPluginTable {
    size_t struct_size;      /* sizeof(infinirtPluginTable_t) as the plugin was built */
    uint32_t version;        /* interface version the table follows */
    const char *name;        /* short backend name: "cpu", "cuda", ... (static storage) */
    infiniDevice_t device_type;
#define INFINIRT_PLUGIN_FIELD_(c, field, Type, impl, api, kind, params) infinirtPlugin##Type##Fn *field;
    INFINIRT_PLUGIN_ENTRIES(INFINIRT_PLUGIN_FIELD_, INFINIRT_PLUGIN_PARAM_DECL_, ~)
#undef INFINIRT_PLUGIN_FIELD_
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
