/* cuda_device.cpp - driver start-up, device enumeration, properties, foreign pointers; the
 * device-wide adapters (synchronisation, memory figures). */
#include "cuda_backend.h"

#include <cstdio>
#include <cstring>

namespace infinirt::cuda {

namespace {
int g_count = 0;
int g_driver_version = 0;
char g_reason[512] = "";
/* Ordinal -> CUdevice; allocated once by init and kept for the life of the process. */
CUdevice *g_devices = nullptr;

/* Everything that can leave the plugin with no devices; each failure is a reason, not an error. */
void discover() {
    const char *why = nullptr;
    if (!load(&why)) {
        common::copyString(g_reason, sizeof g_reason, why);
        return;
    }
    if (CUresult rc = driver().cuInit(0)) {
        std::snprintf(g_reason, sizeof g_reason, "cuInit failed: %s (%d)", errorName(rc), rc);
        return;
    }
    driver().cuDriverGetVersion(&g_driver_version);
    int count = 0;
    if (CUresult rc = driver().cuDeviceGetCount(&count)) {
        std::snprintf(g_reason, sizeof g_reason, "cuDeviceGetCount failed: %s (%d)", errorName(rc), rc);
        return;
    }
    if (count <= 0) {
        common::copyString(g_reason, sizeof g_reason, "the CUDA driver reports no device");
        return;
    }
    g_devices = new CUdevice[count];
    for (int i = 0; i < count; ++i) {
        if (CUresult rc = driver().cuDeviceGet(&g_devices[i], i)) {
            std::snprintf(g_reason, sizeof g_reason, "cuDeviceGet(%d) failed: %s (%d)", i, errorName(rc), rc);
            return;
        }
    }
    prepareContexts(count);
    g_count = count;
}
} // namespace

CUdevice nativeDevice(int device) { return g_devices[device]; }

infiniStatus_t init() {
    discover();
    if (g_count == 0) {
        common::logMessage(INFINIRT_LOG_INFO, "cuda: no devices: %s", g_reason);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t getDeviceCount(int *count, char *reason, size_t reason_size) {
    *count = g_count;
    common::copyString(reason, reason_size, g_count > 0 ? "" : g_reason);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t getDeviceProperties(int device, infinirtDeviceProperties_t *props) {
    const Driver &d = driver();
    CUdevice dev = nativeDevice(device);
    infinirtDeviceProperties_t out = *props;
    if (CUresult rc = d.cuDeviceGetName(out.name, static_cast<int>(sizeof out.name), dev)) {
        return gpu::nativeFailure("cuDeviceGetName", rc, "reading the properties of cuda:%d", device);
    }
    size_t total = 0;
    if (CUresult rc = d.cuDeviceTotalMem(&total, dev)) {
        return gpu::nativeFailure("cuDeviceTotalMem_v2", rc, "reading the properties of cuda:%d", device);
    }
    int major = 0, minor = 0, sms = 0;
    CUresult rc = d.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    if (!rc) rc = d.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    if (!rc) rc = d.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    if (rc) {
        return gpu::nativeFailure("cuDeviceGetAttribute", rc, "reading the properties of cuda:%d", device);
    }
    CUuuid uuid{};
    if (d.cuDeviceGetUuid(&uuid, dev) == CUDA_SUCCESS) {
        std::memcpy(out.uuid, uuid.bytes, sizeof out.uuid);
        out.has_uuid = 1;
    }
    char bus[32] = "";
    if (d.cuDeviceGetPCIBusId(bus, static_cast<int>(sizeof bus), dev) == CUDA_SUCCESS) {
        gpu::setPciBusId(&out, bus); /* the driver spells hex digits in upper case */
    }
    common::copyString(out.vendor, sizeof out.vendor, "NVIDIA");
    common::copyString(out.platform, sizeof out.platform, "CUDA driver API");
    std::snprintf(out.driver_version, sizeof out.driver_version, "%d.%d", g_driver_version / 1000,
                  g_driver_version % 1000 / 10);
    std::snprintf(out.architecture, sizeof out.architecture, "sm_%d%d", major, minor);
    out.total_memory = total;
    out.compute_capability_major = major;
    out.compute_capability_minor = minor;
    out.multiprocessor_count = sms;
    out.device_kind = INFINIRT_DEVICE_KIND_GPU;
    /* Clocks, cache and launch limits: an attribute the driver does not answer stays 0 (unknown). */
    struct {
        CUdevice_attribute attribute;
        int *field;
    } const limits[] = {
        {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &out.clock_rate_khz},
        {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, &out.memory_clock_rate_khz},
        {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, &out.memory_bus_width_bits},
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &out.max_threads_per_block},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &out.max_block_dim[0]},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &out.max_block_dim[1]},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &out.max_block_dim[2]},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &out.max_grid_dim[0]},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &out.max_grid_dim[1]},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &out.max_grid_dim[2]},
    };
    for (const auto &limit : limits) {
        int value = 0;
        *limit.field = d.cuDeviceGetAttribute(&value, limit.attribute, dev) == CUDA_SUCCESS && value > 0 ? value : 0;
    }
    int l2 = 0, shared = 0;
    out.cache_bytes = d.cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev) == CUDA_SUCCESS && l2 > 0
                          ? static_cast<size_t>(l2)
                          : 0;
    out.shared_memory_per_block =
        d.cuDeviceGetAttribute(&shared, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, dev) == CUDA_SUCCESS && shared > 0
            ? static_cast<size_t>(shared)
            : 0;
    *props = out;
    return INFINI_STATUS_SUCCESS;
}

/* For memory infinirt did not allocate (the caller's cudaMalloc, a framework's pool). Uses no
 * context: with unified addressing the driver answers for any pointer. */
infiniStatus_t pointerGetAttributes(const void *ptr, infinirtPointerAttributes_t *attributes) {
    if (g_count == 0) {
        return INFINI_STATUS_DEVICE_NOT_FOUND;
    }
    unsigned int memory_type = 0;
    int ordinal = -1;
    CUdeviceptr start = 0;
    size_t range = 0;
    CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                   CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    void *values[] = {&memory_type, &ordinal, &start, &range};
    CUresult rc = driver().cuPointerGetAttributes(4, which, values, devicePointer(ptr));
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

NativeStatus deviceSynchronize() { return driver().cuCtxSynchronize(); }
NativeStatus memGetInfo(size_t *free_bytes, size_t *total_bytes) {
    return driver().cuMemGetInfo(free_bytes, total_bytes);
}
NativeStatus poolReserved(int device, uint64_t *bytes) {
    CUmemoryPool pool = defaultPool(device);
    if (!pool) {
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    cuuint64_t value = 0;
    CUresult rc = driver().cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &value);
    *bytes = value;
    return rc;
}

} // namespace infinirt::cuda
