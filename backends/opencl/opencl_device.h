// opencl_device.h - the devices this plugin serves: every device of every OpenCL platform that
// supports coarse-grained SVM, each with its own context, in platform order then device order.
#pragma once

#include <CL/cl.h>

#include "infinirt.h"

#include <atomic>
#include <mutex>
#include <set>
#include <string>

namespace infinirt::opencl {

struct Stream;

// One usable OpenCL device. Created by discoverDevices() and never destroyed (the plugin may be
// called until the process exits, and driver objects must not be released from static
// destructors). Fields above the mutex are immutable after discovery.
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
    // default stream is created; read only after default_stream is seen set); when they do not, timing events record a 1-byte fill of
    // `timing_scratch` instead, which every implementation must time.
    bool marker_timestamps = true;
    void *timing_scratch = nullptr;
    // A queue of the plugin's own, created with the default stream, for mapping and unmapping
    // pinned host buffers without waiting behind the default stream's work.
    cl_command_queue service_queue = nullptr;
};

// Loads the ICD loader and enumerates devices, once per process (thread-safe). Never fails for
// a missing library, platform or SVM support: those give 0 devices and a reason.
void discoverDevices();

// The number of usable devices; when 0, `reason` (if not NULL) says why.
int deviceCount(std::string *reason);

// 0 <= index < deviceCount() (the loader validates indices).
Device &device(int index);

// The device's default stream, created on first use (with the timing probe). Thread-safe; a
// failure is reported through the thread's error detail and retried on the next call.
infiniStatus_t defaultStream(int device, Stream **stream);

infiniStatus_t getDeviceProperties(int device, infinirtDeviceProperties_t *props);
// free is the AMD free-memory figure where available, else total minus what infinirt holds.
infiniStatus_t getMemInfo(int device, size_t *free_bytes, size_t *total_bytes);
// Waits for the default stream and every live stream of the device.
infiniStatus_t deviceSynchronize(int device);
infiniStatus_t deviceGetNativeContext(int device, void **native);

} // namespace infinirt::opencl
