// An opencl device (opencl_device.cpp). The devices this plugin serves: every device of every
// OpenCL platform that supports coarse-grained SVM, each with its own context, in platform order
// then device order. Created once by discoverDevices() and never released (the lifetime rule in
// opencl_backend.h).
#pragma once

#include <CL/cl.h>

#include "infinicore.h"

#include <atomic>
#include <cstddef>
#include <mutex>
#include <set>
#include <string>

namespace infinirt::opencl {

struct Stream;

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
    // synchronising call. OpenCL allows a queue to hold commands until a flush, and on NVIDIA's
    // OpenCL a flush adds markedly to a launch's cost (the figure is in docs/ARCHITECTURE.md,
    // section 9), while there, as on PoCL, commands are submitted when enqueued. So a probe on
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
    size_t global_mem = 0; // CL_DEVICE_GLOBAL_MEM_SIZE, or INFINIRT_OPENCL_MEMORY_LIMIT when less
    size_t max_alloc = 0;  // CL_DEVICE_MAX_MEM_ALLOC_SIZE (at most global_mem): the largest single clSVMAlloc
    const char *memory_source = "CL_DEVICE_GLOBAL_MEM_SIZE"; // what global_mem is, for messages
    int compute_units = 0;
    bool amd_free_memory = false; // CL_DEVICE_GLOBAL_FREE_MEMORY_AMD is available
    bool priority_hints = false;  // cl_khr_priority_hints: queues take CL_QUEUE_PRIORITY_KHR
    // A CPU device with host-unified memory (PoCL's): its SVM allocations are ordinary host memory,
    // which other backends copy to and from directly (get_device_properties' memory_is_host).
    // INFINIRT_OPENCL_HOST_MEMORY=0 counts every device's memory as device memory (staged copies).
    bool memory_is_host = false;

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

// clSVMAlloc and clSVMFree of a small buffer the plugin keeps for itself (scratch), serialised
// with every other SVM allocation and release of the plugin (opencl_memory.cpp). NULL when the
// implementation refuses.
void *svmAllocScratch(Device &dev, size_t size);
void svmFreeScratch(Device &dev, void *p);

// The device's default stream, created on first use (with the timing probe). Thread-safe; a
// failure is reported through the thread's error detail and retried on the next call.
infiniStatus_t defaultStream(int device, Stream **stream);

} // namespace infinirt::opencl
