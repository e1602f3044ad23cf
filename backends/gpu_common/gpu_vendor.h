/*
 * gpu_vendor.h - the table of vendor entry points that the shared CUDA/HIP implementation runs on.
 *
 * The CUDA driver API and the HIP runtime API correspond one to one for streams, events, copies,
 * memsets, stream-ordered allocation, graphs, modules and kernel launch. backends/gpu_common
 * implements every plugin-table entry once over this table; backends/cuda and backends/hip fill it
 * in (symbol loading, context handling, error names, device properties, module loading), so what
 * is verified on NVIDIA hardware covers the shared logic of both.
 *
 * Conventions of the table:
 *  - a native status is an int, 0 meaning success (CUresult and hipError_t both are);
 *  - streams, events, graphs and graph execs are the vendor's handles as void*; device pointers
 *    are void* (the CUDA converters convert from CUdeviceptr);
 *  - every native entry comes with the name the driver exports ("cuMemAlloc_v2"), which is what
 *    error messages quote;
 *  - field names are snake_case, like the plugin table's fields they correspond to.
 */
#ifndef INFINIRT_GPU_VENDOR_H
#define INFINIRT_GPU_VENDOR_H

#include "infinirt_plugin.h"

#include <cstddef>
#include <cstdint>

namespace infinirt::gpu {

using NativeStatus = int;

template <class Fn>
struct Entry {
    Fn call;
    const char *name;
};

/* What a vendor's bind() did to the calling thread, so that unbind() can undo exactly that.
 * The meaning of the fields is the vendor's; action 0 always means "nothing to undo". */
struct ContextScope {
    int action = 0;
    int saved_device = 0;
};

/* One kernel launch as the vendor's native launch entries take it. `params` is the
 * kernelParams array (one pointer per kernel parameter, each pointing at the bytes to copy);
 * `cluster` is {0,0,0} or every component >= 1. */
struct NativeLaunch {
    void *function; /* the native function handle (CUfunction, hipFunction_t) */
    uint32_t grid[3];
    uint32_t block[3];
    unsigned shared_bytes; /* dynamic shared memory per block */
    void *stream;          /* never NULL: the default stream is the vendor's default_stream */
    void **params;
    uint32_t cluster[3];
    bool cooperative;
};

/* The bytes of a vendor's IPC handle of memory or of an event (CUipcMemHandle, CUipcEventHandle). */
constexpr size_t kIpcHandleBytes = 64;

struct VendorApi {
    const char *name; /* "cuda", "hip": the backend name and the device prefix in messages */
    infiniDevice_t device_type;

    /* ---- vendor-specific plugin entries, installed in the table as they are ----
     * So every entry of the plugin table runs inside the exception guard, the vendor fills these
     * with common::guarded<fn> (common/entry_guard.hpp). */
    infinirtPluginInitFn *init;
    infinirtPluginGetDeviceCountFn *get_device_count;
    infinirtPluginGetDevicePropertiesFn *get_device_properties;
    infinirtPluginSetDeviceFn *set_device;
    /* The thread's native state that set_device changes (CUDA: the current context; HIP: the
     * current device), saved and restored exactly for infinirtPushDevice/infinirtPopDevice. */
    infinirtPluginThreadStateSaveFn *thread_state_save;
    infinirtPluginThreadStateRestoreFn *thread_state_restore;
    infinirtPluginSetDeviceSavingFn *set_device_saving; /* thread_state_save then set_device */
    infinirtPluginDeviceGetNativeContextFn *device_get_native_context;
    infinirtPluginPointerGetAttributesFn *pointer_get_attributes; /* may be NULL */

    /* ---- errors: the vendor's one table from native codes to statuses ---- */
    const char *(*error_name)(NativeStatus code); /* never NULL, static storage */
    infiniStatus_t (*to_status)(NativeStatus code);
    NativeStatus not_ready; /* the code StreamQuery/EventQuery give for pending work */
    /* The codes of running out of device memory and of a generic failure (a failed launch): the
     * plugin's traits name them (get_plugin_traits). */
    NativeStatus out_of_memory;
    NativeStatus failure;

