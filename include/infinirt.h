/*
 * infinirt.h - the infinirt C ABI: devices, memory, copies, streams, events, graphs.
 *
 * Source-compatible with the published InfiniCore infinirt.h: same names, parameters and enum
 * values. Everything marked "extension" is ours and only appends.
 *
 * Rules for every function (a declaration's own comment states only what differs or adds):
 *  - Status: every function but the three error-text ones returns an infiniStatus_t (meanings in
 *    infinicore.h). Outputs are written only on SUCCESS; on failure they keep their values.
 *  - Order of checks: with several faults in one call, the first of these is reported: (1) a
 *    NULL output parameter (where a result is written) -> NULL_POINTER; (2) handles (streams,
 *    events, graphs, execs, modules, kernels) in parameter order -> INVALID_HANDLE; (3) values:
 *    device types and ids, data pointers (NULL -> NULL_POINTER), sizes, enums and flags, in the
 *    order a declaration's comment gives. A NULL stream is the default stream, a valid handle:
 *    where it cannot serve (StreamDestroy, StreamBeginCapture) it is refused as a value
 *    (BAD_PARAM); NULL for any other handle kind is INVALID_HANDLE.
 *  - Last error: a call that returns a failure status sets the calling thread's last-error
 *    message; nothing else does (see infinirtGetLastErrorMessage).
 *  - Threads: every function may be called from any thread, concurrently, also on the same
 *    handle (several threads may submit to one stream: their work runs in the order the calls
 *    take effect). Not allowed: destroying a handle or freeing memory while another thread may
 *    still pass it to a call, or while another thread is inside a call on it (as in CUDA, that is
 *    the caller's error); only calls that start after the destroy or free has returned are
 *    guaranteed INVALID_HANDLE / BAD_PARAM. Of two racing destroys (frees) of one handle
 *    (pointer), exactly one succeeds.
 *  - Loading: the first call of any function except the three error-text ones loads the backend
 *    plugins, once; concurrent first calls wait for it. A plugin that fails to load fails no
 *    call: its device type just has no devices (infinirtGetBackendInfo tells why).
 *  - Current device: per thread. A new thread starts on the process default device: the one
 *    named by INFINICORE_DEFAULT_DEVICE=type:index if set and present, else the first GPU or
 *    accelerator device (infinirtDeviceProperties_t.device_kind; by type in infiniDevice_t order,
 *    then by index; a device whose backend does not report its kind counts as an accelerator),
 *    else cpu:0, else the first device of any kind. A device of another type that is itself a CPU
 *    (PoCL's OpenCL device) does not win over cpu:0. If no backend reports any device, every call
 *    that needs a device gives DEVICE_NOT_FOUND. A backend that lacks the basic entries (memory,
 *    copies, streams, device synchronisation) is never chosen unless named. An index that is not
 *    a plain decimal in int range (cpu:1junk, cpu:4294967297) is ignored with a warning.
 *  - Explicit devices: functions taking (device, device_id) neither use nor change the current
 *    device. A type outside [0, INFINI_DEVICE_TYPE_COUNT) gives DEVICE_TYPE_NOT_SUPPORTED; a type
 *    with no devices or an id outside [0, count) gives DEVICE_NOT_FOUND.
 *  - Streams: a NULL stream means the calling thread's current device's default stream (one per
 *    device, created on first use, never destroyed). Every stream is in-order. Created streams
 *    are not implicitly ordered with the default stream nor with each other: order them with
 *    events.
 *  - Handles (streams, events, graphs, graph execs) remember their backend and device: they are
 *    used and destroyed whatever the thread's current device is, and using them never changes
 *    it. Any value passed as a handle is checked without being dereferenced: a destroyed,
 *    never-created, garbage or wrong-kind handle gives INVALID_HANDLE. Creating one gives
 *    OUT_OF_MEMORY when 1M handles of its kind are live (fewer where INFINIRT_MAX_HANDLES says
 *    so, or where the process could not reserve address space for them when the library was
 *    loaded). Data pointers are not checked beyond NULL unless a comment below says so.
 *  - Ranges: a copy or fill whose range starts in memory infinirt allocated (infinirtMalloc,
 *    MallocAsync, MallocHost) and runs past that allocation's end gives BAD_PARAM, with the sizes
 *    in the message, before any backend call (the CUDA driver's rule, for every backend).
 *  - Blocking: a function waits for device work only where its comment says so.
 *  - Backends: cpu and opencl get graphs from the loader's record/replay, cuda and hip capture
 *    natively; where a comment names backends, the behaviour is theirs, not a guarantee.
 *  - After fork() in a process that had initialised infinirt, or had started to (another thread
 *    was loading the plugins when it forked), the child gets INFINI_STATUS_DEVICE_NOT_INITIALIZED
 *    from every function that returns a status (no hang, no re-use of the parent's state).
 *  - Layers (read once, at loading; unset, nothing changes and nothing is paid):
 *    INFINIRT_VALIDATION=1 checks every call that reaches a backend: a copy, fill or kernel
 *    POINTER argument whose range overruns the allocation it starts in, or that lies in memory
 *    freed recently, is refused with BAD_PARAM (the message names the call, the pointer, the
 *    allocation and who freed it); a call on a plugin object another thread is destroying gives
 *    INVALID_HANDLE, and a destroy waits for calls still inside the object; device memory used on
 *    a stream of another device, an event waited on a stream of another backend and
 *    EventElapsedTime across devices are reported on stderr; at exit, every allocation and handle
 *    still alive is listed (kind, device, size, creating call).
 *    INFINIRT_TRACE=path.json writes every call that reaches a backend as a Chrome trace event
 *    (Perfetto, chrome://tracing): name (the C ABI function), thread, start, duration, device,
 *    sizes, handles, status; INFINIRT_TRACE_DEVICE=1 adds the device-side span of each async copy,
 *    fill and kernel launch (resolved by the synchronising calls after it).
 *    INFINIRT_FAULT_INJECT=<entry>:<probability>[,...][,seed=N] makes the named plugin entries
 *    (malloc_device, event_record, ...: infinirt_plugin.h's field names) fail at that rate with
 *    the status and native error name the backend would give (OUT_OF_MEMORY for entries that
 *    create, DRIVER_ERROR otherwise), without reaching the plugin.
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

/* Loads the plugins if no call has done so yet (every function does it itself); idempotent.
 * SUCCESS even when some or all plugins failed to load (their types then have no devices);
 * DEVICE_NOT_INITIALIZED in a child forked after the parent initialised. Blocks only while
 * another thread's first call is loading the plugins. */
__export infiniStatus_t infinirtInit(void);

/* ---- Device ---------------------------------------------------------------------------- */

/* The device types the published InfiniCore header knows (INFINI_DEVICE_CPU .. INFINI_DEVICE_ALI):
 * the array size a program built against it passes to infinirtGetAllDeviceCount. */
#define INFINIRT_PUBLISHED_DEVICE_TYPE_COUNT 11
/* The symbol infinirtGetAllDeviceCount writes count_array[t] for the
 * INFINIRT_PUBLISHED_DEVICE_TYPE_COUNT (11) types of the published InfiniCore header only, so that
 * a program built against that header, whose array has that many ints, is never overrun.
 * A program built against THIS header calls it through the macro below, which passes its
 * array's size, INFINI_DEVICE_TYPE_COUNT as this header has it, to infinirtGetAllDeviceCountSized:
 * `int counts[INFINI_DEVICE_TYPE_COUNT]; infinirtGetAllDeviceCount(counts);` gets every type of
 * this header written (the infinirt extension types AMD, OPENCL and VULKAN included), and never more, whatever types a newer library knows. Taking the
 * function's address, `(infinirtGetAllDeviceCount)(counts)`, or defining
 * INFINIRT_PUBLISHED_DEVICE_COUNT_CALL before including this header reaches the 11-type symbol.
 * Types without a loaded backend, or whose backend found no device, get 0. NULL -> NULL_POINTER.
 * Never fails because a driver is missing. Never blocks; thread-safe. */
__export infiniStatus_t infinirtGetAllDeviceCount(int *count_array);
/* Writes count_array[t] for every type t < min(array_size, INFINI_DEVICE_TYPE_COUNT of the
 * library) and nothing past array_size (pass INFINI_DEVICE_TYPE_COUNT for every type of this
 * header). NULL -> NULL_POINTER; array_size < 1 -> BAD_PARAM (nothing written). Never blocks;
 * thread-safe. */
__export infiniStatus_t infinirtGetAllDeviceCountSized(int *count_array, int array_size);
#if !defined(INFINIRT_PUBLISHED_DEVICE_COUNT_CALL)
#define infinirtGetAllDeviceCount(count_array) infinirtGetAllDeviceCountSized((count_array), INFINI_DEVICE_TYPE_COUNT)
#endif
/* *count: the devices of that type; 0 (SUCCESS) when its backend is missing, failed or found
 * none. NULL count -> NULL_POINTER (checked first); a type out of range ->
 * DEVICE_TYPE_NOT_SUPPORTED. Never fails because a driver is missing. */
