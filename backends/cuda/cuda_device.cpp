/* cuda_device.cpp - driver start-up, device enumeration, properties, foreign pointers; the
 * device-wide converters (synchronisation, memory figures). */
#include "cuda_backend.h"

#include "../gpu_common/gpu_vendor_table.h"

#include <cstdio>
#include <cstring>

namespace infinirt::cuda {

namespace {
gpu::DeviceCensus g_census;
int g_driver_version = 0;
/* Ordinal -> CUdevice; allocated once by init and kept for the life of the process. */
CUdevice *g_devices = nullptr;

/* Everything that can leave the plugin with no devices; each failure is a reason, not an error. */
void discover() {
    const char *why = nullptr;
    if (!load(&why)) {
        common::copyString(g_census.reason, sizeof g_census.reason, why);
        return;
    }
    if (CUresult rc = nativeApi().cuInit(0)) {
        std::snprintf(g_census.reason, sizeof g_census.reason, "cuInit failed: %s (%d)", errorName(rc), rc);
        return;
    }
    nativeApi().cuDriverGetVersion(&g_driver_version);
    int count = 0;
    if (CUresult rc = nativeApi().cuDeviceGetCount(&count)) {
        std::snprintf(g_census.reason, sizeof g_census.reason, "cuDeviceGetCount failed: %s (%d)", errorName(rc), rc);
        return;
    }
    if (count <= 0) {
        common::copyString(g_census.reason, sizeof g_census.reason, "the CUDA driver reports no device");
        return;
    }
    g_devices = new CUdevice[count];
    for (int i = 0; i < count; ++i) {
        if (CUresult rc = nativeApi().cuDeviceGet(&g_devices[i], i)) {
            std::snprintf(g_census.reason, sizeof g_census.reason, "cuDeviceGet(%d) failed: %s (%d)", i, errorName(rc), rc);
            return;
        }
    }
    prepareContexts(count);
    g_census.count = count;
}
} // namespace

CUdevice nativeDevice(int device) { return g_devices[device]; }

infiniStatus_t init() { return gpu::initDevices(g_census, discover); }

infiniStatus_t getDeviceCount(int *count, char *reason, size_t reason_size) {
    return gpu::answerDeviceCount(g_census, count, reason, reason_size);
}

infiniStatus_t getDeviceProperties(int device, infinirtDeviceProperties_t *props) {
    static const gpu::DevicePropertySource kProperties = INFINIRT_GPU_PROPERTY_SOURCE(INFINIRT_GPU_PICK_CUDA);
    if (infiniStatus_t status = gpu::readDeviceProperties(kProperties, device, props)) {
        return status;
    }
    std::snprintf(props->driver_version, sizeof props->driver_version, "%d.%d", g_driver_version / 1000,
                  g_driver_version % 1000 / 10);
    std::snprintf(props->architecture, sizeof props->architecture, "sm_%d%d", props->compute_capability_major,
                  props->compute_capability_minor);
    return INFINI_STATUS_SUCCESS;
}

/* For memory infinirt did not allocate (the caller's cudaMalloc, a framework's pool). Uses no
 * context: with unified addressing the driver answers for any pointer. */
infiniStatus_t pointerGetAttributes(const void *ptr, infinirtPointerAttributes_t *attributes) {
    if (g_census.count == 0) {
        return INFINI_STATUS_DEVICE_NOT_FOUND;
    }
    unsigned int memory_type = 0;
    int ordinal = -1;
    CUdeviceptr start = 0;
    size_t range = 0;
    CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                   CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    void *values[] = {&memory_type, &ordinal, &start, &range};
    CUresult rc = nativeApi().cuPointerGetAttributes(4, which, values, devicePointer(ptr));
    /* An unknown pointer is success with every attribute left at zero. */
    if (rc != CUDA_SUCCESS || memory_type == 0) {
        return INFINI_STATUS_BAD_PARAM;
    }
    attributes->device_type = INFINI_DEVICE_NVIDIA;
    attributes->device_id = ordinal;
    attributes->kind = memory_type == CU_MEMORYTYPE_HOST ? INFINIRT_MEMORY_PINNED_HOST : INFINIRT_MEMORY_DEVICE;
    attributes->base = reinterpret_cast<void *>(static_cast<uintptr_t>(start));
    attributes->size = range;
    return INFINI_STATUS_SUCCESS;
}

NativeStatus nativeDeviceName(char *name, int capacity, int device) {
    return nativeApi().cuDeviceGetName(name, capacity, nativeDevice(device));
}
NativeStatus nativeDeviceTotalMemory(size_t *bytes, int device) {
    return nativeApi().cuDeviceTotalMem(bytes, nativeDevice(device));
}
NativeStatus nativeDeviceUuid(unsigned char bytes[16], int device) {
    CUuuid uuid{};
    CUresult rc = nativeApi().cuDeviceGetUuid(&uuid, nativeDevice(device));
    if (rc == CUDA_SUCCESS) {
        std::memcpy(bytes, uuid.bytes, sizeof uuid.bytes);
    }
    return rc;
}
NativeStatus nativeDevicePciBusId(char *bus, int capacity, int device) {
    return nativeApi().cuDeviceGetPCIBusId(bus, capacity, nativeDevice(device));
}
NativeStatus nativeDeviceSynchronize() { return nativeApi().cuCtxSynchronize(); }
NativeStatus nativeMemGetInfo(size_t *free_bytes, size_t *total_bytes) {
    return nativeApi().cuMemGetInfo(free_bytes, total_bytes);
}
NativeStatus nativePoolReserved(int device, uint64_t *bytes) {
    CUmemoryPool pool = defaultPool(device);
    if (!pool) {
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    cuuint64_t value = 0;
    CUresult rc = nativeApi().cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &value);
    *bytes = value;
    return rc;
}

} // namespace infinirt::cuda
