// opencl_device.cpp - device discovery (the ICD loader, platforms, devices usable through
// coarse-grained SVM), properties, memory figures and the default streams.
#include "opencl_backend.h"
#include "opencl_device.h"
#include "opencl_stream.h"

#include "opencl_native_api.h"

#include "common/text.hpp"

#include <CL/cl_ext.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace infinirt::opencl {
namespace {

// cl_nv_device_attribute_query values the Khronos headers do not carry.
constexpr cl_device_info kPciBusIdNv = 0x4008;
constexpr cl_device_info kPciSlotIdNv = 0x4009;
constexpr cl_device_info kPciDomainIdNv = 0x400A;

// Leaked on purpose: devices must outlive every static destructor (see Device).
std::vector<std::unique_ptr<Device>> *g_devices = nullptr;
std::string g_reason;

std::string platformString(cl_platform_id id, cl_platform_info what) {
    size_t size = 0;
    if (nativeApi().clGetPlatformInfo(id, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) {
        return "";
    }
    std::string value(size, '\0');
    if (nativeApi().clGetPlatformInfo(id, what, size, value.data(), nullptr) != CL_SUCCESS) {
        return "";
    }
    value.resize(std::strlen(value.c_str()));
    return value;
}

template <typename T>
bool deviceValue(cl_device_id id, cl_device_info what, T *value) {
    return nativeApi().clGetDeviceInfo(id, what, sizeof(T), value, nullptr) == CL_SUCCESS;
}

// "OpenCL 3.0 CUDA" -> 3; 0 when unparsable.
int majorVersion(const std::string &version) {
    int major = 0, minor = 0;
    return std::sscanf(version.c_str(), "OpenCL %d.%d", &major, &minor) == 2 ? major : 0;
}

void fillIdentity(Device &dev, const std::string &extensions) {
    if (hasExtension(extensions, "cl_nv_device_attribute_query")) {
        cl_uint major = 0, minor = 0;
        if (deviceValue(dev.id, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, &major) &&
            deviceValue(dev.id, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, &minor)) {
            dev.cc_major = static_cast<int>(major);
            dev.cc_minor = static_cast<int>(minor);
            dev.architecture = "sm_" + std::to_string(major) + std::to_string(minor);
        }
    }
    char bus_id[32] = "";
    cl_device_pci_bus_info_khr pci{};
    cl_uint nv_bus = 0, nv_slot = 0, nv_domain = 0;
    if (hasExtension(extensions, "cl_khr_pci_bus_info") && deviceValue(dev.id, CL_DEVICE_PCI_BUS_INFO_KHR, &pci)) {
        std::snprintf(bus_id, sizeof(bus_id), "%04x:%02x:%02x.%x", pci.pci_domain, pci.pci_bus, pci.pci_device,
                      pci.pci_function);
    } else if (hasExtension(extensions, "cl_nv_device_attribute_query") &&
               deviceValue(dev.id, kPciBusIdNv, &nv_bus) && deviceValue(dev.id, kPciSlotIdNv, &nv_slot)) {
        deviceValue(dev.id, kPciDomainIdNv, &nv_domain);
        std::snprintf(bus_id, sizeof(bus_id), "%04x:%02x:%02x.%x", nv_domain, nv_bus, nv_slot >> 3, nv_slot & 7);
    }
    dev.pci_bus_id = bus_id;
    if (hasExtension(extensions, "cl_khr_device_uuid") &&
        nativeApi().clGetDeviceInfo(dev.id, CL_DEVICE_UUID_KHR, sizeof(dev.uuid), dev.uuid, nullptr) == CL_SUCCESS) {
        dev.has_uuid = true;
    }
    dev.amd_free_memory = hasExtension(extensions, "cl_amd_device_attribute_query");
    dev.priority_hints = hasExtension(extensions, "cl_khr_priority_hints");
}

// INFINIRT_OPENCL_MEMORY_LIMIT: the bytes each opencl device may hold, when less than it reports
// (to test out-of-memory paths without filling a large device): its total memory as infinirt
// reports it and the bound its allocations are checked against (svmAlloc).
void applyMemoryLimit(Device &dev) {
    const char *limit = std::getenv("INFINIRT_OPENCL_MEMORY_LIMIT");
    if (limit == nullptr) {
        return;
    }
    unsigned long long value = 0;
    if (!common::parseCount(limit, &value) || value > SIZE_MAX) {
        common::logMessage(INFINIRT_LOG_WARN,
                           "INFINIRT_OPENCL_MEMORY_LIMIT=\"%s\" ignored: expected a positive number of bytes", limit);
        return;
    }
    if (static_cast<size_t>(value) < dev.global_mem) {
        dev.global_mem = static_cast<size_t>(value);
        dev.memory_source = "INFINIRT_OPENCL_MEMORY_LIMIT";
    }
    dev.max_alloc = std::min(dev.max_alloc, dev.global_mem);
}

// CL_DEVICE_TYPE as infinirt's kind: a device listing GPU among its types is a GPU.
infinirtDeviceKind_t kindOf(cl_device_type type) {
    if (type & CL_DEVICE_TYPE_GPU) {
        return INFINIRT_DEVICE_KIND_GPU;
    }
    if (type & (CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM)) {
        return INFINIRT_DEVICE_KIND_ACCELERATOR;
    }
    if (type & CL_DEVICE_TYPE_CPU) {
        return INFINIRT_DEVICE_KIND_CPU;
    }
    return INFINIRT_DEVICE_KIND_UNKNOWN;
}

int clampToInt(size_t value) { return value > static_cast<size_t>(INT_MAX) ? INT_MAX : static_cast<int>(value); }

// The kind, clock, cache and launch limits of `id` into `props` (each left 0 where its query fails).
void fillLimits(cl_device_id id, infinirtDeviceProperties_t *props) {
    cl_device_type type = 0;
    if (deviceValue(id, CL_DEVICE_TYPE, &type)) {
        props->device_kind = kindOf(type);
    }
    cl_uint mhz = 0;
    if (deviceValue(id, CL_DEVICE_MAX_CLOCK_FREQUENCY, &mhz)) {
        props->clock_rate_khz = clampToInt(static_cast<size_t>(mhz) * 1000);
    }
    cl_ulong cache = 0;
    if (deviceValue(id, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, &cache)) {
        props->cache_bytes = static_cast<size_t>(cache);
    }
    size_t group = 0;
    if (deviceValue(id, CL_DEVICE_MAX_WORK_GROUP_SIZE, &group)) {
        props->max_threads_per_block = clampToInt(group);
    }
    cl_uint dims = 0;
    size_t sizes[16] = {};
    if (deviceValue(id, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, &dims) && dims >= 1 && dims <= 16 &&
        nativeApi().clGetDeviceInfo(id, CL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof(size_t), sizes, nullptr) == CL_SUCCESS) {
        for (cl_uint i = 0; i < 3 && i < dims; ++i) {
            props->max_block_dim[i] = clampToInt(sizes[i]);
        }
    }
    cl_ulong local = 0; // LOCAL memory of one work-group
    if (deviceValue(id, CL_DEVICE_LOCAL_MEM_SIZE, &local)) {
        props->shared_memory_per_block = static_cast<size_t>(local);
    }
}

// Builds the Device for `id`, or returns false with why it cannot serve infinirt.
bool makeDevice(cl_platform_id platform, cl_device_id id, const std::string &platform_name, Device &dev,
                std::string *why) {
    dev.platform = platform;
    dev.id = id;
    dev.platform_name = platform_name;
    dev.name = deviceString(id, CL_DEVICE_NAME);
    dev.version = deviceString(id, CL_DEVICE_VERSION);
    const std::string label = "\"" + dev.name + "\" (" + platform_name + ", " + dev.version + ")";
    if (majorVersion(dev.version) < 2) {
        *why = label + ": OpenCL " + (dev.version.empty() ? "version unknown" : "< 2.0") +
               ", no shared virtual memory (infinirt needs coarse-grained SVM for raw device pointers)";
        return false;
    }
    cl_device_svm_capabilities svm = 0;
    if (!deviceValue(id, CL_DEVICE_SVM_CAPABILITIES, &svm) || !(svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)) {
        *why = label + ": no coarse-grained buffer SVM (infinirt needs it for raw device pointers)";
        return false;
    }
    dev.vendor = deviceString(id, CL_DEVICE_VENDOR);
    dev.driver_version = deviceString(id, CL_DRIVER_VERSION);
    cl_ulong global_mem = 0, max_alloc = 0;
    cl_uint units = 0;
    deviceValue(id, CL_DEVICE_GLOBAL_MEM_SIZE, &global_mem);
    deviceValue(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, &max_alloc);
    deviceValue(id, CL_DEVICE_MAX_COMPUTE_UNITS, &units);
    dev.global_mem = static_cast<size_t>(global_mem);
    dev.max_alloc = static_cast<size_t>(max_alloc);
    applyMemoryLimit(dev);
    dev.compute_units = static_cast<int>(units);
    fillIdentity(dev, deviceString(id, CL_DEVICE_EXTENSIONS));
    cl_device_type type = 0;
    cl_bool unified = CL_FALSE;
    const char *host_memory = secure_getenv("INFINIRT_OPENCL_HOST_MEMORY");
    dev.memory_is_host = !(host_memory != nullptr && std::strcmp(host_memory, "0") == 0) &&
                         deviceValue(id, CL_DEVICE_TYPE, &type) && (type & CL_DEVICE_TYPE_CPU) != 0 &&
                         (type & CL_DEVICE_TYPE_GPU) == 0 && deviceValue(id, CL_DEVICE_HOST_UNIFIED_MEMORY, &unified) &&
                         unified == CL_TRUE;

    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(platform), 0};
    cl_int err = CL_SUCCESS;
    dev.context = nativeApi().clCreateContext(props, 1, &id, nullptr, nullptr, &err);
    if (!dev.context) {
        *why = label + ": clCreateContext failed: " + nativeErrorName(err) + " (" + std::to_string(err) + ")";
        return false;
    }
    return true;
}

void discover() {
    g_devices = new std::vector<std::unique_ptr<Device>>();
    if (!loadNativeApi(&g_reason)) {
        return;
    }
    cl_uint platform_count = 0;
    cl_int err = nativeApi().clGetPlatformIDs(0, nullptr, &platform_count);
    if (err != CL_SUCCESS || platform_count == 0) {
        g_reason = std::string("no OpenCL platform (clGetPlatformIDs: ") + nativeErrorName(err) + " (" +
                   std::to_string(err) + "); check the ICD files in /etc/OpenCL/vendors or OCL_ICD_VENDORS)";
        return;
    }
    std::vector<cl_platform_id> platforms(platform_count);
    err = nativeApi().clGetPlatformIDs(platform_count, platforms.data(), nullptr);
    if (err != CL_SUCCESS) {
        g_reason = std::string("clGetPlatformIDs failed: ") + nativeErrorName(err) + " (" + std::to_string(err) + ")";
        return;
    }
    std::string skipped;
    for (cl_platform_id platform : platforms) {
        const std::string platform_name = platformString(platform, CL_PLATFORM_NAME);
        cl_uint count = 0;
        if (nativeApi().clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS || count == 0) {
            continue;
        }
        std::vector<cl_device_id> ids(count);
        if (nativeApi().clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids.data(), nullptr) != CL_SUCCESS) {
            continue;
        }
        for (cl_device_id id : ids) {
            auto dev = std::make_unique<Device>();
            std::string why;
            if (makeDevice(platform, id, platform_name, *dev, &why)) {
                dev->index = static_cast<int>(g_devices->size());
                g_devices->push_back(std::move(dev));
            } else {
                common::logMessage(INFINIRT_LOG_WARN, "opencl: skipping device %s", why.c_str());
                skipped += (skipped.empty() ? "" : "; ") + why;
            }
        }
    }
    if (g_devices->empty()) {
        g_reason = skipped.empty() ? std::to_string(platform_count) + " OpenCL platform(s) but no device"
                                   : "no usable OpenCL device: " + skipped;
    }
}