    /* ---- context binding ----
     * bind() makes `device`'s context current for the calling thread for the duration of one
     * call and records in `scope` what unbind() must undo; on failure it has set the error
     * detail and there is nothing to undo. Thread-safe. */
    infiniStatus_t (*bind)(int device, ContextScope *scope);
    void (*unbind)(const ContextScope &scope);
    /* false when calls on an explicit stream or event take the context from the handle, so
     * that the hot entries need no binding at all. */
    bool handle_calls_need_binding;
    /* The handle naming the bound device's default stream (CU_STREAM_LEGACY, the HIP null stream). */
    void *default_stream;

    /* ---- native flag values ---- */
    unsigned stream_non_blocking;
    unsigned event_disable_timing;
    unsigned event_blocking_sync;
    unsigned event_interprocess;

    /* ---- native entry points over the bound context ---- */
    Entry<NativeStatus (*)(void)> device_synchronize;
    Entry<NativeStatus (*)(size_t *free_bytes, size_t *total_bytes)> mem_get_info;
    /* Bytes the device's default memory pool holds (used plus cached). */
    Entry<NativeStatus (*)(int device, uint64_t *bytes)> pool_reserved;

    Entry<NativeStatus (*)(void **stream, unsigned flags)> stream_create;
    /* Optional (call may be NULL), all three or none: the bound context's limits (`limit` an
     * infinirtLimit_t), its stream priority range, and a stream of a priority within it. Without
     * them limits answer NOT_IMPLEMENTED and the range is (0, 0). */
    Entry<NativeStatus (*)(size_t *value, int limit)> get_limit;
    Entry<NativeStatus (*)(int limit, size_t value)> set_limit;
    Entry<NativeStatus (*)(int *least, int *greatest)> stream_priority_range;
    Entry<NativeStatus (*)(void **stream, unsigned flags, int priority)> stream_create_with_priority;
    Entry<NativeStatus (*)(void *stream)> stream_destroy;
    Entry<NativeStatus (*)(void *stream)> stream_synchronize;
    Entry<NativeStatus (*)(void *stream)> stream_query;
    Entry<NativeStatus (*)(void *stream, void *event)> stream_wait_event;

    Entry<NativeStatus (*)(void **event, unsigned flags)> event_create;
    Entry<NativeStatus (*)(void *event)> event_destroy;
    Entry<NativeStatus (*)(void *event, void *stream)> event_record;
    /* Optional (call may be NULL). Records `event` on a capturing stream as a node of the graph,
     * so that every launch records it (CUDA: CU_EVENT_RECORD_EXTERNAL), which is what a
     * recording during capture means in infinirt. Without it the vendor's own semantics apply. */
    Entry<NativeStatus (*)(void *event, void *stream)> event_record_in_capture;
    /* Optional (call may be NULL). Waits from a capturing stream on an event recorded outside the
     * capture, as a node of the graph, so that every launch waits for the event's latest record
     * (CUDA: CU_EVENT_WAIT_EXTERNAL): what such a wait means in infinirt, whichever device
     * recorded the event. Without it the vendor's own semantics apply. */
    Entry<NativeStatus (*)(void *stream, void *event)> stream_wait_event_in_capture;
    /* Optional with the entries above: whether `stream` is capturing now. */
    Entry<NativeStatus (*)(void *stream, bool *capturing)> stream_is_capturing;
    Entry<NativeStatus (*)(void *event)> event_query;
    Entry<NativeStatus (*)(void *event)> event_synchronize;
    Entry<NativeStatus (*)(float *ms, void *start, void *end)> event_elapsed_time;

    Entry<NativeStatus (*)(void **ptr, size_t size)> malloc_device;
    Entry<NativeStatus (*)(void *ptr)> free_device;
    Entry<NativeStatus (*)(void **ptr, size_t size)> malloc_host;
    Entry<NativeStatus (*)(void *ptr)> free_host;
    Entry<NativeStatus (*)(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind, void *stream)> memcpy_async;
    Entry<NativeStatus (*)(void *ptr, int value, size_t count, void *stream)> memset_async;
    Entry<NativeStatus (*)(void **ptr, size_t size, void *stream)> malloc_async;
    Entry<NativeStatus (*)(void *ptr, void *stream)> free_async;

    /* mode is an infinirtStreamCaptureMode_t; CUDA and HIP use the same values. */
    Entry<NativeStatus (*)(void *stream, int mode)> begin_capture;
    Entry<NativeStatus (*)(void *stream, void **graph)> end_capture;
    Entry<NativeStatus (*)(void *graph)> graph_destroy;
    Entry<NativeStatus (*)(void **exec, void *graph)> graph_instantiate;
    Entry<NativeStatus (*)(void *exec)> graph_exec_destroy;
    Entry<NativeStatus (*)(void *exec, void *stream)> graph_launch;

