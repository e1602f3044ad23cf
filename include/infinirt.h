/*
 * infinirt.h - the infinirt C ABI: devices, memory, copies, streams, events, graphs.
 *
 * Source-compatible with the published InfiniCore infinirt.h: same names, parameters and enum
 * values. Everything marked "extension" is ours and only appends.
 *
 * General contract (every function):
 *  - returns an infiniStatus_t; output parameters are written only on success;
 *  - on failure, infinirtGetLastErrorMessage() gives the calling thread's detail of it;
 *  - the first call of any function loads the backend plugins, once, thread-safely;
 *  - a NULL stream means the current device's default stream;
 *  - streams, events, graphs and graph execs remember their backend and device: they can be used
 *    and destroyed whatever the calling thread's current device is. A destroyed, never-created or
 *    wrong-kind handle gives INFINI_STATUS_INVALID_HANDLE;
 *  - the current device is per thread. A new thread starts on the process default device: the
 *    one named by INFINICORE_DEFAULT_DEVICE=type:index if set and present, else the first device
 *    of the first non-cpu type that has one (in infiniDevice_t order), else cpu:0;
 *  - after fork() in a process that had initialised infinirt, the child gets
 *    INFINI_STATUS_DEVICE_NOT_INITIALIZED from every call (no hang, no re-use of the parent's state).
 */
#ifndef __INFINIRT_API_H__
#define __INFINIRT_API_H__

#include "infinicore.h"
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void *infinirtStream_t;
typedef void *infinirtEvent_t;
typedef void *infinirtGraph_t;
typedef void *infinirtGraphNode_t;
typedef void *infinirtGraphExec_t;

/* Which fields of an infinirtDeviceResourceSnapshot_t a backend filled in. */
typedef enum {
    INFINIRT_RESOURCE_FIELD_NONE = 0,
    INFINIRT_RESOURCE_FIELD_MEMORY_CAPACITY = 1 << 0,
    INFINIRT_RESOURCE_FIELD_COMPUTE_UTILIZATION = 1 << 1,
    INFINIRT_RESOURCE_FIELD_MEMORY_BANDWIDTH_UTILIZATION = 1 << 2,
    INFINIRT_RESOURCE_FIELD_KERNEL_TIME_RATIO = 1 << 3,
    INFINIRT_RESOURCE_FIELD_COMMUNICATION = 1 << 4
} infinirtResourceField_t;

/* Vendor-neutral resource snapshot; consumers check valid_fields before using a value. */
typedef struct {
    infiniDevice_t device_type;
    int device_id;

    uint64_t valid_fields;
    uint64_t estimated_fields;

    size_t free_bytes;
    size_t total_bytes;
    size_t used_bytes;
    size_t reserved_bytes;

    float compute_utilization;
    float memory_bandwidth_utilization;
    float kernel_time_ratio;

    float communication_time_ratio;
    uint64_t communication_bytes;
} infinirtDeviceResourceSnapshot_t;

__export infiniStatus_t infinirtInit(void);

/* ---- Device ---------------------------------------------------------------------------- */

/* count_array must hold INFINI_DEVICE_TYPE_COUNT ints; types without a backend get 0. */
__export infiniStatus_t infinirtGetAllDeviceCount(int *count_array);
/* Never fails because a driver is missing: such a type has 0 devices. */
__export infiniStatus_t infinirtGetDeviceCount(infiniDevice_t device, int *count);
/* DEVICE_TYPE_NOT_SUPPORTED for a type out of range, DEVICE_NOT_FOUND for an id out of range or
 * a type with no devices. On any failure the thread's current device is left as it was. */
__export infiniStatus_t infinirtSetDevice(infiniDevice_t device, int device_id);
__export infiniStatus_t infinirtGetDevice(infiniDevice_t *device_ptr, int *device_id_ptr);
__export infiniStatus_t infinirtGetMemInfo(infiniDevice_t device, int device_id, size_t *free_bytes, size_t *total_bytes);
__export infiniStatus_t infinirtGetDeviceResourceSnapshot(infiniDevice_t device, int device_id,
                                                          infinirtDeviceResourceSnapshot_t *snapshot);