__export infiniStatus_t infinirtGetDeviceCount(infiniDevice_t device, int *count);
/* Makes (device, device_id) the calling thread's current device; other threads keep theirs.
 * DEVICE_TYPE_NOT_SUPPORTED for a type out of range, DEVICE_NOT_FOUND for an id out of range or
 * a type with no devices; a failure of the backend's own device switch returns its status. On
 * any failure the thread's current device is left as it was. cuda/hip also make the device
 * current for the thread's native runtime (the primary context; hipSetDevice), as cudaSetDevice
 * does; no other infinirt call changes the thread's native state. Does not block. */
__export infiniStatus_t infinirtSetDevice(infiniDevice_t device, int device_id);
/* The calling thread's current device (the process default on a thread that never set one).
 * NULL device_ptr or device_id_ptr -> NULL_POINTER (nothing written); DEVICE_NOT_FOUND when no
 * backend reports any device. */
__export infiniStatus_t infinirtGetDevice(infiniDevice_t *device_ptr, int *device_id_ptr);
/* Free and total bytes of the named device. NULL free_bytes or total_bytes -> NULL_POINTER
 * (checked before the device). "free" is the backend's figure: the driver's (cuda/hip);
 * MemAvailable, or the INFINIRT_CPU_MEMORY_LIMIT budget (cpu); an estimate where OpenCL has no
 * query (opencl). Does not block on queued work. */
__export infiniStatus_t infinirtGetMemInfo(infiniDevice_t device, int device_id, size_t *free_bytes, size_t *total_bytes);
/* Overwrites the whole struct (it has no struct_size) for the named device; only fields whose
 * bit is in valid_fields mean anything, the others are 0. Every backend sets MEMORY_CAPACITY
 * (free, total, used = total - free); cuda/hip also fill reserved_bytes (the stream-ordered
 * pool); no backend fills the utilisation or communication fields yet. NULL snapshot ->
 * NULL_POINTER (checked before the device). */
__export infiniStatus_t infinirtGetDeviceResourceSnapshot(infiniDevice_t device, int device_id,
                                                          infinirtDeviceResourceSnapshot_t *snapshot);
/* Blocks until all work submitted before the call to every stream of the calling thread's
 * current device, its default stream included, has completed. Other devices are not waited
 * for. DEVICE_NOT_FOUND when there is no device. While any stream of the device is capturing
 * (any mode, begun by any thread): BAD_PARAM with a message, on every backend, as CUDA refuses
 * it in global capture mode; the call never reaches the backend, so the capture stays valid.
 * Begins of capture on the device wait while it synchronises, so the rule cannot be raced. */
__export infiniStatus_t infinirtDeviceSynchronize(void);

/* ---- The thread's device stack (CUDA's context stack, for libraries) -------------------- */

/* Makes (device, device_id) current, as infinirtSetDevice does, and remembers what was current
 * before: infinirt's current device and the backend's native thread state (on cuda the thread's
 * current CUcontext, whatever it was: a context of the caller's, or none). The stack is per
 * thread (a new thread starts with an empty one) and holds 64 entries; a push beyond that ->
 * BAD_PARAM. A missing device -> DEVICE_NOT_FOUND, a bad type -> DEVICE_TYPE_NOT_SUPPORTED; on
 * any failure nothing is pushed and the current device is unchanged. Pushes may cross backends
 * (cpu:0 over nvidia:0). Does not block. */
__export infiniStatus_t infinirtPushDevice(infiniDevice_t device, int device_id);
/* Pops the entry of the latest push: restores infinirt's current device and the native thread
 * state of the pushed device's backend exactly as they were before that push (on cuda: the saved
 * context current again, or no context; never creating or retaining one), and writes the device
 * that is current after it (either output may be NULL). An empty stack -> BAD_PARAM (nothing
 * written). A failure of the backend's restore returns its status; the entry is popped all the
 * same. Does not block. */
__export infiniStatus_t infinirtPopDevice(infiniDevice_t *device, int *device_id);

/* ---- Limits ------------------------------------------------------------------------------- */

typedef enum {
    INFINIRT_LIMIT_STACK_SIZE = 0,        /* bytes of stack per device thread */
    INFINIRT_LIMIT_PRINTF_FIFO_SIZE = 1,  /* bytes of the device-side printf buffer */
    INFINIRT_LIMIT_MALLOC_HEAP_SIZE = 2   /* bytes of the device-side malloc heap */
} infinirtLimit_t;
/* A limit of the named device. cuda: all three (cuCtxGetLimit/cuCtxSetLimit in the primary
 * context). cpu: STACK_SIZE, the stack of the kernel pool's worker threads, taking effect for
 * workers started after the set (the pool starts at the device's first launch of more than one
 * block; those already running keep theirs; a stream's own worker, which runs blocks too, keeps
 * the system's default). opencl: PRINTF_FIFO_SIZE,
 * read-only (CL_DEVICE_PRINTF_BUFFER_SIZE). A limit the backend cannot honour ->
 * NOT_IMPLEMENTED naming the limit and the backend; an unknown limit -> BAD_PARAM; NULL value ->
 * NULL_POINTER. After a successful set, get returns at least the value set. */
__export infiniStatus_t infinirtDeviceGetLimit(size_t *value, infiniDevice_t device, int device_id, infinirtLimit_t limit);
__export infiniStatus_t infinirtDeviceSetLimit(infiniDevice_t device, int device_id, infinirtLimit_t limit, size_t value);

/* ---- Stream priorities -------------------------------------------------------------------- */

/* Priorities as CUDA numbers them: `greatest` is the highest priority, numerically <= `least`.
 * (0, 0) where a backend has one level. cpu: (0, -2): its kernel pool runs the blocks of
 * higher-priority launches first (copies and fills run on each stream's own worker, which no
 * other stream shares); cuda: the driver's range (cuCtxGetStreamPriorityRange); opencl where
 * the device lists cl_khr_priority_hints: (1, -1), queues created with CL_QUEUE_PRIORITY_KHR 1 LOW,
 * -1 HIGH, and 0 without the hint (OpenCL's default, MED: that of infinirtStreamCreate's and the
 * default streams); opencl without it, and hip: (0, 0); vulkan where the device's compute queue
 * family has two queues or more: (0, -1), streams of -1 submit to queues created with queue
 * priority 1.0 and the others to queues at 0.5 (Vulkan ranks them within the process's device
 * only), one queue: (0, 0). NULL outputs -> NULL_POINTER. */
__export infiniStatus_t infinirtDeviceGetStreamPriorityRange(int *least, int *greatest, infiniDevice_t device, int device_id);
/* infinirtStreamCreate with a priority within the current device's range; outside it ->
 * BAD_PARAM (never clamped, unlike CUDA). Graphs captured from the stream keep its priority
 * where the backend can (cuda). */
__export infiniStatus_t infinirtStreamCreateWithPriority(infinirtStream_t *stream_ptr, int priority);
/* The priority the stream was created with (0 for infinirtStreamCreate's streams; NULL, the
 * default stream, is 0). INVALID_HANDLE for a bad handle; NULL priority -> NULL_POINTER. */
__export infiniStatus_t infinirtStreamGetPriority(int *priority, infinirtStream_t stream);

/* ---- Device reset ------------------------------------------------------------------------- */

/* Waits for the device's queued work, then destroys every stream, event, graph, graph exec and
 * module of that device made through infinirt, and frees every allocation made through infinirt
 * on it (device memory, and pinned host memory allocated for it); host registrations, memory
 * mappings (and their physical memory) and opened IPC memory of the device are given back too
 * (reserved address ranges stay), and so are the staging buffers infinirt reserved on it
 * (infinirtMemcpyPeer; reserved again on its next use). Later use of those handles is
 * INVALID_HANDLE; frees of those pointers are BAD_PARAM. Other devices are untouched. The device
 * works afterwards. Refused with BAD_PARAM, nothing released, while a stream of the device is
 * capturing. Never resets the
 * backend's context (on cuda, the shared primary context keeps what other libraries hold in it):
 * it releases what infinirt made, nothing else. DEVICE_NOT_FOUND / DEVICE_TYPE_NOT_SUPPORTED for
 * a bad device. A release that fails is reported (the first failure) after the others ran.
 * Another thread's call on the device's handles or memory while it resets is the caller's error,
 * as with cudaDeviceReset (such a call may answer INVALID_HANDLE). */
__export infiniStatus_t infinirtDeviceReset(infiniDevice_t device, int device_id);
/* How many times infinirtDeviceReset has run on the device in this process (0 before the first).
 * Layers that cache infinirt memory or handles of a device (the C++ layer's allocators) compare it
 * with the count they saw to learn of a reset, whoever called it. NULL count -> NULL_POINTER. */
__export infiniStatus_t infinirtDeviceGetResetCount(infiniDevice_t device, int device_id, uint64_t *count);
/* Called by infinirtDeviceReset on the thread that reset (device, device_id), once everything
 * was released and before the reset returns, for layers that cache infinirt memory or handles of
 * a device (the C++ layer's allocators): they must forget them at once, never free them (their
 * addresses may already belong to new allocations). It may call infinirt, but not reset a device. */
