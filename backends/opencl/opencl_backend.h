// opencl_backend.h - private declarations shared by the files of the opencl backend. Nothing here
// crosses the plugin boundary: the loader sees only the table built in opencl_plugin.cpp.
//
// The devices this plugin serves: every device of every OpenCL platform that supports
// coarse-grained SVM, each with its own context, in platform order then device order. Devices,
// contexts and default streams are created once and never released: the plugin may be called
// until the process exits, and driver objects must not be released from static destructors.
#pragma once

#include <CL/cl.h>

#include "infinirt_plugin.h"

#include "common/host_services.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>

namespace infinirt::opencl {

struct Stream;

// ---- errors (opencl_errors.cpp) --------------------------------------------------------------

// "CL_OUT_OF_RESOURCES" etc.; "CL_UNKNOWN_ERROR" for a code not in the table. Static storage.
const char *nativeErrorName(cl_int code) noexcept;

// The status an OpenCL code stands for; DRIVER_ERROR for codes no other status describes and
// for codes not in the table. CL_SUCCESS gives SUCCESS.
infiniStatus_t nativeStatus(cl_int code) noexcept;

// For a failed OpenCL call: sets the thread's error detail (common::fail) to
// "<call> failed: <CL_NAME> (<code>) <what>" and returns the status the error table gives `code`.
infiniStatus_t nativeFailure(const char *call, cl_int code, const char *what_format, ...) noexcept
    __attribute__((format(printf, 3, 4)));

// ---- devices (opencl_device.cpp) -------------------------------------------------------------

// One usable OpenCL device. Created by discoverDevices() and never destroyed. Fields above the
// mutex are immutable after discovery.
struct Device {
    int index = 0;
    cl_platform_id platform = nullptr;
    cl_device_id id = nullptr;
    cl_context context = nullptr; // holds only this device, so SVM pointers belong to one device
    std::string name, vendor, platform_name, driver_version, version, architecture, pci_bus_id;
    unsigned char uuid[16] = {};
    bool has_uuid = false;
    int cc_major = -1, cc_minor = -1; // NVIDIA compute capability (cl_nv_device_attribute_query)
    size_t global_mem = 0;
    size_t max_alloc = 0; // CL_DEVICE_MAX_MEM_ALLOC_SIZE: the largest single clSVMAlloc
    int compute_units = 0;
    bool amd_free_memory = false; // CL_DEVICE_GLOBAL_FREE_MEMORY_AMD is available

    // Bytes of device memory infinirt holds on this device (OpenCL has no free-memory query).
    std::atomic<size_t> allocated{0};