/* Waits for all work on every stream of the current device. */
__export infiniStatus_t infinirtDeviceSynchronize(void);

/* ---- Stream ---------------------------------------------------------------------------- */

/* Creates an in-order stream on the current device. */
__export infiniStatus_t infinirtStreamCreate(infinirtStream_t *stream_ptr);
/* Waits for the stream's pending work, then destroys it. NULL (the default stream) is refused. */
__export infiniStatus_t infinirtStreamDestroy(infinirtStream_t stream);
__export infiniStatus_t infinirtStreamSynchronize(infinirtStream_t stream);
/* Work submitted to `stream` after this call runs after the work `event` captured. */
__export infiniStatus_t infinirtStreamWaitEvent(infinirtStream_t stream, infinirtEvent_t event);

/* ---- Event ----------------------------------------------------------------------------- */

typedef enum {
    INFINIRT_EVENT_COMPLETE = 0,
    INFINIRT_EVENT_NOT_READY = 1
} infinirtEventStatus_t;

typedef enum {
    INFINIRT_EVENT_DEFAULT = 0x0,
    INFINIRT_EVENT_DISABLE_TIMING = 0x1,
    INFINIRT_EVENT_BLOCKING_SYNC = 0x2
} infinirtEventFlags_t;

/* Events are created on the current device. An event never recorded is COMPLETE. */
__export infiniStatus_t infinirtEventCreate(infinirtEvent_t *event_ptr);
/* flags: a combination of infinirtEventFlags_t; unknown bits give BAD_PARAM. */
__export infiniStatus_t infinirtEventCreateWithFlags(infinirtEvent_t *event_ptr, uint32_t flags);
/* The stream must belong to the event's device (BAD_PARAM otherwise); NULL is the current
 * device's default stream. */
__export infiniStatus_t infinirtEventRecord(infinirtEvent_t event, infinirtStream_t stream);
__export infiniStatus_t infinirtEventQuery(infinirtEvent_t event, infinirtEventStatus_t *status_ptr);
__export infiniStatus_t infinirtEventSynchronize(infinirtEvent_t event);
__export infiniStatus_t infinirtEventDestroy(infinirtEvent_t event);
/* Milliseconds between two completed recordings. BAD_PARAM if either event was created with
 * DISABLE_TIMING, NOT_READY if either has not completed, BAD_PARAM if either was never recorded. */
__export infiniStatus_t infinirtEventElapsedTime(float *ms_ptr, infinirtEvent_t start, infinirtEvent_t end);

/* ---- Memory ---------------------------------------------------------------------------- */

typedef enum {
    INFINIRT_MEMCPY_H2H = 0,
    INFINIRT_MEMCPY_H2D = 1,
    INFINIRT_MEMCPY_D2H = 2,
    INFINIRT_MEMCPY_D2D = 3,
    INFINIRT_MEMCPY_DEFAULT = 4 /* extension: direction inferred from the pointers */
} infinirtMemcpyKind_t;

/* Device memory on the current device. size 0 gives BAD_PARAM; an allocation the device cannot
 * satisfy gives OUT_OF_MEMORY (never SUCCESS with NULL). */
__export infiniStatus_t infinirtMalloc(void **p_ptr, size_t size);
/* Page-locked host memory usable for asynchronous copies with the current device. */
__export infiniStatus_t infinirtMallocHost(void **p_ptr, size_t size);
/* Frees memory from infinirtMalloc/MallocAsync, whatever device is current, after the owning
 * device's pending work has finished (as cudaFree does). NULL is a no-op
 * (SUCCESS). A pointer not allocated by infinirt, an interior pointer or a double free gives
 * BAD_PARAM. */