typedef void (*infinirtDeviceResetCallback_t)(infiniDevice_t device, int device_id, void *user_data);
/* Adds `callback` (with `user_data`) to the callbacks every later reset calls, in the order they
 * were added; there is no removal (a library adds its callback once, for the process's
 * lifetime). NULL callback -> NULL_POINTER; OUT_OF_MEMORY when it cannot be recorded. */
__export infiniStatus_t infinirtDeviceAddResetCallback(infinirtDeviceResetCallback_t callback, void *user_data);

/* ---- Stream ---------------------------------------------------------------------------- */

/* Creates an in-order stream on the current device (never NULL on success), independent of the
 * default stream and of other streams (cuda/hip: a non-blocking stream). NULL stream_ptr ->
 * NULL_POINTER; DEVICE_NOT_FOUND without a device; OUT_OF_MEMORY when the backend or the handle
 * table is full. Does not block. */
__export infiniStatus_t infinirtStreamCreate(infinirtStream_t *stream_ptr);
/* Blocks until the stream's pending work has completed, then destroys it; events recorded on it
 * stay valid. NULL (the default stream) -> BAD_PARAM; a destroyed, garbage or non-stream handle
 * -> INVALID_HANDLE; a capturing stream -> BAD_PARAM on every backend: end the capture first (the
 * stream and its capture stay valid). A failure leaves the stream usable and its handle valid. */
__export infiniStatus_t infinirtStreamDestroy(infinirtStream_t stream);
/* Blocks until all work submitted to `stream` before the call has completed. NULL waits for the
 * current device's default stream only, not for the device's other streams (that is
 * infinirtDeviceSynchronize). INVALID_HANDLE for a bad handle. On a capturing stream: BAD_PARAM;
 * record/replay also invalidates the capture (cuda/hip: as the driver does). */
__export infiniStatus_t infinirtStreamSynchronize(infinirtStream_t stream);
/* Work submitted to `stream` after this call runs after the work that `event`'s latest
 * recording (as of this call) captured; recording the event again later changes nothing, and an
 * event never recorded imposes no wait. Same device: only enqueued. Event of another device of the
 * same backend: enqueued as a device-side wait where the backend can (cuda/hip: cuStreamWaitEvent /
 * hipStreamWaitEvent across contexts; cpu), else (opencl) and for an event of another backend the
 * caller blocks until the event has completed. INVALID_HANDLE for a bad stream
 * (checked first) or event. On a stream capturing under record/replay the wait is recorded and
 * looks up the event's latest recording at each launch. Under cuda's native capture, a wait on an
 * event recorded outside the capture (on this device or another cuda device) is captured as a
 * wait node with the same meaning (CU_EVENT_WAIT_EXTERNAL); an event recorded inside the capture
 * joins it; the graph's launch refuses with INVALID_HANDLE once such an event is destroyed. An
 * event of another backend cannot be waited on under native capture: BAD_PARAM, nothing is
 * captured and the capture stays valid (record/replay records it and waits on the host at each
 * launch). */
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

/* Creates an event on the current device; an event never recorded is COMPLETE. NULL event_ptr ->
 * NULL_POINTER; DEVICE_NOT_FOUND without a device; OUT_OF_MEMORY as for streams. Does not block.
 * infinirtEventCreate(e) is infinirtEventCreateWithFlags(e, INFINIRT_EVENT_DEFAULT). */
__export infiniStatus_t infinirtEventCreate(infinirtEvent_t *event_ptr);
/* flags: a combination of infinirtEventFlags_t and INFINIRT_EVENT_INTERPROCESS (below, with
 * DISABLE_TIMING); unknown bits -> BAD_PARAM (checked before the device). DISABLE_TIMING: the
 * event cannot be timed. BLOCKING_SYNC: cuda/hip make waiting threads sleep instead of spin; cpu
 * and opencl accept it and ignore it. */
__export infiniStatus_t infinirtEventCreateWithFlags(infinirtEvent_t *event_ptr, uint32_t flags);
/* Makes the event capture all work submitted to `stream` so far, replacing any earlier
 * recording; does not block. The stream must belong to the event's device, else BAD_PARAM
 * (also for NULL while another device is current: NULL is the current device's default
 * stream). INVALID_HANDLE for a bad event (checked first) or stream. On a capturing stream the
 * record becomes part of the graph: each launch records the event (record/replay, cuda; hip:
 * HIP's own rules). */
__export infiniStatus_t infinirtEventRecord(infinirtEvent_t event, infinirtStream_t stream);
/* Never blocks. *status_ptr = COMPLETE once the latest recording's work has completed (or if
 * never recorded), else NOT_READY; both are SUCCESS and NOT_READY writes no last error.
 * NULL status_ptr -> NULL_POINTER (checked first); INVALID_HANDLE for a bad event. A failure of
 * the backend's query is asked once more (a query has no side effect), and the second answer is
 * the call's. */
__export infiniStatus_t infinirtEventQuery(infinirtEvent_t event, infinirtEventStatus_t *status_ptr);
/* Blocks until the work of the event's latest recording has completed; returns at once if the
 * event was never recorded. INVALID_HANDLE for a bad event. A wait that fails in the backend is
 * reported only once that work has ended (opencl: a failed clWaitForEvents is followed by
 * reading the command's status until it has), so buffers may be freed after it either way. */
__export infiniStatus_t infinirtEventSynchronize(infinirtEvent_t event);
/* Does not wait: an event whose recording is still pending may be destroyed; the recorded work
 * and StreamWaitEvent calls already made on it are unaffected. NULL, destroyed, garbage or
 * non-event handles -> INVALID_HANDLE. A record/replay graph that recorded or waited on this
 * event fails at its next launch with INVALID_HANDLE. */
__export infiniStatus_t infinirtEventDestroy(infinirtEvent_t event);
/* Milliseconds between the completion of start's and end's latest recordings; never waits.
 * Checked in this order: NULL ms_ptr -> NULL_POINTER; bad start, then bad end ->
 * INVALID_HANDLE; either created with DISABLE_TIMING, or the two on different devices ->
 * BAD_PARAM; either never recorded -> BAD_PARAM; either still pending -> NOT_READY (a failure
 * here: the last error is written). Negative when end's recording completed first (cpu,
 * opencl). */
__export infiniStatus_t infinirtEventElapsedTime(float *ms_ptr, infinirtEvent_t start, infinirtEvent_t end);

/* ---- Memory ---------------------------------------------------------------------------- */

typedef enum {
    INFINIRT_MEMCPY_H2H = 0,
    INFINIRT_MEMCPY_H2D = 1,
    INFINIRT_MEMCPY_D2H = 2,
    INFINIRT_MEMCPY_D2D = 3,
    INFINIRT_MEMCPY_DEFAULT = 4 /* extension: direction inferred from the pointers */
} infinirtMemcpyKind_t;

/* Device memory on the current device, uninitialised. Does not wait for queued work (opencl
 * does before retrying an allocation the driver refused). NULL p_ptr -> NULL_POINTER; size 0 ->
 * BAD_PARAM; DEVICE_NOT_FOUND without a device; a size the device cannot satisfy (SIZE_MAX, more
 * than the memory) -> OUT_OF_MEMORY, never SUCCESS with NULL. The loader records the block
 * (owner device, size, kind) for frees, copies and infinirtPointerGetAttributes. */
__export infiniStatus_t infinirtMalloc(void **p_ptr, size_t size);
/* Host memory for copies with the current device, usable by the host at once; statuses as for
 * infinirtMalloc. Page-locked on cuda/hip, and on opencl where the implementation maps a
 * CL_MEM_ALLOC_HOST_PTR buffer (else page-aligned ordinary memory); ordinary aligned memory on
 * cpu. */
__export infiniStatus_t infinirtMallocHost(void **p_ptr, size_t size);
/* Frees memory from infinirtMalloc/MallocAsync of any device, whatever device is current.
 * Blocks until all work queued on every stream of the owning device has completed (as cudaFree
 * does), and first until every other device whose streams were handed this memory by an
 * infinirt call (async copies and fills, kernel arguments; the loader notes it in its
 * allocation record) has finished all its queued work; then frees. If such a device, or the
 * owning device, has a stream capturing (any mode, begun by any thread), the free is refused as
 * infinirtDeviceSynchronize is (BAD_PARAM), on every backend: nothing is freed and the capture
 * stays valid (cudaFree would invalidate it); free it after the capture ends. NULL is a no-op (SUCCESS). A pointer infinirt did not allocate, one
 * already freed, an interior pointer or memory from infinirtMallocHost -> BAD_PARAM, and
 * nothing is freed. */
__export infiniStatus_t infinirtFree(void *ptr);
/* Frees memory from infinirtMallocHost, whatever device is current. NULL is a no-op; foreign,
 * already freed and interior pointers, and device memory -> BAD_PARAM. On every backend, every
 * device other than the owner whose streams were handed this memory is waited for first, as in
 * infinirtFree, and the same refusal applies while the owning device or such a device has a
 * stream capturing. For the owning device's own queued work, waiting differs: cpu and opencl
 * wait for it; cuda/hip call cuMemFreeHost/hipHostFree without a wait of their own. */
__export infiniStatus_t infinirtFreeHost(void *ptr);

