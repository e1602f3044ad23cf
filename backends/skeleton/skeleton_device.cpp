// skeleton_device.cpp - lifetime and devices: init, the device count with its reason, the
// properties of the template devices, and the device-wide entries the vendor fills.
#include "skeleton_backend.h"
#include "skeleton_native_api.h"

#include "common/host_services.hpp"
#include "common/text.hpp"

#include <cstdio>
#include <cstdlib>

namespace infinirt::skeleton {
namespace {

// Template devices asked for by INFINIRT_SKELETON_DEVICE_COUNT; written once by init.
int g_template_devices = 0;

// Reads INFINIRT_SKELETON_DEVICE_COUNT: unset or "" is 0; anything but 0..8 fails init.
infiniStatus_t readTemplateDeviceCount() noexcept {
    const char *text = std::getenv("INFINIRT_SKELETON_DEVICE_COUNT");
    if (text == nullptr || *text == '\0') {
        return INFINI_STATUS_SUCCESS;
    }
    char *end = nullptr;
    const long n = std::strtol(text, &end, 10);
    if (*end != '\0' || n < 0 || n > kMaxTemplateDevices) {
        return common::fail(INFINI_STATUS_BAD_PARAM,
                            "%s backend: INFINIRT_SKELETON_DEVICE_COUNT=\"%s\" is not a count in 0..%d", kName, text,
                            kMaxTemplateDevices);
    }
    g_template_devices = static_cast<int>(n);
    return INFINI_STATUS_SUCCESS;
}

} // namespace

infiniStatus_t init() {
    const infiniStatus_t st = readTemplateDeviceCount();
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    return loadNativeApi();
}

infiniStatus_t getDeviceCount(int *count, char *reason, size_t reason_size) {
    if (g_template_devices > 0) {
        *count = g_template_devices;
        common::copyString(reason, reason_size, "");
        return INFINI_STATUS_SUCCESS;
    }
    if (const NativeApi *api = nativeApi()) {
        int n = 0;
        const int rc = api->vendorGetDeviceCount(&n);
        if (rc == VENDOR_SUCCESS && n > 0) {
            *count = n;
            common::copyString(reason, reason_size, "");
            return INFINI_STATUS_SUCCESS;
        }
        *count = 0;
        if (rc == VENDOR_SUCCESS) {
            std::snprintf(reason, reason_size, "%s; the vendor library reports no device", kTemplateReason);
        } else {
            std::snprintf(reason, reason_size, "%s; vendorGetDeviceCount failed: %s (%d)", kTemplateReason,
                          nativeErrorName(rc), rc);
        }
        return INFINI_STATUS_SUCCESS;
    }
    *count = 0;
    if (nativeApiAbsence()[0] != '\0') {
        std::snprintf(reason, reason_size, "%s; %s", kTemplateReason, nativeApiAbsence());
    } else {
        common::copyString(reason, reason_size, kTemplateReason);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t getDeviceProperties(int device, infinirtDeviceProperties_t *props) {
    if (g_template_devices > 0) {
        props->device_kind = kDeviceKind;
        std::snprintf(props->name, sizeof props->name, "%s template device", kName);
        std::snprintf(props->vendor, sizeof props->vendor, "infinirt %s", kName);
        common::copyString(props->architecture, sizeof props->architecture, kTemplateArchitecture);
        return INFINI_STATUS_SUCCESS;
    }
    // Devices exist only through the vendor library here; outputs are written only on success.
    char name[sizeof props->name] = "";
    const int rc = nativeApi()->vendorGetDeviceName(device, name, sizeof name);
    if (rc != VENDOR_SUCCESS) {
        return nativeFailure("vendorGetDeviceName", rc, "for device %d", device);
    }
    common::copyString(props->name, sizeof props->name, name);
    props->device_kind = kDeviceKind;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t deviceSynchronize(int) { return notImplemented("device_synchronize"); }

infiniStatus_t getMemInfo(int, size_t *, size_t *) { return notImplemented("get_mem_info"); }

} // namespace infinirt::skeleton
