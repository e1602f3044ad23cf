/* gpu_device.cpp - device-wide entries: synchronisation, memory figures. */
#include "gpu_backend.h"

namespace infinirt::gpu {

infiniStatus_t device_synchronize(int device) {
    return guarded([&] {
        Binding bound(device);
        if (!bound.ok()) {
            return bound.status();
        }
        if (NativeStatus rc = api().device_synchronize.call()) {
            return native_failure(api().device_synchronize.name, rc, "synchronizing %s:%d", api().name, device);
        }
        return INFINI_STATUS_SUCCESS;
    });
}

infiniStatus_t get_mem_info(int device, size_t *free_bytes, size_t *total_bytes) {
    return guarded([&] {
        Binding bound(device);
        if (!bound.ok()) {
            return bound.status();
        }
        size_t free_now = 0, total = 0;
        if (NativeStatus rc = api().mem_get_info.call(&free_now, &total)) {
            return native_failure(api().mem_get_info.name, rc, "reading the memory of %s:%d", api().name, device);
        }
        *free_bytes = free_now;
        *total_bytes = total;
        return INFINI_STATUS_SUCCESS;
    });
}

infiniStatus_t get_resource_snapshot(int device, infinirtDeviceResourceSnapshot_t *snapshot) {
    return guarded([&] {
        Binding bound(device);
        if (!bound.ok()) {
            return bound.status();
        }
        size_t free_now = 0, total = 0;
        if (NativeStatus rc = api().mem_get_info.call(&free_now, &total)) {
            return native_failure(api().mem_get_info.name, rc, "reading the memory of %s:%d", api().name, device);
        }
        /* The pool figure is a refinement: a pool the driver cannot describe leaves it 0. */
        uint64_t reserved = 0;
        if (api().pool_reserved.call(device, &reserved) != 0) {
            reserved = 0;
        }
        snapshot->device_type = api().device_type;
        snapshot->device_id = device;
        snapshot->valid_fields |= INFINIRT_RESOURCE_FIELD_MEMORY_CAPACITY;
        snapshot->free_bytes = free_now;
        snapshot->total_bytes = total;
        snapshot->used_bytes = total - free_now;
        snapshot->reserved_bytes = static_cast<size_t>(reserved);
        return INFINI_STATUS_SUCCESS;
    });
}

} // namespace infinirt::gpu