/* Copies. Both: a kind out of range -> BAD_PARAM; NULL dst or src -> NULL_POINTER (also with
 * size 0); then size 0 is a no-op (SUCCESS). A range overrunning the infinirt allocation it
 * starts in -> BAD_PARAM (see "Ranges"); the kind is not checked against the pointers; DEFAULT is resolved from the loader's allocation record when both pointers are
 * infinirt memory, else by the backend. Host memory may be pageable or from MallocHost.
 * infinirtMemcpy runs on the device owning the device-side pointer (the current device when
 * neither is infinirt device memory), after the work already queued on that device's default
 * stream, and blocks until the copy is complete. It is not ordered with the device's other
 * streams. When both pointers are device memory infinirt allocated on two different devices
 * (whatever `kind` says, D2D or DEFAULT included), it is infinirtMemcpyPeer between them: ordered
 * after both devices' default streams. When one pointer is host memory infinirt allocated for
 * another device (MallocHost), the copy also waits for that device's default stream. Failed or
 * not, it returns only after the work it queued has completed or ended (a failed wait is
 * reported after waiting), so dst and src may be freed once it returns.
 * Staging never runs out: a copy with pageable host memory needs no staging memory of infinirt's
 * on any backend (cpu: memmove; opencl: clEnqueueSVMMemcpy takes host pointers as they are;
 * cuda/hip: the driver stages through its own pinned buffers, made with the context), so it
 * never fails with OUT_OF_MEMORY for lack of staging, however full the device is; nor does a
 * copy between two devices staged by the loader (see infinirtMemcpyPeer). */
__export infiniStatus_t infinirtMemcpy(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind);
/* Enqueues on `stream`, on the stream's device whatever the pointers' owners; INVALID_HANDLE for
 * a bad stream (checked first: before the kind, the NULL pointers and the size-0 no-op). Kind D2D or DEFAULT with both pointers device
 * memory infinirt allocated on two different devices: infinirtMemcpyPeerAsync between them on
 * `stream`, which must belong to one of the two (else BAD_PARAM); a capturing record/replay
 * stream records the copy as it is. Returns without waiting, except that a copy between two
 * devices staged through the host (two backends, two opencl devices) completes first, and
 * cuda/hip may block while the driver stages pageable memory. Keep both buffers
 * valid, and a host source unchanged, until the stream has run the copy (cpu and opencl access
 * pageable memory only then). On a capturing stream the copy is recorded, not run. */
__export infiniStatus_t infinirtMemcpyAsync(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind,
                                            infinirtStream_t stream);

/* Stream-ordered allocation on the stream's device (NULL: the current device's default stream):
 * usable by work submitted to `stream` after the call (on other streams, order with an event).
 * Waits only as infinirtMalloc does; cpu, opencl allocate at once, cuda/hip from the pool.
 * NULL p_ptr -> NULL_POINTER; bad stream -> INVALID_HANDLE; size 0 -> BAD_PARAM; OUT_OF_MEMORY
 * as for infinirtMalloc. infinirtFree also frees the block. On a
 * capturing stream: BAD_PARAM on every backend (no capture records an allocation); nothing is
 * allocated, *p_ptr is untouched and the capture stays valid. */
__export infiniStatus_t infinirtMallocAsync(void **p_ptr, size_t size, infinirtStream_t stream);
/* Frees `ptr` (from infinirtMallocAsync) once the work submitted to `stream` before the call
 * has run; does not block. The stream is checked first: a garbage or destroyed stream ->
 * INVALID_HANDLE, whatever ptr is. Then NULL ptr -> SUCCESS (nothing to free); a capturing stream
 * -> BAD_PARAM on every backend (nothing freed, the capture stays valid); foreign, already freed,
 * interior or MallocHost pointers, or memory of another device than the stream's -> BAD_PARAM.
 * On failure the memory stays allocated. */
__export infiniStatus_t infinirtFreeAsync(void *ptr, infinirtStream_t stream);

/* Sets `count` bytes at ptr to (unsigned char)value. NULL ptr -> NULL_POINTER (also with count
 * 0); then count 0 is a no-op (SUCCESS). A range overrunning the infinirt allocation it starts in
 * -> BAD_PARAM on every backend (see "Ranges"). ptr should be device memory: opencl refuses
 * other memory (BAD_PARAM); other backends do not check.
 * infinirtMemset runs on the device owning ptr (the current device for memory infinirt did not
 * allocate), after the work queued on that device's default stream, and blocks until done;
 * failed or not, it returns only after the work it queued has completed or ended. */
__export infiniStatus_t infinirtMemset(void *ptr, int value, size_t count);
/* Enqueues on `stream`'s device and returns without waiting; INVALID_HANDLE for a bad stream
 * (checked first: before the NULL ptr and the count-0 no-op). Recorded when the stream captures. */
__export infiniStatus_t infinirtMemsetAsync(void *ptr, int value, size_t count, infinirtStream_t stream);

/* ---- Graph ----------------------------------------------------------------------------- */

typedef enum {
    INFINIRT_STREAM_CAPTURE_MODE_GLOBAL = 0,
    INFINIRT_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
    INFINIRT_STREAM_CAPTURE_MODE_RELAXED = 2
} infinirtStreamCaptureMode_t;

/* Work submitted to a capturing stream is recorded, not run; neither call blocks. cuda/hip
 * capture natively (modes as in CUDA). cpu and opencl use the loader's record/replay: it records
 * MemcpyAsync, MemsetAsync, EventRecord, StreamWaitEvent and LaunchKernel, accepts every mode
 * without telling them apart, and refuses StreamSynchronize and StreamQuery on the stream with
 * BAD_PARAM, invalidating the capture. On every backend alike, MallocAsync, FreeAsync,
 * GraphLaunch and StreamDestroy on a capturing stream are refused with BAD_PARAM and the capture
 * stays valid. Synchronous Memcpy/Memset are not captured (they use the default stream). BeginCapture: bad handle ->
 * INVALID_HANDLE; then NULL stream or a mode out of range -> BAD_PARAM; already capturing ->
 * BAD_PARAM. */
__export infiniStatus_t infinirtStreamBeginCapture(infinirtStream_t stream, infinirtStreamCaptureMode_t mode);
/* Ends the capture and returns its graph. NULL graph_ptr -> NULL_POINTER (the capture goes on);
 * NULL stream -> BAD_PARAM; bad handle -> INVALID_HANDLE; a stream not capturing, or a capture
 * that was invalidated -> BAD_PARAM, and the capture is over either way. Other threads may
 * submit to the stream meanwhile: under record/replay each such call is either recorded (it
 * took effect before the end) or runs on the stream as an ordinary call (after). */
__export infiniStatus_t infinirtStreamEndCapture(infinirtStream_t stream, infinirtGraph_t *graph_ptr);
/* Destroys a graph; execs instantiated from it stay valid. Does not block. NULL, destroyed,
 * garbage or non-graph handles -> INVALID_HANDLE. */
__export infiniStatus_t infinirtGraphDestroy(infinirtGraph_t graph);
/* Makes an executable graph of `graph`, which stays valid and may be instantiated again; does
 * not block. NULL graph_exec_ptr -> NULL_POINTER; bad graph -> INVALID_HANDLE; a failed native
 * instantiation returns its status. log_buffer (may be NULL; buffer_size bytes) gets "" on
 * success and a NUL-terminated reason on those failures; *node_ptr (node_ptr may be NULL) is
 * set to NULL on success. */
__export infiniStatus_t infinirtGraphInstantiate(infinirtGraphExec_t *graph_exec_ptr, infinirtGraph_t graph,
                                                 infinirtGraphNode_t *node_ptr, char *log_buffer,
                                                 size_t buffer_size);
/* Destroys an exec without waiting: launches already made still run to completion. NULL,
 * destroyed, garbage or non-exec handles -> INVALID_HANDLE. */
__export infiniStatus_t infinirtGraphExecDestroy(infinirtGraphExec_t graph_exec);
/* Enqueues the recorded work on `stream`, in stream order, as many times as it is launched;
 * does not block. INVALID_HANDLE for a bad exec (checked first) or stream; a stream of another
 * device than the graph's -> BAD_PARAM. Copies read their sources as they are when the launch
 * runs. Every event the capture recorded or waited for is checked before anything is enqueued
 * (native graphs too): a destroyed one gives INVALID_HANDLE and nothing of the graph runs.
 * Launching into a capturing stream -> BAD_PARAM on every backend (the capture stays valid). */
__export infiniStatus_t infinirtGraphLaunch(infinirtGraphExec_t graph_exec, infinirtStream_t stream);
/* The published (misspelled) name, kept for source compatibility; identical to
 * infinirtGraphLaunch. */
__export infiniStatus_t infinirtGraphLuanch(infinirtGraphExec_t graph_exec, infinirtStream_t stream);

/* ---- Extensions: errors ---------------------------------------------------------------- */

/* "INFINI_STATUS_SUCCESS" etc.; "INFINI_STATUS_UNKNOWN" for a value that is no status. Never
 * NULL; static storage, valid for the life of the process. Thread-safe; loads no plugin and
 * never touches the last error. */
__export const char *infinirtGetErrorName(infiniStatus_t status);
/* A one-line English description; "unknown status code" for a value that is no status. Never
 * NULL; static storage; otherwise as infinirtGetErrorName. */
