/* gpu_device.cpp - device-wide entries: synchronisation, memory figures; the property helper
 * the vendors share. */
#include "gpu_backend.h"

#include <cctype>

namespace infinirt::gpu {

namespace {
/* The device's free and total memory, over the bound context. */
infiniStatus_t readMemInfo(int device, size_t *free_now, size_t *total) {
    if (NativeStatus rc = api().mem_get_info.call(free_now, total)) {
        return nativeFailure(api().mem_get_info.name, rc, "reading the memory of %s:%d", api().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}
} // namespace

void setPciBusId(infinirtDeviceProperties_t *props, const char *bus) {
    common::copyString(props->pci_bus_id, sizeof props->pci_bus_id, bus);
    for (char *c = props->pci_bus_id; *c; ++c) {
        *c = static_cast<char>(std::tolower(static_cast<unsigned char>(*c)));
    }
}

infiniStatus_t deviceSynchronize(int device) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = api().device_synchronize.call()) {
        return nativeFailure(api().device_synchronize.name, rc, "synchronizing %s:%d", api().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t getMemInfo(int device, size_t *free_bytes, size_t *total_bytes) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    size_t free_now = 0, total = 0;
    if (infiniStatus_t status = readMemInfo(device, &free_now, &total)) {
        return status;
    }
    *free_bytes = free_now;
    *total_bytes = total;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t getResourceSnapshot(int device, infinirtDeviceResourceSnapshot_t *snapshot) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    size_t free_now = 0, total = 0;
    if (infiniStatus_t status = readMemInfo(device, &free_now, &total)) {
        return status;
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
}

} // namespace infinirt::gpu