// Whether a marker's CL_PROFILING_COMMAND_END is a real timestamp here: it must be non-zero and
// not earlier than the end of a real command enqueued before it.
bool probeMarkerTimestamps(Device &dev, cl_command_queue queue) {
    const NativeApi &cl = nativeApi();
    const unsigned char zero = 0;
    cl_event fill = nullptr, marker = nullptr;
    bool ok = cl.clEnqueueSVMMemFill(queue, dev.timing_scratch, &zero, 1, 1, 0, nullptr, &fill) == CL_SUCCESS &&
              cl.clEnqueueMarkerWithWaitList(queue, 0, nullptr, &marker) == CL_SUCCESS &&
              cl.clWaitForEvents(1, &marker) == CL_SUCCESS;
    cl_ulong fill_end = 0, marker_end = 0;
    ok = ok && cl.clGetEventProfilingInfo(fill, CL_PROFILING_COMMAND_END, sizeof(fill_end), &fill_end, nullptr) ==
                   CL_SUCCESS;
    ok = ok && cl.clGetEventProfilingInfo(marker, CL_PROFILING_COMMAND_END, sizeof(marker_end), &marker_end,
                                          nullptr) == CL_SUCCESS;
    ok = ok && marker_end != 0 && marker_end >= fill_end;
    if (fill) {
        cl.clReleaseEvent(fill);
    }
    if (marker) {
        cl.clReleaseEvent(marker);
    }
    return ok;
}

} // namespace