    // Guards the default stream's creation and the set of live streams.
    std::mutex mutex;
    // Set once, under `mutex`; read without it on every call that uses the default stream.
    std::atomic<Stream *> default_stream{nullptr};
    std::set<Stream *> streams;
    // Whether marker events carry profiling timestamps on this implementation (probed when the
    // default stream is created; read only after default_stream is seen set); when they do not,
    // timing events record a 1-byte fill of `timing_scratch` instead, which every implementation
    // must time.
    bool marker_timestamps = true;
    void *timing_scratch = nullptr;
    // A queue of the plugin's own, created with the default stream, for mapping and unmapping
    // pinned host buffers without waiting behind the default stream's work.
    cl_command_queue service_queue = nullptr;
};

// Loads the ICD loader and enumerates devices, once per process (thread-safe). Never fails for
// a missing library, platform or SVM support: those give 0 devices and a reason.
void discoverDevices();

// 0 <= index < the device count (the loader validates indices).
Device &device(int index);

// The device's default stream, created on first use (with the timing probe). Thread-safe; a
// failure is reported through the thread's error detail and retried on the next call.
infiniStatus_t defaultStream(int device, Stream **stream);

// Discovers the devices; never fails (a missing library or platform gives 0 devices).
infinirtPluginInitFn init;
// The number of usable devices; when 0, `reason` says why.
infinirtPluginGetDeviceCountFn getDeviceCount;
infinirtPluginGetDevicePropertiesFn getDeviceProperties;
// free is the AMD free-memory figure where available, else total minus what infinirt holds.
infinirtPluginGetMemInfoFn getMemInfo;
// Waits for the default stream and every live stream of the device.
infinirtPluginDeviceSynchronizeFn deviceSynchronize;
infinirtPluginDeviceGetNativeContextFn deviceGetNativeContext;

// ---- streams (opencl_stream.cpp): one in-order command queue each, with profiling enabled ----

// How many of a stream's commands are known complete. Shared with the events recorded on the
// stream, so that an event found complete can tell the stream (which may be gone by then).
using Progress = std::atomic<uint64_t>;

// A stream of one device. The queue is in order, so every command runs after the ones enqueued
// before it, which is the stream order infinirt promises. Owned by the loader's handle between
// streamCreate and streamDestroy; default streams live until the process exits.
//
// OpenCL cannot ask a queue whether it is idle, so the stream numbers the commands infinirt puts
// on it: enqueueing and numbering happen under submit_mutex, so command n is the n-th in the
// queue, and "commands 1..n are done" follows from command n being done (or from clFinish).
struct Stream {
    int device = 0;
    cl_command_queue queue = nullptr;
    std::mutex submit_mutex;
    std::atomic<uint64_t> enqueued{0}; // written under submit_mutex
    std::shared_ptr<Progress> finished = std::make_shared<Progress>(0);
    // The marker streamQuery enqueued last and how many commands precede it; reused while
    // nothing new is enqueued, so polling does not grow the queue. Guarded by probe_mutex
    // (taken before submit_mutex).
    std::mutex probe_mutex;
    cl_event probe = nullptr;
    uint64_t probe_covers = 0;
};

// Creates an in-order, profiling-enabled queue on `dev` (the queue is owned by the caller).
infiniStatus_t createQueue(Device &dev, cl_command_queue *queue);

// `stream` as the plugin table receives it: NULL is the device's default stream (created on
// first use).
infiniStatus_t resolveStream(int device, void *stream, Stream **out);

// Runs `enqueue` (a callable enqueueing exactly one command on stream.queue and returning its
// cl_int) under the stream's submit lock and, on success, numbers the command (*number).
template <typename F>
cl_int submit(Stream &stream, F &&enqueue, uint64_t *number) {
    std::lock_guard<std::mutex> lock(stream.submit_mutex);
    const cl_int err = enqueue();
    if (err == CL_SUCCESS) {
        *number = stream.enqueued.load(std::memory_order_relaxed) + 1;
        stream.enqueued.store(*number, std::memory_order_release);
    }
    return err;
}

// Called after every non-blocking submit: OpenCL may hold commands back until a flush, and
// infinirt's work must progress (and its events complete) without a synchronising call.
infiniStatus_t flushStream(const Stream &stream, const char *after);

// Commands 1..n of the stream owning `progress` are done.
void finishedThrough(Progress &progress, uint64_t n);

// Waits for `done` (command number n of `stream`), releases it and records the progress. For
// the synchronous calls, which enqueue without blocking and wait here.
infiniStatus_t waitCommand(Stream &stream, cl_event done, uint64_t n, const char *after);

// clFinish, then every command numbered before it is known done.
infiniStatus_t finishStream(Stream &stream, const char *why);

infinirtPluginStreamCreateFn streamCreate;
infinirtPluginStreamDestroyFn streamDestroy;
infinirtPluginStreamSynchronizeFn streamSynchronize;
// SUCCESS when every command enqueued so far has completed, NOT_READY otherwise.
infinirtPluginStreamQueryFn streamQuery;
// A barrier on the stream's queue waiting for the event's marker; across contexts (another
// device) a user event completed by a callback on the marker stands in for it.
infinirtPluginStreamWaitEventFn streamWaitEvent;
infinirtPluginStreamGetNativeFn streamGetNative;

// ---- events (opencl_event.cpp): the marker enqueued by the last record, whose completion and
// profiling timestamp answer queries and elapsed-time requests ---------------------------------

// Owned by the loader's handle between eventCreate and eventDestroy. Recording and reading may
// happen from different threads, hence the mutex around `recorded`.
struct Event {
    int device = 0;
    uint32_t flags = 0; // infinirtEventFlags_t
    std::mutex mutex;
    // The command of the last record (a marker, or a 1-byte fill where markers carry no
    // timestamps); before the first record, a user event already complete, so that the event
    // has a native handle from the start. Holds one reference.
    cl_event recorded = nullptr;
    bool ever_recorded = false;
    // The recording stream's progress and the recorded command's number there: once the
    // command is seen complete, so are all the stream's commands up to it.
    std::shared_ptr<Progress> stream_progress;
    uint64_t number = 0;
};

// What a waiter needs of an event's last record.
struct Recorded {
    cl_event event = nullptr; // holds a reference (released by the destructor); NULL if never recorded
    std::shared_ptr<Progress> stream_progress;
    uint64_t number = 0;
    Recorded() = default;
    Recorded(const Recorded &) = delete;
    Recorded &operator=(const Recorded &) = delete;
    ~Recorded();
    // The command is complete: tell the stream it came from.
    void completed() const;
};

// The last record, with a reference added to its command (see Recorded).
void snapshot(Event &event, Recorded *out);

// Creates the completed user event that stands for "never recorded".
infinirtPluginEventCreateFn eventCreate;
infinirtPluginEventDestroyFn eventDestroy;
// Enqueues a marker (it completes when all earlier work of the stream has) and flushes.
infinirtPluginEventRecordFn eventRecord;
infinirtPluginEventQueryFn eventQuery;
infinirtPluginEventSynchronizeFn eventSynchronize;
// From the CL_PROFILING_COMMAND_END of both recorded commands.
infinirtPluginEventElapsedTimeFn eventElapsedTime;
// The cl_event of the last record (valid until the next record or destroy); before the first
// record, a completed user event.
infinirtPluginEventGetNativeFn eventGetNative;

// ---- memory (opencl_memory.cpp): device memory (coarse-grained SVM, so pointers support
// arithmetic), host memory, copies and fills ---------------------------------------------------

// clSVMAlloc on the device's context. NULL from the driver (including a size above
// CL_DEVICE_MAX_MEM_ALLOC_SIZE) is OUT_OF_MEMORY with the figures.
infinirtPluginMallocDeviceFn mallocDevice;
// Waits for the device's streams (as cudaFree does: clSVMFree does not wait for commands that
// still use the memory), then clSVMFree. BAD_PARAM for a pointer this plugin did not allocate.
infinirtPluginFreeDeviceFn freeDevice;
// Pinned host memory: a CL_MEM_ALLOC_HOST_PTR buffer mapped for good (what OpenCL vendors
// recommend for fast transfers), or page-aligned host memory where the implementation refuses
// one or INFINIRT_OPENCL_PINNED=0. Either way a plain host pointer: every SVM copy accepts it
// and the host may touch it at any time (coarse-grained SVM would need map/unmap around every
// host access).
infinirtPluginMallocHostFn mallocHost;
// Waits for the device's streams (asynchronous copies may still read it), then unmaps and
// releases the buffer (or frees the memory).
infinirtPluginFreeHostFn freeHost;
// clEnqueueSVMMemcpy on the default stream (blocking) or the given stream (non-blocking). It
// takes SVM and host pointers alike, so every kind is the same call; a copy between two
// devices' memory (two contexts) is staged through the host.
infinirtPluginMemcpySyncFn memcpySync;
infinirtPluginMemcpyAsyncFn memcpyAsync;
// clEnqueueSVMMemFill with a 1-byte pattern. `ptr` .. `ptr + count` must lie in device memory
// of `device` (BAD_PARAM otherwise).
infinirtPluginMemsetSyncFn memsetSync;
infinirtPluginMemsetAsyncFn memsetAsync;
// The allocation is immediate (clSVMAlloc has no stream), so later work on `stream` may use it.
infinirtPluginMallocAsyncFn mallocAsync;
// clEnqueueSVMFree: the queue frees the memory once its earlier commands have run.
infinirtPluginFreeAsyncFn freeAsync;

} // namespace infinirt::opencl