__export infiniStatus_t infinirtFree(void *ptr);
/* Frees memory from infinirtMallocHost; the same rules as infinirtFree. */
__export infiniStatus_t infinirtFreeHost(void *ptr);

/* Copies are routed to the device owning the device-side pointer (the current device when
 * neither pointer is known to infinirt). size 0 is a no-op. */
__export infiniStatus_t infinirtMemcpy(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind);
__export infiniStatus_t infinirtMemcpyAsync(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind,
                                            infinirtStream_t stream);

/* Stream-ordered allocation: the memory may be used by work on `stream` submitted after this
 * call; FreeAsync releases it once the stream's earlier work has run. */
__export infiniStatus_t infinirtMallocAsync(void **p_ptr, size_t size, infinirtStream_t stream);
__export infiniStatus_t infinirtFreeAsync(void *ptr, infinirtStream_t stream);

/* Sets `count` bytes of device memory to (unsigned char)value. */
__export infiniStatus_t infinirtMemset(void *ptr, int value, size_t count);
__export infiniStatus_t infinirtMemsetAsync(void *ptr, int value, size_t count, infinirtStream_t stream);

/* ---- Graph ----------------------------------------------------------------------------- */

typedef enum {
    INFINIRT_STREAM_CAPTURE_MODE_GLOBAL = 0,
    INFINIRT_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
    INFINIRT_STREAM_CAPTURE_MODE_RELAXED = 2
} infinirtStreamCaptureMode_t;

/* Work submitted to a capturing stream is recorded, not run. Synchronising calls on it give
 * BAD_PARAM and end the capture as invalid. The default (NULL) stream cannot be captured. */
__export infiniStatus_t infinirtStreamBeginCapture(infinirtStream_t stream, infinirtStreamCaptureMode_t mode);
__export infiniStatus_t infinirtStreamEndCapture(infinirtStream_t stream, infinirtGraph_t *graph_ptr);
__export infiniStatus_t infinirtGraphDestroy(infinirtGraph_t graph);
/* node_ptr and log_buffer may be NULL. On failure the log (if given) holds the reason. */
__export infiniStatus_t infinirtGraphInstantiate(infinirtGraphExec_t *graph_exec_ptr, infinirtGraph_t graph,
                                                 infinirtGraphNode_t *node_ptr, char *log_buffer,
                                                 size_t buffer_size);
__export infiniStatus_t infinirtGraphExecDestroy(infinirtGraphExec_t graph_exec);
/* Runs the recorded work on `stream`, in stream order, as many times as it is launched. */
__export infiniStatus_t infinirtGraphLaunch(infinirtGraphExec_t graph_exec, infinirtStream_t stream);
/* The published (misspelled) name, kept for source compatibility; same as infinirtGraphLaunch. */
__export infiniStatus_t infinirtGraphLuanch(infinirtGraphExec_t graph_exec, infinirtStream_t stream);

/* ---- Extensions: errors ---------------------------------------------------------------- */

/* "INFINI_STATUS_SUCCESS" etc.; never NULL; static storage. Unknown codes give "INFINI_STATUS_UNKNOWN". */
__export const char *infinirtGetErrorName(infiniStatus_t status);
/* A one-line English description; never NULL; static storage. */
__export const char *infinirtGetErrorString(infiniStatus_t status);
/* Detail of the calling thread's last failed call ("" if none): backend, native call, native
 * error name and number, figures. Valid until the thread's next infinirt call. */
__export const char *infinirtGetLastErrorMessage(void);

/* ---- Extensions: backends and devices -------------------------------------------------- */

typedef enum {
    INFINIRT_BACKEND_LOADED = 0,      /* negotiated and serving its device type */
    INFINIRT_BACKEND_UNAVAILABLE = 1, /* loaded but reports no devices (reason says why) */
    INFINIRT_BACKEND_FAILED = 2,      /* dlopen, entry symbol, version or init failed */
    INFINIRT_BACKEND_SHADOWED = 3     /* an earlier plugin already serves its device type */
} infinirtBackendState_t;

