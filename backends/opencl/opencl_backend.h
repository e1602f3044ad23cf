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

#include "common/plugin_table.hpp"
#include "common/host_services.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

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

// clGetDeviceGlobalVariablePointerINTEL (cl_intel_global_variable_pointers; not in the Khronos
// headers this plugin builds against).
using GlobalVariablePointerFn = cl_int(CL_API_CALL *)(cl_device_id device, cl_program program, const char *name,
                                                      size_t *size_ret, void **pointer_ret);

// What loading code onto a device and launching it need to know of the device, queried once on
// the first module load (codeTraits() in opencl_module.cpp).
struct CodeTraits {
    std::string il_versions; // CL_DEVICE_IL_VERSION: "" where the device takes no IL (or the ICD loader lacks it)
    // The -cl-std option added to OpenCL C builds whose options name none, so that program-scope
    // variables compile: "-cl-std=CL3.0" where the device has OpenCL C 3.0 with
    // __opencl_c_program_scope_global_variables, else "-cl-std=CL2.0" where it lists OpenCL C 2.x,
    // else "" (the compiler's default: the newest OpenCL C 1.x).
    std::string std_option;
    cl_ulong local_mem = 0;               // CL_DEVICE_LOCAL_MEM_SIZE
    size_t max_item_sizes[3] = {0, 0, 0}; // CL_DEVICE_MAX_WORK_ITEM_SIZES (the first three)
    GlobalVariablePointerFn global_variable_pointer = nullptr; // NULL without the extension
    // Whether a launch must be followed by clFlush for the kernel to run without a later
    // synchronising call. OpenCL allows a queue to hold commands until a flush, and a flush
    // costs a launch about 40% on NVIDIA's OpenCL (measured on an H100: 4.8 us enqueue, 6.9 us
    // with clFlush), where, as on PoCL, commands are submitted when enqueued. So a probe on
    // the first module load enqueues a 1-byte fill without flushing, sleeps 2 ms and asks its
    // status once: submitted, running or complete means the implementation submits on enqueue
    // and launches skip the flush; still queued (or any failure) keeps the flush.
    // INFINIRT_OPENCL_FLUSH_LAUNCHES=1 forces the flush, =0 skips it.
    bool flush_launches = true;
};

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
    // Filled once, under code_once, by codeTraits().
    std::once_flag code_once;
    CodeTraits code;
};

// A device info string ("" when the query fails or the answer is empty), without its NUL.
std::string deviceString(cl_device_id id, cl_device_info what);

// Whether the space-separated `extensions` list `name`.
bool hasExtension(const std::string &extensions, const char *name);

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

// The lock a stream's submissions take: it is held across one enqueue call only (a few
// microseconds at most), so a thread that finds it taken spins briefly, then yields. Cheaper than
// std::mutex on the launch path: taking it is one exchange, releasing it a plain store. (On an H200
// host with NVIDIA's OpenCL, a launch with no submit lock at all cost 20-30 ns less than with
// std::mutex; this lock keeps the exchange.)
class SubmitLock {
public:
    void lock() noexcept {
        for (unsigned tries = 0; locked_.exchange(true, std::memory_order_acquire); ++tries) {
            while (locked_.load(std::memory_order_relaxed)) {
                if (++tries < 64) {
#if defined(__x86_64__) || defined(__i386__)
                    __builtin_ia32_pause();
#endif
                } else {
                    std::this_thread::yield();
                }
            }
        }
    }
    void unlock() noexcept { locked_.store(false, std::memory_order_release); }

private:
    std::atomic<bool> locked_{false};
};