__export const char *infinirtGetErrorString(infiniStatus_t status);
/* The calling thread's last-error message: the detail of this thread's latest call that
 * returned a failure status ("" if none did yet): backend:device, the native call, the native
 * error name and number and figures where the backend gives them, else the loader's reason. It
 * is written only by a call of this thread that returns a failure status, and describes that
 * failure; successful calls, other threads and background work (plugin loading) never set it.
 * StreamQuery answering NOT_READY, and EventQuery reporting NOT_READY, are not failures and
 * write nothing. Never NULL: a thread-local buffer (at most 1023 characters, longer text is
 * cut), valid until the thread exits; its text changes at the thread's next failing call.
 * Loads no plugin. */
__export const char *infinirtGetLastErrorMessage(void);
/* Extension for libraries layered on infinirt (libinfiniccl): records `message` (NULL: "") as the
 * calling thread's last-error message, cut at 1023 characters, and returns `status`, so that a
 * layered library's failures read like infinirt's own. Call it only when returning a failure
 * status from a call of that library (the rule of the error channel above). Loads no plugin. */
__export infiniStatus_t infinirtSetLastErrorMessage(infiniStatus_t status, const char *message);

/* ---- Extensions: backends and devices -------------------------------------------------- */

typedef enum {
    INFINIRT_BACKEND_LOADED = 0,      /* negotiated and serving its device type */
    INFINIRT_BACKEND_UNAVAILABLE = 1, /* loaded but reports no devices (reason says why) */
    INFINIRT_BACKEND_FAILED = 2,      /* dlopen, entry symbol, version or init failed, or excluded */
    INFINIRT_BACKEND_SHADOWED = 3     /* an earlier plugin already serves its device type */
} infinirtBackendState_t;

/* Extensible: set struct_size = sizeof(infinirtBackendInfo_t) before the call. */
typedef struct {
    size_t struct_size;
    char name[64];            /* "cpu", "cuda", ... or the file name if it never told us */
    infiniDevice_t device_type; /* INFINI_DEVICE_TYPE_COUNT if negotiation never got that far */
    char path[1024];          /* the plugin file */
    uint32_t interface_version; /* negotiated version, 0 if negotiation failed */
    int device_count;         /* 0 unless LOADED */
    infinirtBackendState_t state;
    char reason[512];         /* why it is not LOADED; "" otherwise */
    /* How well its devices copy from its own pinned host memory when infinirt stages a copy
     * between two devices through host memory: the bounce buffers come from the side ranked
     * higher (the source on a tie). 0: ordinary memory (cpu); 1: memory the device maps; 2:
     * page-locked memory reached by DMA. The plugin reports it (0 if it does not). */
    int host_staging_rank;
} infinirtBackendInfo_t;

/* Every plugin file found, in search order, whatever its state; fixed once loaded. Files that
 * INFINIRT_BACKENDS excludes by file name are not listed (those excluded by their declared name
 * are, as FAILED). NULL count -> NULL_POINTER. */
__export infiniStatus_t infinirtGetBackendCount(int *count);
/* NULL info -> NULL_POINTER; info->struct_size <= sizeof(size_t) or > 1 MiB -> BAD_PARAM;
 * index outside [0, count) -> BAD_PARAM. Writes at most struct_size bytes and leaves
 * struct_size as the caller set it; strings are NUL-terminated, cut to their fields. */
__export infiniStatus_t infinirtGetBackendInfo(int index, infinirtBackendInfo_t *info);

/* The device type's name, as infinirt-info, INFINICORE_DEFAULT_DEVICE and the Python package
 * spell it: "cpu", "nvidia", "cambricon", "ascend", "metax", "moore", "iluvatar", "kunlun",
 * "hygon", "qy", "ali", "amd", "opencl", ...; "unknown" for a value outside
 * [0, INFINI_DEVICE_TYPE_COUNT). Never NULL and never fails; static storage, valid for the life
 * of the process. Thread-safe; loads no plugin and never touches the last error. */
__export const char *infinirtGetDeviceTypeName(infiniDevice_t type);

/* What a device is, whatever backend serves it (infinirtDeviceProperties_t.device_kind). */
typedef enum {
    INFINIRT_DEVICE_KIND_UNKNOWN = 0,    /* the backend does not say (a plugin built before the field) */
    INFINIRT_DEVICE_KIND_CPU = 1,        /* host processors: the cpu backend, or a device that is itself a
                                          * CPU (OpenCL CL_DEVICE_TYPE_CPU, e.g. PoCL) */
    INFINIRT_DEVICE_KIND_GPU = 2,        /* cuda, hip, OpenCL CL_DEVICE_TYPE_GPU */
    INFINIRT_DEVICE_KIND_ACCELERATOR = 3 /* any other accelerator (OpenCL ACCELERATOR or CUSTOM, NPUs) */
} infinirtDeviceKind_t;

/* Extensible: set struct_size = sizeof(infinirtDeviceProperties_t) before the call. Fields a
 * backend does not know are left as 0 / "" / -1 (as documented per field). A caller built with
 * an older header (a smaller struct_size) gets the fields its struct has. New fields are only
 * ever appended. */
typedef struct {
    size_t struct_size;
    char name[256];
    char vendor[128];
    char platform[128];           /* e.g. OpenCL platform or driver name; "" if none */
    char driver_version[64];
    size_t total_memory;          /* bytes */
    int compute_capability_major; /* -1 if not applicable */
    int compute_capability_minor; /* -1 if not applicable */
    char architecture[64];        /* "sm_90", "x86_64", ...; "" if unknown (hip) */
    int multiprocessor_count;     /* SMs, CUs, compute units or cores; 0 if unknown */
    unsigned char uuid[16];
    int has_uuid;
    char pci_bus_id[32];          /* "0000:3b:00.0"; "" if none */
    /* ---- from here on, 0 means unknown for each field ---------------------------------------- */
    infinirtDeviceKind_t device_kind; /* the default device is the first GPU or ACCELERATOR */
    int clock_rate_khz;           /* peak core clock (cpu: cpufreq's maximum; 0 without cpufreq) */
    int memory_clock_rate_khz;    /* peak memory clock */
    int memory_bus_width_bits;
    size_t cache_bytes;           /* last-level cache before device memory: L2 on cuda/hip, the global
                                   * memory cache on opencl, the largest data cache on cpu */
    int max_threads_per_block;    /* the device's limit (a kernel's own may be lower) */
    int max_block_dim[3];         /* x, y, z */
    int max_grid_dim[3];          /* x, y, z; 0 if unknown or no limit below the launch's 32 bits */
    size_t shared_memory_per_block; /* bytes of shared/local memory one block may use */
    int graphs_native;            /* set by the loader: 1 if the backend captures and replays graphs
                                   * natively, 0 if the loader's record/replay does */
    int memory_is_host;           /* set by the loader: 1 if the device's memory is ordinary host memory
                                   * the host reads and writes directly (the cpu backend; an OpenCL CPU
                                   * device whose memory is the host's, e.g. PoCL), so that copies between
                                   * it and a device of another backend are that backend's own H2D or D2H,
                                   * unstaged; 0 otherwise */
} infinirtDeviceProperties_t;

/* Properties of the named device. NULL props -> NULL_POINTER; struct_size <= sizeof(size_t)
 * or > 1 MiB -> BAD_PARAM; then the device checks. Writes at most struct_size bytes and leaves
 * struct_size as the caller set it. Does not block. */
__export infiniStatus_t infinirtGetDeviceProperties(infiniDevice_t device, int device_id,
                                                    infinirtDeviceProperties_t *props);

/* The device a stream belongs to (extension): a stream handle's own device whatever device is
 * current; NULL gives the current device (its default stream's). NULL device or device_id ->
 * NULL_POINTER (checked first), then INVALID_HANDLE for a bad handle, DEVICE_NOT_FOUND for a
 * NULL stream on a thread without a device. Outputs are written on success only. Never blocks. */
__export infiniStatus_t infinirtStreamGetDevice(infinirtStream_t stream, infiniDevice_t *device, int *device_id);

/* Never blocks. SUCCESS if all work submitted to the stream has completed, NOT_READY otherwise
 * (an answer, not a failure: no last error is written). INVALID_HANDLE for a bad handle. On a
 * capturing stream: BAD_PARAM, and record/replay invalidates the capture. A failure of the
 * backend's query on a stream handle is asked once more, and the second answer is the call's. */
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

/* Works on interior pointers; never blocks. Memory from infinirt: its kind, owner, base and
 * size. Otherwise the backends are asked (cuda knows memory of the CUDA runtime and driver);
 * else SUCCESS with kind UNKNOWN, device_type INFINI_DEVICE_CPU, device_id 0, base NULL, size 0
 * (also for a NULL ptr). NULL attributes -> NULL_POINTER; struct_size as for
 * infinirtGetBackendInfo (BAD_PARAM); at most struct_size bytes are written. */
__export infiniStatus_t infinirtPointerGetAttributes(infinirtPointerAttributes_t *attributes, const void *ptr);

