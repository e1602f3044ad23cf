/* hip_device.cpp - runtime start-up, device enumeration and properties. */
#include "../gpu_common/gpu_backend.h"
#include "hip_backend.h"

#include <cctype>
#include <cstdio>
#include <cstring>

namespace infinirt::hip {

namespace {
int g_count = 0;
int g_runtime_version = 0;
char g_reason[512] = "";

void copy_text(char *dst, size_t dst_size, const char *src) {
    if (dst && dst_size > 0) {
        std::snprintf(dst, dst_size, "%s", src);
    }
}

/* Everything that can leave the plugin with no devices; each failure is a reason, not an error. */
void discover() {
    const char *why = nullptr;
    if (!load(&why)) {
        copy_text(g_reason, sizeof g_reason, why);
        return;
    }
    if (hipError_t rc = hip().hipInit(0)) {
        std::snprintf(g_reason, sizeof g_reason, "hipInit failed: %s (%d)", error_name(rc), rc);
        return;
    }
    if (hip().hipDriverGetVersion(&g_runtime_version) != hipSuccess) {
        g_runtime_version = 0;
    }
    int count = 0;
    if (hipError_t rc = hip().hipGetDeviceCount(&count)) {
        std::snprintf(g_reason, sizeof g_reason, "hipGetDeviceCount failed: %s (%d)", error_name(rc), rc);
        return;
    }
    if (count <= 0) {
        copy_text(g_reason, sizeof g_reason, "the HIP runtime reports no device");
        return;
    }
    prepare_devices(count);
    g_count = count;
}
} // namespace

infiniStatus_t init() {
    return gpu::guarded([] {
        discover();
        if (g_count == 0) {
            gpu::log(INFINIRT_LOG_INFO, "hip: no devices: %s", g_reason);
        }
        return INFINI_STATUS_SUCCESS;
    });
}

infiniStatus_t get_device_count(int *count, char *reason, size_t reason_size) {
    *count = g_count;
    copy_text(reason, reason_size, g_count > 0 ? "" : g_reason);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t get_device_properties(int device, infinirtDeviceProperties_t *props) {
    return gpu::guarded([&] {
        const Api &h = hip();
        infinirtDeviceProperties_t out = *props;
        if (hipError_t rc = h.hipDeviceGetName(out.name, static_cast<int>(sizeof out.name), device)) {
            return gpu::native_failure("hipDeviceGetName", rc, "reading the properties of hip:%d", device);
        }
        size_t total = 0;
        if (hipError_t rc = h.hipDeviceTotalMem(&total, device)) {
            return gpu::native_failure("hipDeviceTotalMem", rc, "reading the properties of hip:%d", device);
        }
        int major = 0, minor = 0, units = 0;
        hipError_t rc = h.hipDeviceGetAttribute(&major, hipDeviceAttributeComputeCapabilityMajor, device);
        if (!rc) rc = h.hipDeviceGetAttribute(&minor, hipDeviceAttributeComputeCapabilityMinor, device);
        if (!rc) rc = h.hipDeviceGetAttribute(&units, hipDeviceAttributeMultiprocessorCount, device);
        if (rc) {
            return gpu::native_failure("hipDeviceGetAttribute", rc, "reading the properties of hip:%d", device);
        }
        hipUUID uuid{};
        if (h.hipDeviceGetUuid(&uuid, device) == hipSuccess) {
            std::memcpy(out.uuid, uuid.bytes, sizeof out.uuid);
            out.has_uuid = 1;
        }
        char bus[32] = "";
        if (h.hipDeviceGetPCIBusId(bus, static_cast<int>(sizeof bus), device) == hipSuccess) {
            for (char *c = bus; *c; ++c) {
                *c = static_cast<char>(std::tolower(static_cast<unsigned char>(*c)));
            }
            copy_text(out.pci_bus_id, sizeof out.pci_bus_id, bus);
        }
        copy_text(out.vendor, sizeof out.vendor, "AMD");
        copy_text(out.platform, sizeof out.platform, "HIP runtime");
        std::snprintf(out.driver_version, sizeof out.driver_version, "%d", g_runtime_version);
        out.total_memory = total;
        /* HIP reports the gfx version as a "compute capability" (gfx90a: 9.0). */
        out.compute_capability_major = major;
        out.compute_capability_minor = minor;
        out.multiprocessor_count = units;
        *props = out;
        return INFINI_STATUS_SUCCESS;
    });
}

} // namespace infinirt::hip
