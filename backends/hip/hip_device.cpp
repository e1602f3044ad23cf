/* hip_device.cpp - runtime start-up, device enumeration and properties; the device-wide
 * converters (synchronisation, memory figures). */
#include "hip_backend.h"

#include "../gpu_common/gpu_vendor_table.h"

#include <cstdio>
#include <cstring>

namespace infinirt::hip {

namespace {
gpu::DeviceCensus g_census;
int g_runtime_version = 0;

/* Everything that can leave the plugin with no devices; each failure is a reason, not an error. */
void countDevices() {
    const char *why = nullptr;
    if (!load(&why)) {
        common::copyString(g_census.reason, sizeof g_census.reason, why);
        return;
    }
    if (hipError_t rc = nativeApi().hipInit(0)) {
        /* Debian's libamdhip64 answers hipErrorInvalidDevice (or NoDevice) on machines without an
         * AMD GPU: not a failure of the runtime, so not worded as one. */
        if (rc == hipErrorInvalidDevice || rc == hipErrorNoDevice) {
            std::snprintf(g_census.reason, sizeof g_census.reason, "no AMD GPU found (hipInit: %s)", errorName(rc));
        } else {
            std::snprintf(g_census.reason, sizeof g_census.reason, "hipInit failed: %s (%d)", errorName(rc), rc);
        }
        return;
    }
    if (nativeApi().hipDriverGetVersion(&g_runtime_version) != hipSuccess) {
        g_runtime_version = 0;
    }
    int count = 0;
    if (hipError_t rc = nativeApi().hipGetDeviceCount(&count)) {
        std::snprintf(g_census.reason, sizeof g_census.reason, "hipGetDeviceCount failed: %s (%d)", errorName(rc), rc);
        return;
    }
    if (count <= 0) {
        common::copyString(g_census.reason, sizeof g_census.reason, "the HIP runtime reports no device");
        return;
    }
    prepareDevices(count);
    g_census.count = count;
}

/* The devices, and whether the plugin keeps registration, virtual memory and IPC, whose calls
 * follow ROCm 6 (hip_native_api.h): without a device, a ROCm 6 symbol or a ROCm 6 runtime, its
 * table has none of those entries. */
void discover() {
    countDevices();
    char why[200];
    if (g_census.count == 0) {
        gpu::withdrawMemorySharing();
    } else if (rocm6Unavailable(g_runtime_version, why, sizeof why)) {
        gpu::withdrawMemorySharing();
        common::logMessage(INFINIRT_LOG_INFO, "hip: no host registration, virtual memory or IPC: %s", why);
    }
}
} // namespace

infiniStatus_t init() { return gpu::initDevices(g_census, discover); }

infiniStatus_t getDeviceCount(int *count, char *reason, size_t reason_size) {
    return gpu::answerDeviceCount(g_census, count, reason, reason_size);
}

infiniStatus_t getDeviceProperties(int device, infinirtDeviceProperties_t *props) {
    /* HIP reports the gfx version as a "compute capability" (gfx90a: 9.0). */
    static const gpu::DevicePropertySource kProperties = INFINIRT_GPU_PROPERTY_SOURCE(INFINIRT_GPU_PICK_HIP);
    if (infiniStatus_t status = gpu::readDeviceProperties(kProperties, device, props)) {
        return status;
    }
    std::snprintf(props->driver_version, sizeof props->driver_version, "%d", g_runtime_version);
    return INFINI_STATUS_SUCCESS;
}

NativeStatus nativeDeviceName(char *name, int capacity, int device) {
    return nativeApi().hipDeviceGetName(name, capacity, device);
}
NativeStatus nativeDeviceTotalMemory(size_t *bytes, int device) { return nativeApi().hipDeviceTotalMem(bytes, device); }
NativeStatus nativeDeviceUuid(unsigned char bytes[16], int device) {
    hipUUID uuid{};
    hipError_t rc = nativeApi().hipDeviceGetUuid(&uuid, device);
    if (rc == hipSuccess) {
        std::memcpy(bytes, uuid.bytes, sizeof uuid.bytes);
    }
    return rc;
}
NativeStatus nativeDevicePciBusId(char *bus, int capacity, int device) {
    return nativeApi().hipDeviceGetPCIBusId(bus, capacity, device);
}
NativeStatus nativeDeviceSynchronize() { return nativeApi().hipDeviceSynchronize(); }
NativeStatus nativeMemGetInfo(size_t *free_bytes, size_t *total_bytes) {
    return nativeApi().hipMemGetInfo(free_bytes, total_bytes);
}
NativeStatus nativePoolReserved(int device, uint64_t *bytes) {
    hipMemPool_t pool = defaultPool(device);
    if (!pool) {
        return hipErrorNotSupported;
    }
    uint64_t value = 0;
    hipError_t rc = nativeApi().hipMemPoolGetAttribute(pool, hipMemPoolAttrReservedMemCurrent, &value);
    *bytes = value;
    return rc;
}

} // namespace infinirt::hip