/* The loader's record of live allocations (extension): how many blocks made by infinirtMalloc,
 * infinirtMallocHost and infinirtMallocAsync are not yet freed, and their bytes, over every
 * device. For leak checks at the end of a test or program (0 and 0 when everything was freed).
 * Either output may be NULL (not both: NULL_POINTER). Thread-safe; never blocks on devices. */
__export infiniStatus_t infinirtGetLiveAllocations(size_t *count, size_t *bytes);

/* ---- Memory beyond malloc (extension; docs/memory.md) --------------------------------------
 * Host registration: pins memory the program already has for `device`'s copies. The range is
 * then infinirt memory of kind HOST (infinirtPointerGetAttributes: the registration's base and
 * size) and takes the pinned path in copies; it stays the caller's memory (unregister before
 * freeing it). Overlapping an existing registration or allocation, size 0, unknown flags and
 * unregistering a pointer that is not the start of a registration are BAD_PARAM; NULL ptr is
 * NULL_POINTER. NOT_IMPLEMENTED where the backend cannot pin (the detail says why). */
#define INFINIRT_HOST_REGISTER_READ_ONLY 0x1u
__export infiniStatus_t infinirtHostRegister(infiniDevice_t device, int device_id, void *ptr, size_t size,
                                             uint32_t flags);
__export infiniStatus_t infinirtHostUnregister(void *ptr);

/* Virtual memory: reserve an address range once, create physical allocations, map them into the
 * range (in any order) and grow it as needed. Mapped memory is infinirt memory: copies, memsets,
 * kernels, infinirtPointerGetAttributes (kind DEVICE; base and size of the contiguous mapped range
 * holding the pointer) and the validation layer treat it like infinirtMalloc memory, across the
 * seams between physical allocations mapped side by side. Sizes and offsets are multiples of the
 * device's minimum granularity (else BAD_PARAM). BAD_PARAM too: mapping over a mapped range,
 * past the end of the physical allocation or outside a reservation of the physical allocation's
 * device; unmapping a range that is not made of whole mappings; freeing a reservation that still
 * has mappings, or one unknown or already freed. A released handle is INVALID_HANDLE; NULL
 * pointers are NULL_POINTER. A part of a reservation with nothing mapped (never mapped, or
 * unmapped) is no memory on any backend: a copy, memset, kernel argument or free that touches it
 * is BAD_PARAM, nothing written, and infinirtPointerGetAttributes reports it as UNKNOWN. */
typedef void *infinirtPhysicalMem_t; /* a loader handle, like streams */
#define INFINIRT_MEM_CREATE_SHAREABLE 0x1u /* may be exported with infinirtIpcGetMemHandle */
typedef enum { INFINIRT_MEM_GRANULARITY_MINIMUM = 0, INFINIRT_MEM_GRANULARITY_RECOMMENDED = 1 } infinirtMemGranularity_t;
#define INFINIRT_MEM_ACCESS_NONE 0x0u
#define INFINIRT_MEM_ACCESS_READ 0x1u
#define INFINIRT_MEM_ACCESS_READWRITE 0x3u

__export infiniStatus_t infinirtMemGetAllocationGranularity(size_t *granularity, infiniDevice_t device, int device_id,
                                                            infinirtMemGranularity_t which);
/* alignment 0: the minimum granularity; else a power of two. */
__export infiniStatus_t infinirtMemAddressReserve(void **ptr, infiniDevice_t device, int device_id, size_t size,
                                                  size_t alignment);
/* The whole reservation: ptr and size as reserved. */
__export infiniStatus_t infinirtMemAddressFree(void *ptr, size_t size);
__export infiniStatus_t infinirtMemCreate(infinirtPhysicalMem_t *mem, infiniDevice_t device, int device_id, size_t size,
                                          uint32_t flags);
/* The handle stops validating at once; the memory goes at its last unmap (as CUDA does). */
__export infiniStatus_t infinirtMemRelease(infinirtPhysicalMem_t mem);
/* Maps [offset, offset + size) of mem at ptr, inside a reservation of the same device, and gives
 * the owning device read-write access. */
__export infiniStatus_t infinirtMemMap(void *ptr, size_t size, infinirtPhysicalMem_t mem, size_t offset);
/* A range of whole mappings side by side (else BAD_PARAM). Waits for the owning device's queued
 * work (and other devices' that used the range) first. */
__export infiniStatus_t infinirtMemUnmap(void *ptr, size_t size);
/* Access of (device, device_id), a device of the owner's backend, to a range of whole mappings
 * side by side (part of a mapping: BAD_PARAM, as cuMemSetAccess wants): one of the
 * INFINIRT_MEM_ACCESS_ values (else BAD_PARAM). */
__export infiniStatus_t infinirtMemSetAccess(void *ptr, size_t size, infiniDevice_t device, int device_id,
                                             uint32_t access);

/* Memory and events shared between processes (docs/memory.md, "Between processes"). A handle is
 * 128 plain bytes: send them any way (a pipe, a socket, a file, pickled) and open them in another
 * process. The exporter keeps the memory and the event alive: freeing, unmapping or destroying
 * them while another process uses them is the caller's to prevent (infinirt does not count
 * across processes). A handle infinirt did not make, or of another kind or backend than the call
 * expects, is BAD_PARAM; one whose memory or event is gone is INVALID_HANDLE (where the backend
 * can tell); either way the output is left untouched. NULL pointers are NULL_POINTER. */
typedef struct { unsigned char bytes[128]; } infinirtIpcMemHandle_t;
typedef struct { unsigned char bytes[128]; } infinirtIpcEventHandle_t;
/* An event flag: the event may be exported with infinirtIpcGetEventHandle; requires
 * INFINIRT_EVENT_DISABLE_TIMING (else BAD_PARAM). */
#define INFINIRT_EVENT_INTERPROCESS 0x4u

/* The handle of the device memory holding ptr (an interior pointer works: the other process's
 * pointer points at the same byte). Memory of infinirtMalloc (cuda; cpu: NOT_IMPLEMENTED, its
 * heap memory cannot be mapped by another process) or of a mapping of a physical allocation
 * created with INFINIRT_MEM_CREATE_SHAREABLE (cpu; cuda: NOT_IMPLEMENTED). A pointer infinirt does
 * not know, or host memory, is BAD_PARAM; memory the backend cannot share (those NOT_IMPLEMENTED
 * above, mappings of allocations made without SHAREABLE, memory opened from another process) is
 * NOT_IMPLEMENTED, the detail saying why. Memory of infinirtMallocAsync: as the driver answers. */
__export infiniStatus_t infinirtIpcGetMemHandle(infinirtIpcMemHandle_t *handle, void *ptr);
/* Maps the memory of `handle`, exported by another process (or this one, where the backend
 * allows), for (device, device_id), a device of the exporter's backend. The memory is infinirt
 * memory of kind DEVICE (copies, memsets, kernels, attributes) until infinirtIpcCloseMemHandle.
 * Opening the same handle again in this process gives the same pointer and counts the opens. */
__export infiniStatus_t infinirtIpcOpenMemHandle(void **ptr, infiniDevice_t device, int device_id,
                                                 const infinirtIpcMemHandle_t *handle);
/* One close per open, with the pointer the open gave; the last close waits for the device's
 * queued work and unmaps. Any other pointer is BAD_PARAM. */
__export infiniStatus_t infinirtIpcCloseMemHandle(void *ptr);
/* The handle of an event created with INFINIRT_EVENT_INTERPROCESS (else BAD_PARAM;
 * INVALID_HANDLE for a bad event). NOT_IMPLEMENTED where the backend cannot (cpu, opencl). */
__export infiniStatus_t infinirtIpcGetEventHandle(infinirtIpcEventHandle_t *handle, infinirtEvent_t event);
/* An event of this process that stands for the exporter's: recording it here or there, waiting
 * on it and querying it see the same event. It belongs to the current device if that is of the
 * exporter's backend, else to device 0 of that backend; it cannot be timed. Destroy it with
 * infinirtEventDestroy (the exporter's event lives on). */
__export infiniStatus_t infinirtIpcOpenEventHandle(infinirtEvent_t *event, const infinirtIpcEventHandle_t *handle);

/* Native handles (extension): the backend's own object behind a handle, for interop; it stays
 * infinirt's (do not destroy it). NULL native -> NULL_POINTER (checked first); then
 * INVALID_HANDLE for a bad handle, or the device checks; NOT_IMPLEMENTED where the backend has
 * no such object (cpu). Never block.
 * Stream: CUstream, hipStream_t, cl_command_queue, valid while the stream lives; NULL gives the
 * current device's default stream (cuda: CU_STREAM_LEGACY; hip: NULL, its null stream; opencl:
 * its default queue, valid for the life of the process). */
__export infiniStatus_t infinirtStreamGetNativeHandle(infinirtStream_t stream, void **native);
/* CUevent or hipEvent_t, valid while the event lives. opencl: the cl_event of the latest
 * recording (before the first, an already complete user event), which the plugin releases at
 * the event's next EventRecord or EventDestroy: clRetainEvent it to keep it longer. */
__export infiniStatus_t infinirtEventGetNativeHandle(infinirtEvent_t event, void **native);
/* The device's context, valid for the life of the process: cuda, its primary CUcontext; hip,
 * its primary context (retained on the first call); opencl, its cl_context. */