/* Extensible: set struct_size = sizeof(infinirtBackendInfo_t) before the call. */
typedef struct {
    size_t struct_size;
    char name[64];            /* "cpu", "cuda", ... or the file name if it never told us */
    infiniDevice_t device_type;
    char path[1024];          /* the plugin file */
    uint32_t interface_version; /* negotiated version, 0 if negotiation failed */
    int device_count;
    infinirtBackendState_t state;
    char reason[512];         /* why it is not LOADED; "" otherwise */
} infinirtBackendInfo_t;

/* Every plugin found, in search order, whatever its state. */
__export infiniStatus_t infinirtGetBackendCount(int *count);
__export infiniStatus_t infinirtGetBackendInfo(int index, infinirtBackendInfo_t *info);

/* Extensible: set struct_size = sizeof(infinirtDeviceProperties_t) before the call. Fields a
 * backend does not know are left as 0 / "" / -1 (as documented per field). */
typedef struct {
    size_t struct_size;
    char name[256];
    char vendor[128];
    char platform[128];           /* e.g. OpenCL platform or driver name; "" if none */
    char driver_version[64];
    size_t total_memory;          /* bytes */
    int compute_capability_major; /* -1 if not applicable */
    int compute_capability_minor; /* -1 if not applicable */
    char architecture[64];        /* "sm_90", "gfx90a", "x86_64", ... */
    int multiprocessor_count;     /* SMs, CUs, compute units or cores; 0 if unknown */
    unsigned char uuid[16];
    int has_uuid;
    char pci_bus_id[32];          /* "0000:3b:00.0"; "" if none */
} infinirtDeviceProperties_t;

__export infiniStatus_t infinirtGetDeviceProperties(infiniDevice_t device, int device_id,
                                                    infinirtDeviceProperties_t *props);

/* SUCCESS if all work on the stream has completed, INFINI_STATUS_NOT_READY otherwise. */
__export infiniStatus_t infinirtStreamQuery(infinirtStream_t stream);

typedef enum {
    INFINIRT_MEMORY_UNKNOWN = 0,     /* not allocated by infinirt and unknown to every backend */
    INFINIRT_MEMORY_DEVICE = 1,
    INFINIRT_MEMORY_PINNED_HOST = 2,
    INFINIRT_MEMORY_HOST = 3         /* host memory a backend registered or recognises */
} infinirtMemoryKind_t;

/* Extensible: set struct_size = sizeof(infinirtPointerAttributes_t) before the call. */
typedef struct {
    size_t struct_size;
    infiniDevice_t device_type;
    int device_id;
    infinirtMemoryKind_t kind;
    void *base;  /* start of the allocation holding the pointer; NULL if unknown */
    size_t size; /* its size in bytes; 0 if unknown */
} infinirtPointerAttributes_t;

/* Works on interior pointers. An unknown pointer succeeds with kind UNKNOWN. */
__export infiniStatus_t infinirtPointerGetAttributes(infinirtPointerAttributes_t *attributes, const void *ptr);

/* Native handles (extension): the backend's own object behind a handle, e.g. a CUstream, a
 * CUevent, a cl_command_queue; for the device, its context (CUcontext, cl_context). Valid as
 * long as the infinirt handle (or the process, for the device context) lives. NOT_IMPLEMENTED
 * if the backend has no such object. A NULL stream gives the device's default stream's handle. */
__export infiniStatus_t infinirtStreamGetNativeHandle(infinirtStream_t stream, void **native);
__export infiniStatus_t infinirtEventGetNativeHandle(infinirtEvent_t event, void **native);
__export infiniStatus_t infinirtDeviceGetNativeContext(infiniDevice_t device, int device_id, void **native);

#ifdef __cplusplus
}
#endif

#endif /* __INFINIRT_API_H__ */