    /* ---- modules and kernels (plugin interface version 2) ----
     * A module is the vendor's native module handle and a kernel its native function handle,
     * handed to the loader as they are: the plugin keeps no objects of its own. Everything but
     * module_load is shared (gpu_module.cpp, gpu_launch.cpp); a vendor with module_load NULL
     * has no module entries at all (the loader answers NOT_IMPLEMENTED). */

    /* The vendor's plugin entry (image formats, JIT options, linking and logs are the vendor's),
     * installed as it is, filled through common::guarded like the entries above. */
    infinirtPluginModuleLoadFn *module_load;
    /* The vendor's rules for choosing among a module file's images (plugin entry
     * module_rank_image); with module_load, or NULL. */
    infinirtPluginModuleRankImageFn *module_rank_image;

    Entry<NativeStatus (*)(void *module)> module_unload;
    /* Both answer `not_found` for a name the module does not have. */
    Entry<NativeStatus (*)(void **function, void *module, const char *name)> module_get_function;
    Entry<NativeStatus (*)(void **ptr, size_t *size, void *module, const char *name)> module_get_global;
    NativeStatus not_found;
    /* Optional (call may be NULL, or answer non-zero when the driver cannot list): writes the
     * names of a few kernels of `module` into `text` as "a, b, c" (", ..." when there are more),
     * for the detail of SYMBOL_NOT_FOUND. */
    Entry<NativeStatus (*)(void *module, char *text, size_t capacity)> module_list_functions;

    /* Native function attributes (`attr` is one of the func_attr_* values below). */
    Entry<NativeStatus (*)(int *value, int attr, void *function)> function_get_attribute;
    /* Optional: raises func_attr_max_dynamic_shared. NULL when the vendor has nothing to raise
     * (the device's whole shared memory is always available to a kernel). */
    Entry<NativeStatus (*)(void *function, int attr, int value)> function_set_attribute;
    /* Optional: the number of the kernel's parameters, -1 when the driver cannot tell. */
    Entry<NativeStatus (*)(void *function, int *count)> function_param_count;
    /* A device attribute (`attr` is one of the device_attr_* values below) of plugin device `device`. */
    Entry<NativeStatus (*)(int *value, int attr, int device)> device_get_attribute;

    int func_attr_max_threads_per_block;
    int func_attr_static_shared_bytes;
    int func_attr_local_bytes_per_thread;
    int func_attr_num_registers;
    int func_attr_max_dynamic_shared;
    int device_attr_warp_size;
    /* Whether a device can export physical allocations as POSIX file descriptors; -1 when the
     * vendor has no such attribute (mem_create answers for itself). */
    int device_attr_posix_fd_handles;
    /* The most shared memory (static plus dynamic) one block may use after opting in. */
    int device_attr_max_shared_per_block;

    /* Launches: `launch_kernel` for plain launches, given the pieces of a NativeLaunch without
     * cluster or cooperation (`grid` and `block` point at three components each, as
     * infinirtLaunchConfig_t holds them, so that the fast path passes the config's own);
     * `launch_kernel_ex` (optional: NULL answers NOT_IMPLEMENTED) for cluster and cooperative
     * ones. Over the stream's context (the bound one for the default stream); they copy the
     * parameter bytes before returning. */
    Entry<NativeStatus (*)(void *function, const uint32_t *grid, const uint32_t *block, unsigned shared_bytes,
                           void *stream, void **params)>
        launch_kernel;
    Entry<NativeStatus (*)(const NativeLaunch &launch)> launch_kernel_ex;

    /* ---- peers (optional: with can_access_peer.call NULL the plugin has no peer entries and the
     * loader stages copies between two devices) ----
     * `device`, `peer`, `dst_device`, `src_device` are plugin device indices; the contexts are
     * what device_get_native_context gives for them (vendors that name devices by index ignore
     * them). */
    Entry<NativeStatus (*)(int *can_access, int device, int peer)> can_access_peer;
    /* `attr` is one of the p2p_attr_* values below. */
    Entry<NativeStatus (*)(int *value, int attr, int device, int peer)> peer_attribute;
    /* The bound device's access to `peer`, one direction. */
    Entry<NativeStatus (*)(int peer, void *peer_context)> enable_peer_access;
    Entry<NativeStatus (*)(int peer, void *peer_context)> disable_peer_access;
    /* A copy between two devices' memory on `stream` (never NULL: the default stream is the
     * bound context's default_stream), direct or through the driver's own staging. */
    Entry<NativeStatus (*)(void *dst, int dst_device, void *dst_context, const void *src, int src_device,
                           void *src_context, size_t size, void *stream)>
        memcpy_peer_async;
    int p2p_attr_access_supported;
    int p2p_attr_native_atomics;
    int p2p_attr_performance_rank;
    NativeStatus peer_already_enabled; /* enable_peer_access's answer when it is: success for infinirt */
    NativeStatus peer_not_enabled;     /* disable_peer_access's answer when it is not: BAD_PARAM */

