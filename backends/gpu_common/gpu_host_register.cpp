/* gpu_host_register.cpp - host registration: the plugin entries, for cuda and hip over the vendor
 * table (gpu_vendor.h; <vendor>_virtual_memory.cpp is the vendor half). The registration is portable, so
 * copies with every device of the backend take the pinned path. */
#include "gpu_backend.h"

namespace infinirt::gpu {

infiniStatus_t hostRegister(int device, void *ptr, size_t size, uint32_t flags) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    const bool read_only = (flags & INFINIRT_HOST_REGISTER_READ_ONLY) != 0;
    if (NativeStatus rc = vendorTable().host_register.call(ptr, size, read_only)) {
        return nativeFailure(vendorTable().host_register.name, rc, "registering %p + %s for %s:%d", ptr,
                             common::formatBytes(size).c_str(), vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t hostUnregister(int device, void *ptr) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().host_unregister.call(ptr)) {
        return nativeFailure(vendorTable().host_unregister.name, rc, "unregistering %p on %s:%d", ptr,
                             vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::gpu