// A stream of one device. The queue is in order, so every command runs after the ones enqueued
// before it, which is the stream order infinirt promises. Owned by the loader's handle between
// streamCreate and streamDestroy; default streams live until the process exits.
//
// OpenCL cannot ask a queue whether it is idle, so the stream numbers the commands infinirt puts
// on it: enqueueing and numbering happen under submit_lock, so command n is the n-th in the
// queue, and "commands 1..n are done" follows from command n being done (or from clFinish).
struct Stream {
    int device = 0;
    cl_command_queue queue = nullptr;
    SubmitLock submit_lock;
    std::atomic<uint64_t> enqueued{0}; // written under submit_lock
    std::shared_ptr<Progress> finished = std::make_shared<Progress>(0);
    // The marker streamQuery enqueued last and how many commands precede it; reused while
    // nothing new is enqueued, so polling does not grow the queue. Guarded by probe_mutex
    // (taken before submit_lock).
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
    std::lock_guard<SubmitLock> lock(stream.submit_lock);
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

// Returns once `event`'s command has completed or terminated, reading its status until it has:
// for when clWaitForEvents failed for a reason of its own (resources, host memory) and the
// command may still be queued, so that a caller never frees what the command still uses. Stops
// early only when the status cannot be read.
void awaitEnded(cl_event event);

// Waits for `done` (command number n of `stream`), releases it and records the progress. For
// the synchronous calls, which enqueue without blocking and wait here. Failed or not, it returns
// only once the command has completed or terminated (awaitEnded).
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

// ---- modules and kernels (opencl_module.cpp, opencl_launch.cpp) -----------------------------

struct Module;

// What a kernel parameter takes, from clGetKernelArgInfo; numbered as the infinirtKernelArgKind_t
// that fits it, so that a launch checks an argument with one comparison.
enum class Param : uint8_t {
    Value = INFINIRT_KERNEL_ARG_VALUE,     // __private: scalars, vectors, structs
    Pointer = INFINIRT_KERNEL_ARG_POINTER, // a __global or __constant pointer
    Local = INFINIRT_KERNEL_ARG_LOCAL,     // a __local pointer
    Object = 3, // an image, pipe, sampler_t or queue_t: an OpenCL object infinirt cannot pass
};

// One cl_kernel of a module, created on the first module_get_kernel of its name and released
// with the module. Fields above launch_mutex are immutable after creation.
struct Kernel {
    Module *module = nullptr;
    int device = 0;
    cl_kernel kernel = nullptr;
    std::string name;
    cl_uint num_args = 0;                 // CL_KERNEL_NUM_ARGS
    size_t work_group_size = 0;           // CL_KERNEL_WORK_GROUP_SIZE for the device
    size_t preferred_multiple = 0;        // CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE
    cl_ulong static_local = 0;            // CL_KERNEL_LOCAL_MEM_SIZE
    cl_ulong private_bytes = 0;           // CL_KERNEL_PRIVATE_MEM_SIZE
    cl_ulong local_capacity = 0;          // the device's local memory less static_local
    size_t max_item_sizes[3] = {0, 0, 0}; // CodeTraits::max_item_sizes
    bool flush = true;                    // CodeTraits::flush_launches
    // One per parameter (describeKernel); empty where the implementation gives no argument
    // information (SPIR-V, device binaries built without -cl-kernel-arg-info). A launch refuses
    // an argument of another kind: OpenCL implementations read the bytes of a VALUE argument
    // given to a __global parameter as a cl_mem handle (PoCL 3.1 then aborts or crashes).
    std::vector<Param> params;
    // MAX_DYNAMIC_SHARED_BYTES: local_capacity until kernel_set_attribute lowers it.
    std::atomic<int64_t> max_dynamic_local{0};
    // clSetKernelArg is not thread-safe per cl_kernel, and the arguments a command uses are
    // those set when it is enqueued: a launch holds this from its first clSetKernelArg to its
    // clEnqueueNDRangeKernel, so launches of one kernel from many threads each enqueue their own
    // arguments. Uncontended it costs one atomic exchange pair; a clone per thread would cost a
    // clCloneKernel (OpenCL 2.1) and an allocation on a thread's first launch.
    std::mutex launch_mutex;
};

// A built cl_program of one device, with the kernels taken from it (one per name).
struct Module {
    int device = 0;
    cl_program program = nullptr;
    // False when the program was built without -cl-kernel-arg-info because the build with it
    // failed (moduleLoad): its kernels' Kernel::params stay empty.
    bool args_described = true;
    std::mutex mutex; // guards `kernels`
    std::map<std::string, std::unique_ptr<Kernel>> kernels;
};

// The device's CodeTraits, queried on first use. Thread-safe.
const CodeTraits &codeTraits(Device &dev);

// OPENCL_C (clCreateProgramWithSource + clBuildProgram; count > 1: each source or SPIR-V image
// clCompileProgram'd with its options, then clLinkProgram'd), SPIRV (clCreateProgramWithIL where
// the device reports IL versions; NOT_IMPLEMENTED naming them otherwise) and DEVICE_BINARY
// (clCreateProgramWithBinary + clBuildProgram, one image only). OpenCL C builds whose options
// name no -cl-std get CodeTraits::std_option, and all get -cl-kernel-arg-info (without it no
// implementation need say what a parameter takes; see Kernel::params). Where a build with
// -cl-kernel-arg-info fails, the module is built once more without it (NVIDIA's compiler fails on
// a kernel without parameters with it): the module then loads, its log says so, a warning is
// logged, and launches of its kernels do not check argument kinds. A failed build, compile or
// link: BUILD_FAILED with the first lines of CL_PROGRAM_BUILD_LOG; the whole log goes to `log`
// either way.
infinirtPluginModuleLoadFn moduleLoad;
// Releases the kernels and the program: commands already enqueued keep them alive (OpenCL
// reference counting), so nothing waits.
infinirtPluginModuleUnloadFn moduleUnload;
// clCreateKernel, once per name; an unknown name is SYMBOL_NOT_FOUND listing
// CL_PROGRAM_KERNEL_NAMES.
infinirtPluginModuleGetKernelFn moduleGetKernel;
// Through clGetDeviceGlobalVariablePointerINTEL where the device has
// cl_intel_global_variable_pointers; NOT_IMPLEMENTED elsewhere (OpenCL gives program-scope
// variables no host-visible address: pass a buffer argument instead).
infinirtPluginModuleGetGlobalFn moduleGetGlobal;
// From clGetKernelInfo/clGetKernelWorkGroupInfo: MAX_THREADS_PER_BLOCK = CL_KERNEL_WORK_GROUP_SIZE,
// STATIC_SHARED_BYTES = CL_KERNEL_LOCAL_MEM_SIZE, PRIVATE_BYTES_PER_THREAD =
// CL_KERNEL_PRIVATE_MEM_SIZE, NUM_REGISTERS -1, PREFERRED_BLOCK_MULTIPLE =
// CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, MAX_DYNAMIC_SHARED_BYTES (local memory for LOCAL
// arguments) = the device's local memory less the static, NUM_PARAMS = CL_KERNEL_NUM_ARGS.
infinirtPluginKernelGetAttributeFn kernelGetAttribute;
// MAX_DYNAMIC_SHARED_BYTES, at most the device's local memory less the kernel's static local
// memory (BAD_PARAM with the figures above it).
infinirtPluginKernelSetAttributeFn kernelSetAttribute;

// Each argument's kind must fit its parameter where Kernel::params knows it (BAD_PARAM naming
// both otherwise); then clSetKernelArg (VALUE: the bytes; LOCAL: size with NULL), clSetKernelArgSVMPointer (POINTER;
// a NULL pointer is set as a NULL buffer), then clEnqueueNDRangeKernel with global = grid x block
// and local = block, in as few dimensions as cover the sizes above 1, on the stream's in-order
// queue (numbered like every command of the stream; flushed where CodeTraits::flush_launches
// says so), under Kernel::launch_mutex.
// dynamic_shared_bytes has no meaning for an OpenCL kernel (local memory reaches it only as
// LOCAL arguments) and is ignored. COOPERATIVE and a non-zero cluster are NOT_IMPLEMENTED; a block over
// the device's per-dimension work-item limits is BAD_PARAM with the figures.
infinirtPluginLaunchKernelFn launchKernel;

// ---- peers (opencl_peer.cpp) -----------------------------------------------------------------
// No device can access another's memory (one context per device; SVM is per context): access 0,
// every attribute 0, enabling refused with BAD_PARAM. memcpy_peer_async and
// stream_wait_peer_event are left NULL: the loader stages copies and waits on the host.
infinirtPluginDeviceCanAccessPeerFn deviceCanAccessPeer;
infinirtPluginDeviceGetPeerAttributeFn deviceGetPeerAttribute;
infinirtPluginDeviceEnablePeerAccessFn deviceEnablePeerAccess;
infinirtPluginDeviceDisablePeerAccessFn deviceDisablePeerAccess;

} // namespace infinirt::opencl

namespace infinirt::opencl {
// Every entry of the list (include/infinirt_plugin.h), by its impl name; opencl_plugin.cpp installs
// those defined here and names the ones left NULL.
INFINIRT_COMMON_DECLARE_ENTRIES();
} // namespace infinirt::opencl

// The hot entries' guards live beside their definitions (common/entry_guard.hpp).
INFINIRT_COMMON_HOT_ENTRIES(infinirt::opencl);