std::string deviceString(cl_device_id id, cl_device_info what) {
    size_t size = 0;
    if (nativeApi().clGetDeviceInfo(id, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) {
        return "";
    }
    std::string value(size, '\0');
    if (nativeApi().clGetDeviceInfo(id, what, size, value.data(), nullptr) != CL_SUCCESS) {
        return "";
    }
    value.resize(std::strlen(value.c_str()));
    return value;
}

bool hasExtension(const std::string &extensions, const char *name) {
    const std::string padded = " " + extensions + " ";
    return padded.find(" " + std::string(name) + " ") != std::string::npos;
}

void discoverDevices() {
    static std::once_flag once;
    std::call_once(once, discover);
}

// Discovers the devices; never fails (a missing library or platform gives 0 devices).
infiniStatus_t init() {
    discoverDevices();
    return INFINI_STATUS_SUCCESS;
}

// The number of usable devices; when 0, `reason` says why.
infiniStatus_t getDeviceCount(int *count, char *reason, size_t reason_size) {
    discoverDevices();
    const int n = static_cast<int>(g_devices->size());
    common::copyString(reason, reason_size, n > 0 ? "" : g_reason.c_str());
    *count = n;
    return INFINI_STATUS_SUCCESS;
}

Device &device(int index) { return *(*g_devices)[static_cast<size_t>(index)]; }

infiniStatus_t defaultStream(int index, Stream **out) {
    Device &dev = device(index);
    if (Stream *ready = dev.default_stream.load(std::memory_order_acquire)) {
        *out = ready;
        return INFINI_STATUS_SUCCESS;
    }
    std::lock_guard<std::mutex> lock(dev.mutex);
    if (!dev.default_stream.load(std::memory_order_relaxed)) {
        if (!dev.timing_scratch) {
            dev.timing_scratch = svmAllocScratch(dev, 64);
            if (!dev.timing_scratch) {
                return common::fail(INFINI_STATUS_OUT_OF_MEMORY,
                                    "clSVMAlloc returned NULL for a 64 B scratch buffer on opencl:%d", index);
            }
        }
        if (!dev.service_queue) {
            infiniStatus_t status = createQueue(dev, &dev.service_queue);
            if (status != INFINI_STATUS_SUCCESS) {
                return status;
            }
        }
        cl_command_queue queue = nullptr;
        infiniStatus_t status = createQueue(dev, &queue);
        if (status != INFINI_STATUS_SUCCESS) {
            return status;
        }
        dev.marker_timestamps = probeMarkerTimestamps(dev, queue);
        if (!dev.marker_timestamps) {
            common::logMessage(INFINIRT_LOG_INFO,
                               "opencl:%d: markers carry no profiling timestamps; timing events record a 1-byte "
                               "fill instead",
                               index);
        }
        Stream *created = new Stream;
        created->device = index;
        created->queue = queue;
        dev.default_stream.store(created, std::memory_order_release);
    }
    *out = dev.default_stream.load(std::memory_order_relaxed);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t getDeviceProperties(int index, infinirtDeviceProperties_t *props) {
    const Device &dev = device(index);
    common::copyString(props->name, sizeof(props->name), dev.name);
    common::copyString(props->vendor, sizeof(props->vendor), dev.vendor);
    common::copyString(props->platform, sizeof(props->platform), dev.platform_name);
    common::copyString(props->driver_version, sizeof(props->driver_version), dev.driver_version);
    common::copyString(props->architecture, sizeof(props->architecture), dev.architecture);
    common::copyString(props->pci_bus_id, sizeof(props->pci_bus_id), dev.pci_bus_id);
    props->total_memory = dev.global_mem;
    props->compute_capability_major = dev.cc_major;
    props->compute_capability_minor = dev.cc_minor;
    props->multiprocessor_count = dev.compute_units;
    if (dev.has_uuid) {
        std::memcpy(props->uuid, dev.uuid, sizeof(props->uuid));
        props->has_uuid = 1;
    }
    fillLimits(dev.id, props);
    props->memory_is_host = dev.memory_is_host ? 1 : 0;
    return INFINI_STATUS_SUCCESS;
}

// free is the AMD free-memory figure where available, else total minus what infinirt holds.
infiniStatus_t getMemInfo(int index, size_t *free_bytes, size_t *total_bytes) {
    const Device &dev = device(index);
    size_t free_now = 0;
    cl_ulong amd_free_kib[2] = {0, 0};
    if (dev.amd_free_memory && nativeApi().clGetDeviceInfo(dev.id, CL_DEVICE_GLOBAL_FREE_MEMORY_AMD, sizeof(amd_free_kib),
                                                     amd_free_kib, nullptr) == CL_SUCCESS) {
        free_now = static_cast<size_t>(amd_free_kib[0]) * 1024;
    } else {
        const size_t used = dev.allocated.load(std::memory_order_relaxed);
        free_now = used < dev.global_mem ? dev.global_mem - used : 0;
    }
    *free_bytes = free_now;
    *total_bytes = dev.global_mem;
    return INFINI_STATUS_SUCCESS;
}

// Waits for the default stream and every live stream of the device.
infiniStatus_t deviceSynchronize(int index) {
    Device &dev = device(index);
    std::lock_guard<std::mutex> lock(dev.mutex);
    // Every stream is finished even after one failed: the call returns only once no stream's
    // work still runs. The last failure is reported (its status with its detail).
    infiniStatus_t result = INFINI_STATUS_SUCCESS;
    if (Stream *default_stream = dev.default_stream.load(std::memory_order_acquire)) {
        result = finishStream(*default_stream, "synchronizing the device (default stream)");
    }
    for (Stream *stream : dev.streams) {
        const infiniStatus_t status = finishStream(*stream, "synchronizing the device");
        if (status != INFINI_STATUS_SUCCESS) {
            result = status;
        }
    }
    return result;
}

// Limits: OpenCL reports the printf buffer (CL_DEVICE_PRINTF_BUFFER_SIZE) and lets nothing be set.
infiniStatus_t deviceGetLimit(int index, infinirtLimit_t limit, size_t *value) {
    if (limit != INFINIRT_LIMIT_PRINTF_FIFO_SIZE) {
        return common::fail(INFINI_STATUS_NOT_IMPLEMENTED,
                            "OpenCL has no query for %s; only INFINIRT_LIMIT_PRINTF_FIFO_SIZE is reported",
                            common::limitName(limit));
    }
    size_t bytes = 0;
    if (!deviceValue(device(index).id, CL_DEVICE_PRINTF_BUFFER_SIZE, &bytes)) {
        return common::fail(INFINI_STATUS_NOT_IMPLEMENTED,
                            "the device does not report CL_DEVICE_PRINTF_BUFFER_SIZE (INFINIRT_LIMIT_PRINTF_FIFO_SIZE)");
    }
    *value = bytes;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t deviceSetLimit(int, infinirtLimit_t limit, size_t) {
    return common::fail(INFINI_STATUS_NOT_IMPLEMENTED, "OpenCL cannot change %s%s", common::limitName(limit),
                        limit == INFINIRT_LIMIT_PRINTF_FIFO_SIZE ? " (read-only: CL_DEVICE_PRINTF_BUFFER_SIZE)" : "");
}

infiniStatus_t deviceGetNativeContext(int index, void **native) {
    *native = device(index).context;
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::opencl