__export infiniStatus_t infinirtDeviceGetNativeContext(infiniDevice_t device, int device_id, void **native);

/* ---- Modules and kernels (extension; docs/kernels.md) ---------------------------------------
 * A module is device code loaded onto one device from one or more images; a kernel is an entry
 * point of a module. Both are loader handles like streams: a destroyed or garbage handle is
 * INVALID_HANDLE whatever device is current, and a kernel handle dies with its module.
 * Backends without these entries (older plugins) answer NOT_IMPLEMENTED. */
typedef void *infinirtModule_t;
typedef void *infinirtKernel_t;

typedef enum {
    INFINIRT_MODULE_FORMAT_AUTO = 0,          /* sniffed from the image's first bytes */
    INFINIRT_MODULE_FORMAT_PTX = 1,
    INFINIRT_MODULE_FORMAT_CUBIN = 2,
    INFINIRT_MODULE_FORMAT_FATBIN = 3,
    INFINIRT_MODULE_FORMAT_HSACO = 4,
    INFINIRT_MODULE_FORMAT_OPENCL_C = 5,      /* source text */
    INFINIRT_MODULE_FORMAT_SPIRV = 6,
    INFINIRT_MODULE_FORMAT_DEVICE_BINARY = 7, /* what the OpenCL driver gave back for this device */
    INFINIRT_MODULE_FORMAT_HOST_SO = 8        /* cpu: an ELF shared object */
} infinirtModuleFormat_t;

/* Extensible: set struct_size = sizeof(infinirtModuleImage_t). */
typedef struct {
    size_t struct_size;
    infinirtModuleFormat_t format;
    const void *data;     /* copied during the call */
    size_t size;          /* bytes; for OPENCL_C and PTX the text length (a trailing NUL is allowed) */
    const char *options;  /* build/JIT options, NULL for none */
} infinirtModuleImage_t;

/* Loads `count` images onto (device, device_id) as one module; count > 1 links them (cuda: PTX,
 * cubin and fatbin images through the JIT linker; opencl: OpenCL C sources compiled and linked;
 * cpu and vulkan: not supported, BAD_PARAM). SPIRV is OpenCL SPIR-V (the Kernel capability) on
 * opencl and Vulkan SPIR-V (the Shader capability) on vulkan; the other flavour is BAD_PARAM naming
 * it. AUTO is resolved from the image's first bytes: ELF (cubin,
 * hsaco or HOST_SO by machine), fatbin and SPIR-V magic numbers, PTX text (".version"/".target"),
 * other text as OPENCL_C; DEVICE_BINARY must be named. `log` (may be NULL, or log_size 0)
 * receives the build/JIT log, truncated and NUL-terminated, on success and on failure.
 * NULL module or images, or an image's NULL data -> NULL_POINTER; count 0, an image's size 0,
 * bad struct_size or format -> BAD_PARAM; then the device checks; a format the backend does not
 * load -> BAD_PARAM naming the ones it does (NOT_IMPLEMENTED where the device lacks support the
 * backend would need, e.g. SPIR-V on an OpenCL device without IL); the image failing to build
 * -> BUILD_FAILED with the log's first lines in the last error. Blocks while it builds. */
__export infiniStatus_t infinirtModuleLoad(infinirtModule_t *module, infiniDevice_t device, int device_id,
                                           const infinirtModuleImage_t *images, size_t count, char *log,
                                           size_t log_size);
/* Picks the best image in the file for type:id; `log` says which it chose, or lists what the file
 * holds and why none fits (then INFINI_STATUS_DEVICE_ARCHITECTURE_NOT_SUPPORTED).
 * `path` is an infinirt module file (docs/module-file.md, written by infinirt-pack). Only entries
 * for the device's backend (its plugin's name) whose architecture is "any" or fits the device
 * take part, best first: cuda, a cubin of the device's exact architecture, then a fatbin, then
 * PTX; opencl, a device binary for the device, then SPIR-V, then OpenCL C; vulkan, SPIR-V; cpu, a
 * shared object
 * of the host's machine. The chosen image is loaded as infinirtModuleLoad loads it, with the
 * entry's options followed by `options` (NULL for none); where the backend answers
 * NOT_IMPLEMENTED, BUILD_FAILED, DRIVER_ERROR or DEVICE_ARCHITECTURE_NOT_SUPPORTED, the next
 * candidate is tried and the last one's status returned. `log` (may be NULL, or log_size 0)
 * receives a line per attempt, then the load's own build log, truncated and NUL-terminated.
 * NULL module or path -> NULL_POINTER; a file that cannot be read, is no module file, or is
 * truncated or corrupt -> BAD_PARAM naming what is wrong (nothing is read past its end); then the
 * device checks; no entry fits -> DEVICE_ARCHITECTURE_NOT_SUPPORTED; then infinirtModuleLoad's
 * statuses. Blocks while it reads and builds. */
__export infiniStatus_t infinirtModuleLoadFile(infinirtModule_t *module, infiniDevice_t device, int device_id,
                                               const char *path, const char *options, char *log, size_t log_size);
/* Invalidates the module and every kernel handle taken from it. Launches already queued run to
 * completion (cuda/hip and vulkan wait for the device's queued work before releasing the code; cpu
 * and opencl do not block: the queued launches keep the code alive). If a live graph or graph exec holds a launch of one of its kernels, the release of
 * the code is deferred until the last of them is destroyed (the handles die now; the graph stays
 * valid). INVALID_HANDLE for a bad handle. */
__export infiniStatus_t infinirtModuleUnload(infinirtModule_t module);
/* The kernel `name` of the module (the same handle each time for one name). NULL kernel ->
 * NULL_POINTER; INVALID_HANDLE; NULL name -> NULL_POINTER; SYMBOL_NOT_FOUND naming it (and some names that exist where
 * the backend can list them). */
__export infiniStatus_t infinirtModuleGetKernel(infinirtKernel_t *kernel, infinirtModule_t module, const char *name);
/* The device address and size of the module-scope variable `name`; infinirtMemcpy reads and
 * writes it (kind DEFAULT, or H2D/D2H). NULL ptr -> NULL_POINTER (size may be NULL);
 * INVALID_HANDLE; NULL name -> NULL_POINTER; SYMBOL_NOT_FOUND; NOT_IMPLEMENTED where the backend has no host-visible
 * address for module variables (opencl without cl_intel_global_variable_pointers; vulkan). */
__export infiniStatus_t infinirtModuleGetGlobal(void **ptr, size_t *size, infinirtModule_t module, const char *name);

typedef enum {
    INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK = 0,
    INFINIRT_KERNEL_ATTR_STATIC_SHARED_BYTES = 1,
    INFINIRT_KERNEL_ATTR_PRIVATE_BYTES_PER_THREAD = 2,
    INFINIRT_KERNEL_ATTR_NUM_REGISTERS = 3,             /* -1 if unknown */
    INFINIRT_KERNEL_ATTR_PREFERRED_BLOCK_MULTIPLE = 4,  /* warp / wavefront / SIMD width */
    INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES = 5,  /* settable */
    INFINIRT_KERNEL_ATTR_NUM_PARAMS = 6                 /* -1 if unknown */
} infinirtKernelAttribute_t;
/* NULL value -> NULL_POINTER; INVALID_HANDLE; attr out of range -> BAD_PARAM. */
__export infiniStatus_t infinirtKernelGetAttribute(int64_t *value, infinirtKernelAttribute_t attr, infinirtKernel_t kernel);
/* Only MAX_DYNAMIC_SHARED_BYTES is settable (cuda: raises the opt-in limit up to the device's;
 * elsewhere: at most the device's local memory). INVALID_HANDLE; another attr, a negative value
 * or one over the device's limit -> BAD_PARAM with the figures. */
__export infiniStatus_t infinirtKernelSetAttribute(infinirtKernel_t kernel, infinirtKernelAttribute_t attr, int64_t value);

typedef enum {
    INFINIRT_KERNEL_ARG_VALUE = 0,    /* `value` points at `size` bytes, passed by value */
    INFINIRT_KERNEL_ARG_POINTER = 1,  /* `value` points at a void * holding a device address; size = sizeof(void *) */
    INFINIRT_KERNEL_ARG_LOCAL = 2     /* `value` is NULL; `size` bytes of per-block shared memory */
} infinirtKernelArgKind_t;
typedef struct {
    infinirtKernelArgKind_t kind;
    size_t size;
    const void *value;
} infinirtKernelArg_t;

#define INFINIRT_LAUNCH_COOPERATIVE 0x1u
/* Extensible: set struct_size = sizeof(infinirtLaunchConfig_t) (fields past a smaller
 * struct_size read as 0). */
typedef struct {
    size_t struct_size;
    uint32_t grid[3];     /* blocks in x, y, z; each >= 1 */
    uint32_t block[3];    /* threads per block in x, y, z; each >= 1 */
    size_t dynamic_shared_bytes;
    uint32_t flags;
    uint32_t cluster[3];  /* {0,0,0}: no clusters */
} infinirtLaunchConfig_t;