    /* ---- memory beyond malloc (optional: host_register.call NULL leaves the registration entries
     * NULL, mem_create.call NULL the virtual-memory ones) ----
     * Over the bound context. A physical allocation is the vendor's handle as void*; `device` is a
     * plugin device index; `access` an INFINIRT_MEM_ACCESS_ value. */
    Entry<NativeStatus (*)(void *ptr, size_t size, bool read_only)> host_register; /* portable: every context */
    Entry<NativeStatus (*)(void *ptr)> host_unregister;
    Entry<NativeStatus (*)(size_t *granularity, int device, bool recommended)> mem_granularity;
    Entry<NativeStatus (*)(void **ptr, size_t size, size_t alignment)> mem_address_reserve;
    Entry<NativeStatus (*)(void *ptr, size_t size)> mem_address_free;
    /* shareable: exportable as a POSIX file descriptor. */
    Entry<NativeStatus (*)(void **mem, int device, size_t size, bool shareable)> mem_create;
    Entry<NativeStatus (*)(void *mem)> mem_release;
    /* A shareable allocation as a new POSIX file descriptor (the caller closes it), and an
     * allocation of this process for such a descriptor, another process's included (the
     * descriptor stays the caller's; the allocation is released with mem_release). */
    Entry<NativeStatus (*)(int *fd, void *mem)> mem_export;
    Entry<NativeStatus (*)(void **mem, int fd)> mem_import;
    Entry<NativeStatus (*)(void *ptr, size_t size, void *mem, size_t offset)> mem_map;
    Entry<NativeStatus (*)(void *ptr, size_t size)> mem_unmap;
    Entry<NativeStatus (*)(void *ptr, size_t size, int device, unsigned access)> mem_set_access;

    /* ---- memory and events shared between processes (optional: ipc_get_mem_handle.call NULL
     * leaves the memory entries NULL, ipc_get_event_handle.call NULL the event ones) ----
     * Over the bound context. `handle` is the vendor's IPC handle, kIpcHandleBytes bytes. Memory
     * is malloc_device's (mappings of shareable physical allocations are shared through
     * mem_export and mem_import); an event is created with event_interprocess |
     * event_disable_timing. */
    Entry<NativeStatus (*)(void *handle, void *ptr)> ipc_get_mem_handle;
    Entry<NativeStatus (*)(void **ptr, const void *handle)> ipc_open_mem_handle; /* the exported base */
    Entry<NativeStatus (*)(void *ptr)> ipc_close_mem_handle;
    Entry<NativeStatus (*)(void *handle, void *event)> ipc_get_event_handle;
    Entry<NativeStatus (*)(void **event, const void *handle)> ipc_open_event_handle;
};

/* Installs `vendor` for the life of the process (static storage) and returns the plugin table
 * built over it: the header from `vendor`, every generic entry through INFINIRT_COMMON_ENTRY
 * (common/plugin_table.hpp), the vendor's own entries as they are. A vendor's plugin hands it to
 * the one entry query of the tree:
 *     INFINIRT_COMMON_DEFINE_PLUGIN_ENTRY(infinirt::gpu::pluginTable(kVendor))
 * so common::negotiate (common/negotiate.hpp) remembers the host and answers the loader. Not
 * thread-safe; the loader queries a plugin once. */
const infinirtPluginTable_t &pluginTable(const VendorApi &vendor);

/* Clears the entries of registration, virtual memory, shared memory and shared events from the
 * table pluginTable() built, for a vendor whose runtime turns out at init not to support its
 * calls for them: the loader, which reads the table's entries once init returned, answers
 * NOT_IMPLEMENTED for them. Only from the vendor's init. */
void withdrawMemorySharing();

} // namespace infinirt::gpu

#endif
