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
        std::snprintf(g_reason, sizeof g_reason, "hipInit failed: %s (%d)", errorName(rc), rc);
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
