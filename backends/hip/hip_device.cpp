/* hip_device.cpp - runtime start-up, device enumeration and properties; the device-wide
 * adapters (synchronisation, memory figures). */
#include "hip_backend.h"

#include <cstdio>
#include <cstring>

namespace infinirt::hip {

namespace {
int g_count = 0;
int g_runtime_version = 0;
char g_reason[512] = "";

/* Everything that can leave the plugin with no devices; each failure is a reason, not an error. */
void discover() {
    const char *why = nullptr;
    if (!load(&why)) {
        common::copyString(g_reason, sizeof g_reason, why);
        return;
    }
    if (hipError_t rc = hip().hipInit(0)) {
        /* Debian's libamdhip64 answers hipErrorInvalidDevice (or NoDevice) on machines without an
         * AMD GPU: not a failure of the runtime, so not worded as one. */
        if (rc == hipErrorInvalidDevice || rc == hipErrorNoDevice) {
            std::snprintf(g_reason, sizeof g_reason, "no AMD GPU found (hipInit: %s)", errorName(rc));
        } else {
            std::snprintf(g_reason, sizeof g_reason, "hipInit failed: %s (%d)", errorName(rc), rc);
        }
        return;
    }
    if (hip().hipDriverGetVersion(&g_runtime_version) != hipSuccess) {
        g_runtime_version = 0;
    }
    int count = 0;
    if (hipError_t rc = hip().hipGetDeviceCount(&count)) {
        std::snprintf(g_reason, sizeof g_reason, "hipGetDeviceCount failed: %s (%d)", errorName(rc), rc);
        return;
    }
    if (count <= 0) {
        common::copyString(g_reason, sizeof g_reason, "the HIP runtime reports no device");
        return;
    }
    prepareDevices(count);
    g_count = count;
}
} // namespace

infiniStatus_t init() {
    discover();
    if (g_count == 0) {
        common::logMessage(INFINIRT_LOG_INFO, "hip: no devices: %s", g_reason);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t getDeviceCount(int *count, char *reason, size_t reason_size) {
    *count = g_count;
    common::copyString(reason, reason_size, g_count > 0 ? "" : g_reason);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t getDeviceProperties(int device, infinirtDeviceProperties_t *props) {
    const Api &h = hip();
    infinirtDeviceProperties_t out = *props;
    if (hipError_t rc = h.hipDeviceGetName(out.name, static_cast<int>(sizeof out.name), device)) {
        return gpu::nativeFailure("hipDeviceGetName", rc, "reading the properties of hip:%d", device);
    }
    size_t total = 0;
    if (hipError_t rc = h.hipDeviceTotalMem(&total, device)) {
        return gpu::nativeFailure("hipDeviceTotalMem", rc, "reading the properties of hip:%d", device);
    }
    int major = 0, minor = 0, units = 0;
    hipError_t rc = h.hipDeviceGetAttribute(&major, hipDeviceAttributeComputeCapabilityMajor, device);
    if (!rc) rc = h.hipDeviceGetAttribute(&minor, hipDeviceAttributeComputeCapabilityMinor, device);
    if (!rc) rc = h.hipDeviceGetAttribute(&units, hipDeviceAttributeMultiprocessorCount, device);
    if (rc) {
        return gpu::nativeFailure("hipDeviceGetAttribute", rc, "reading the properties of hip:%d", device);
    }
    hipUUID uuid{};
    if (h.hipDeviceGetUuid(&uuid, device) == hipSuccess) {
        std::memcpy(out.uuid, uuid.bytes, sizeof out.uuid);
        out.has_uuid = 1;
    }
    char bus[32] = "";
    if (h.hipDeviceGetPCIBusId(bus, static_cast<int>(sizeof bus), device) == hipSuccess) {
        gpu::setPciBusId(&out, bus);
    }
    common::copyString(out.vendor, sizeof out.vendor, "AMD");
    common::copyString(out.platform, sizeof out.platform, "HIP runtime");
    std::snprintf(out.driver_version, sizeof out.driver_version, "%d", g_runtime_version);
    out.total_memory = total;
    /* HIP reports the gfx version as a "compute capability" (gfx90a: 9.0). */
    out.compute_capability_major = major;
    out.compute_capability_minor = minor;
    out.multiprocessor_count = units;
    out.device_kind = INFINIRT_DEVICE_KIND_GPU;
    /* Clocks, cache and launch limits: an attribute the runtime does not answer stays 0 (unknown). */
    struct {
        hipDeviceAttribute_t attribute;
        int *field;
    } const limits[] = {
        {hipDeviceAttributeClockRate, &out.clock_rate_khz},
        {hipDeviceAttributeMemoryClockRate, &out.memory_clock_rate_khz},
        {hipDeviceAttributeMemoryBusWidth, &out.memory_bus_width_bits},
        {hipDeviceAttributeMaxThreadsPerBlock, &out.max_threads_per_block},
        {hipDeviceAttributeMaxBlockDimX, &out.max_block_dim[0]},
        {hipDeviceAttributeMaxBlockDimY, &out.max_block_dim[1]},
        {hipDeviceAttributeMaxBlockDimZ, &out.max_block_dim[2]},
        {hipDeviceAttributeMaxGridDimX, &out.max_grid_dim[0]},
        {hipDeviceAttributeMaxGridDimY, &out.max_grid_dim[1]},
        {hipDeviceAttributeMaxGridDimZ, &out.max_grid_dim[2]},
    };
    for (const auto &limit : limits) {
        int value = 0;
        *limit.field = h.hipDeviceGetAttribute(&value, limit.attribute, device) == hipSuccess && value > 0 ? value : 0;
    }
    int l2 = 0, shared = 0;
    out.cache_bytes = h.hipDeviceGetAttribute(&l2, hipDeviceAttributeL2CacheSize, device) == hipSuccess && l2 > 0
                          ? static_cast<size_t>(l2)
                          : 0;
    out.shared_memory_per_block =
        h.hipDeviceGetAttribute(&shared, hipDeviceAttributeMaxSharedMemoryPerBlock, device) == hipSuccess && shared > 0
            ? static_cast<size_t>(shared)
            : 0;
    *props = out;
    return INFINI_STATUS_SUCCESS;
}

NativeStatus deviceSynchronize() { return hip().hipDeviceSynchronize(); }
NativeStatus memGetInfo(size_t *free_bytes, size_t *total_bytes) {
    return hip().hipMemGetInfo(free_bytes, total_bytes);
}
NativeStatus poolReserved(int device, uint64_t *bytes) {
    hipMemPool_t pool = defaultPool(device);
    if (!pool) {
        return hipErrorNotSupported;
    }
    uint64_t value = 0;
    hipError_t rc = hip().hipMemPoolGetAttribute(pool, hipMemPoolAttrReservedMemCurrent, &value);
    *bytes = value;
    return rc;
}

} // namespace infinirt::hip
