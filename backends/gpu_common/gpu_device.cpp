/* gpu_device.cpp - device-wide entries: synchronisation, memory figures; the device-property
 * reader the vendors share. */
#include "gpu_backend.h"

#include <cctype>

namespace infinirt::gpu {

namespace {
/* The device's free and total memory, over the bound context. */
infiniStatus_t readMemInfo(int device, size_t *free_now, size_t *total) {
    if (NativeStatus rc = vendorTable().mem_get_info.call(free_now, total)) {
        return nativeFailure(vendorTable().mem_get_info.name, rc, "reading the memory of %s:%d", vendorTable().name, device);
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

infiniStatus_t initDevices(DeviceCensus &census, void (*discover)()) {
    discover();
    if (census.count == 0) {
        common::logMessage(INFINIRT_LOG_INFO, "%s: no devices: %s", vendorTable().name, census.reason);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t answerDeviceCount(const DeviceCensus &census, int *count, char *reason, size_t reason_size) {
    *count = census.count;
    common::copyString(reason, reason_size, census.count > 0 ? "" : census.reason);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t readDeviceProperties(const DevicePropertySource &source, int device, infinirtDeviceProperties_t *props) {
    const VendorApi &v = vendorTable();
    const DeviceAttributeCodes &codes = source.attributes;
    infinirtDeviceProperties_t out = *props;
    if (NativeStatus rc = source.device_name.call(out.name, static_cast<int>(sizeof out.name), device)) {
        return nativeFailure(source.device_name.name, rc, "reading the properties of %s:%d", v.name, device);
    }
    size_t total = 0;
    if (NativeStatus rc = source.total_memory.call(&total, device)) {
        return nativeFailure(source.total_memory.name, rc, "reading the properties of %s:%d", v.name, device);
    }
    int major = 0, minor = 0, units = 0;
    NativeStatus rc = v.device_get_attribute.call(&major, codes.compute_capability_major, device);
    if (!rc) rc = v.device_get_attribute.call(&minor, codes.compute_capability_minor, device);
    if (!rc) rc = v.device_get_attribute.call(&units, codes.multiprocessor_count, device);
    if (rc) {
        return nativeFailure(v.device_get_attribute.name, rc, "reading the properties of %s:%d", v.name, device);
    }
    if (source.uuid(out.uuid, device) == 0) {
        out.has_uuid = 1;
    }
    char bus[32] = "";
    if (source.pci_bus_id(bus, static_cast<int>(sizeof bus), device) == 0) {
        setPciBusId(&out, bus); /* the drivers spell hex digits in upper case */
    }
    common::copyString(out.vendor, sizeof out.vendor, source.vendor);
    common::copyString(out.platform, sizeof out.platform, source.platform);
    out.total_memory = total;
    out.compute_capability_major = major;
    out.compute_capability_minor = minor;
    out.multiprocessor_count = units;
    out.device_kind = INFINIRT_DEVICE_KIND_GPU;
    /* Clocks, cache and launch limits: an attribute the driver does not answer stays 0 (unknown). */
    auto optional = [&](int code) {
        int value = 0;
        return v.device_get_attribute.call(&value, code, device) == 0 && value > 0 ? value : 0;
    };
    out.clock_rate_khz = optional(codes.clock_rate_khz);
    out.memory_clock_rate_khz = optional(codes.memory_clock_rate_khz);
    out.memory_bus_width_bits = optional(codes.memory_bus_width_bits);
    out.max_threads_per_block = optional(codes.max_threads_per_block);
    for (int i = 0; i < 3; ++i) {
        out.max_block_dim[i] = optional(codes.max_block_dim[i]);
        out.max_grid_dim[i] = optional(codes.max_grid_dim[i]);
    }
    out.cache_bytes = static_cast<size_t>(optional(codes.cache_bytes));
    out.shared_memory_per_block = static_cast<size_t>(optional(codes.shared_memory_per_block));
    *props = out;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t deviceSynchronize(int device) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().device_synchronize.call()) {
        return nativeFailure(vendorTable().device_synchronize.name, rc, "synchronizing %s:%d", vendorTable().name, device);
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
    if (vendorTable().pool_reserved.call(device, &reserved) != 0) {
        reserved = 0;
    }
    snapshot->device_type = vendorTable().device_type;
    snapshot->device_id = device;
    snapshot->valid_fields |= INFINIRT_RESOURCE_FIELD_MEMORY_CAPACITY;
    snapshot->free_bytes = free_now;
    snapshot->total_bytes = total;
    snapshot->used_bytes = total - free_now;
    snapshot->reserved_bytes = static_cast<size_t>(reserved);
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::gpu