/* Stream-ordered: runs `kernel` on `stream` (NULL: the current device's default stream).
 * Argument bytes are copied before the call returns. Checked before the plugin is called, each
 * refusal naming its figures: INVALID_HANDLE (kernel, stream); NULL config, or args NULL with
 * num_args > 0, or a VALUE/POINTER argument's NULL value -> NULL_POINTER; BAD_PARAM for a
 * stream of another device than the kernel's, a bad struct_size, a zero grid or block
 * dimension, a block over the kernel's MAX_THREADS_PER_BLOCK, dynamic_shared_bytes plus LOCAL
 * sizes over MAX_DYNAMIC_SHARED_BYTES, unknown flag bits, num_args different from NUM_PARAMS
 * where that is known, an unknown argument kind, size 0, a POINTER argument whose size is not
 * sizeof(void *), a LOCAL argument with a value, and a POINTER argument holding memory infinirt
 * allocated on a device of another type (a pointer infinirt does not know and the backend does
 * not recognise is passed on, with a warning in the log: cpu kernels may take any host memory).
 * A LOCAL argument reaches a cuda/hip kernel as a size_t byte offset into the block's dynamic
 * shared memory (placed after dynamic_shared_bytes, each aligned to 16 bytes), an OpenCL kernel
 * as a __local pointer, a vulkan shader as the byte count (in its integer member and in
 * specialization constant 100 + its index), a cpu kernel as a pointer into launch->shared. A
 * vulkan kernel's arguments are its push-constant block's members, in order (docs/kernels.md,
 * "Vulkan: the argument layout"); COOPERATIVE and clusters are NOT_IMPLEMENTED there. On a
 * capturing stream the launch is captured (argument values of capture time). */
__export infiniStatus_t infinirtLaunchKernel(infinirtKernel_t kernel, const infinirtLaunchConfig_t *config,
                                             const infinirtKernelArg_t *args, uint32_t num_args,
                                             infinirtStream_t stream);

/* ---- Peers: copies and access between any two devices (extension; docs/ARCHITECTURE.md) -----
 * A peer pair is two devices named explicitly (type:id and peer_type:peer_id); neither call uses
 * nor changes the current device. Device checks as for every explicit device (type out of range
 * -> DEVICE_TYPE_NOT_SUPPORTED, no such device -> DEVICE_NOT_FOUND), the first device first.
 * Backends: cuda (and hip, through the same code) access peers natively once access is enabled
 * (cuCtxEnablePeerAccess); cpu devices share host memory (access 1, always); opencl devices never
 * access each other (SVM of two contexts is not shared): their copies are staged. Between two
 * backends nothing is accessible and copies are staged by the loader (infinirtMemcpyPeer). */
typedef enum {
    INFINIRT_PEER_ATTR_ACCESS_SUPPORTED = 0,
    INFINIRT_PEER_ATTR_NATIVE_ATOMICS_SUPPORTED = 1,
    INFINIRT_PEER_ATTR_COPY_WITHOUT_STAGING = 2,
    INFINIRT_PEER_ATTR_PERFORMANCE_RANK = 3   /* lower is better; 0 when unknown */
} infinirtPeerAttribute_t;
/* *can_access: 1 when access of type:id to peer's memory can be enabled
 * (infinirtDeviceEnablePeerAccess; cpu pairs: always), whether or not it is enabled now; 0 for a
 * device with itself, devices of two backends and backends without peer access (opencl).
 * NULL can_access -> NULL_POINTER (checked first). Does not block. */
__export infiniStatus_t infinirtDeviceCanAccessPeer(int *can_access, infiniDevice_t type, int id,
                                                    infiniDevice_t peer_type, int peer_id);
/* ACCESS_SUPPORTED: as infinirtDeviceCanAccessPeer; NATIVE_ATOMICS_SUPPORTED: atomics on peer
 * memory are atomic across both devices; COPY_WITHOUT_STAGING: infinirtMemcpyPeer between the two
 * moves data without a bounce through host memory (1 for cpu pairs, cuda pairs with access
 * supported, and two backends' devices where one's memory is host memory (memory_is_host: a cpu
 * device, PoCL's), which the other backend copies to and from directly; 0 for other pairs of two
 * backends and for opencl pairs); PERFORMANCE_RANK: the link's rank as the
 * driver gives it. NULL value -> NULL_POINTER; attr out of range -> BAD_PARAM (both before the
 * devices); a device paired with itself -> BAD_PARAM. Does not block. */
__export infiniStatus_t infinirtDeviceGetPeerAttribute(int *value, infinirtPeerAttribute_t attr, infiniDevice_t type, int id,
                                                       infiniDevice_t peer_type, int peer_id);
/* Lets type:id access peer's memory, in that direction only: kernels of type:id may dereference
 * pointers to peer's memory, and cuda/hip copies between the two go over the link instead of
 * through the host. Enabling access that is enabled is SUCCESS; thread-safe. flags != 0 ->
 * BAD_PARAM (before the devices); a device paired with itself, or a pair
 * infinirtDeviceCanAccessPeer answers 0 for -> BAD_PARAM naming it. Does not block (cuda: the
 * driver may wait for the device's work, as cuCtxEnablePeerAccess does). */
__export infiniStatus_t infinirtDeviceEnablePeerAccess(infiniDevice_t type, int id, infiniDevice_t peer_type, int peer_id,
                                                       uint32_t flags);
/* Undoes infinirtDeviceEnablePeerAccess for that direction. Access that is not enabled (never
 * enabled, already disabled, or a pair without support) -> BAD_PARAM; itself -> BAD_PARAM. Copies
 * between the two keep working (through the staged or driver path). */
__export infiniStatus_t infinirtDeviceDisablePeerAccess(infiniDevice_t type, int id, infiniDevice_t peer_type, int peer_id);
/* Copies `size` bytes from src (memory of src_type:src_id) to dst (memory of dst_type:dst_id), for
 * any two devices, of one backend or two, peer access enabled or not; ordered after the work
 * already submitted to BOTH devices' default streams, complete on return. The same device twice
 * is a device-to-device copy. Checked in this order: NULL dst or src -> NULL_POINTER (also with
 * size 0); the devices (dst first); then size 0 is a no-op (SUCCESS); a pointer infinirt
 * allocated must belong to the device named with it and its range must lie inside its
 * allocation, else BAD_PARAM with the figures (memory infinirt did not allocate is not checked:
 * cpu devices accept any host memory). Paths: two devices of a backend with a native peer copy
 * (cuda cuMemcpyPeerAsync, cpu memmove): direct, whether or not access is enabled (cuda: the
 * driver routes it through the host when access is off); a device whose memory is host memory
 * (infinirtDeviceProperties_t.memory_is_host: cpu devices, PoCL's OpenCL device) and another
 * backend's device: host-direct, the other backend's own D2H/H2D straight to/from that host
 * memory after the host side's stream drained (between a cpu device and PoCL's, PoCL's copy);
 * copies of at least 1 MiB count toward registering that allocation (infinirtMalloc memory)
 * with the other backend (its
 * host_register; cuda: cuMemHostRegister) once they have moved half its size, so that later ones
 * run at pinned speed; it stays registered until it is freed (the free unregisters it first, and
 * keeps the memory, reporting the failure, if that fails) or the device that registered it is
 * reset; a refused registration leaves the copies pageable, without error; otherwise (two
 * backends neither of whose devices has host memory, opencl pairs)
 * staged by the loader through two 8 MiB pinned host bounce buffers of the source backend (of the
 * destination's when its pinned memory serves DMA better: cuda/hip over opencl over cpu),
 * double-buffered so that reading chunk k+1 overlaps writing chunk k; never a host allocation of
 * the whole size. The staged path cannot run out of bounce buffers: a pair is reserved on a device
 * that may lend them when it is first used (its first infinirtMalloc, MallocHost or MallocAsync,
 * or infinirtDeviceEnablePeerAccess naming it; after infinirtDeviceReset, its next use), and that
 * call is the one that reports OUT_OF_MEMORY when they cannot be had; copies running at once take
 * further pairs while they can be allocated, then wait for one to come back, never failing for
 * lack of one. */
__export infiniStatus_t infinirtMemcpyPeer(void *dst, infiniDevice_t dst_type, int dst_id,
                                           const void *src, infiniDevice_t src_type, int src_id, size_t size);
/* Stream-ordered on `stream` (NULL: the current device's default stream), which must belong to
 * the source or the destination device (else BAD_PARAM, after the checks of infinirtMemcpyPeer
 * and before the size-0 no-op; a bad handle -> INVALID_HANDLE). Ordered after earlier work on
 * `stream` only: ordering with the other device is the caller's, through events
 * (infinirtStreamWaitEvent across devices is a device-side wait where the backend can). A direct
 * copy returns without waiting. A staged or host-direct copy (between backends, opencl pairs)
 * runs the other device's half on that device's default stream and blocks the caller until the
 * copy is complete. On a stream capturing under record/replay a direct copy is recorded; a staged
 * or host-direct one is refused with BAD_PARAM and invalidates the capture (cuda/hip capture
 * natively). */
__export infiniStatus_t infinirtMemcpyPeerAsync(void *dst, infiniDevice_t dst_type, int dst_id,
                                                const void *src, infiniDevice_t src_type, int src_id, size_t size,
                                                infinirtStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* __INFINIRT_API_H__ */
