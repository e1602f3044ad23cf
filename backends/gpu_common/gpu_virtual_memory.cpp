/* gpu_virtual_memory.cpp - virtual memory: the plugin entries, for cuda and hip over the vendor
 * table (gpu_vendor.h; <vendor>_virtual_memory.cpp is the vendor half). The loader has checked
 * every argument against its records (include/infinirt_plugin.h, "memory beyond malloc"). A
 * physical allocation is a PhysicalMemory (gpu_backend.h); a shareable one is exported as a
 * POSIX file descriptor when it is created. */
#include "gpu_backend.h"

#include <fcntl.h>
#include <new>
#include <unistd.h>

namespace infinirt::gpu {

infiniStatus_t memGetGranularity(int device, infinirtMemGranularity_t which, size_t *granularity) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    size_t g = 0;
    if (NativeStatus rc = vendorTable().mem_granularity.call(&g, device, which == INFINIRT_MEM_GRANULARITY_RECOMMENDED)) {
        return nativeFailure(vendorTable().mem_granularity.name, rc, "asking the granularity of %s:%d",
                             vendorTable().name, device);
    }
    *granularity = g;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memAddressReserve(int device, void **ptr, size_t size, size_t alignment) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    void *p = nullptr;
    if (NativeStatus rc = vendorTable().mem_address_reserve.call(&p, size, alignment)) {
        return nativeFailure(vendorTable().mem_address_reserve.name, rc, "reserving %s of addresses for %s:%d",
                             common::formatBytes(size).c_str(), vendorTable().name, device);
    }
    *ptr = p;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memAddressFree(int device, void *ptr, size_t size) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().mem_address_free.call(ptr, size)) {
        return nativeFailure(vendorTable().mem_address_free.name, rc, "freeing the reservation %p of %s:%d", ptr,
                             vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

namespace {
/* Whether `device` can export physical allocations as POSIX file descriptors; on failure the
 * error detail is set. */
infiniStatus_t checkDescriptorExport(int device) {
    const int attr = vendorTable().device_attr_posix_fd_handles;
    if (attr < 0) {
        return INFINI_STATUS_SUCCESS;
    }
    int supported = 0;
    if (NativeStatus rc = vendorTable().device_get_attribute.call(&supported, attr, device)) {
        return nativeFailure(vendorTable().device_get_attribute.name, rc,
                             "asking whether %s:%d exports memory as POSIX file descriptors", vendorTable().name,
                             device);
    }
    if (supported == 0) {
        return common::fail(INFINI_STATUS_NOT_IMPLEMENTED,
                            "%s:%d cannot export physical memory as a POSIX file descriptor (the driver reports no "
                            "support), which INFINIRT_MEM_CREATE_SHAREABLE needs: create it without the flag",
                            vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

/* Exports the allocation as a POSIX file descriptor, close-on-exec, into *fd. */
infiniStatus_t exportDescriptor(int device, void *native, size_t size, int *fd) {
    if (NativeStatus rc = vendorTable().mem_export.call(fd, native)) {
        return nativeFailure(vendorTable().mem_export.name, rc, "exporting %s of physical memory of %s:%d",
                             common::formatBytes(size).c_str(), vendorTable().name, device);
    }
    fcntl(*fd, F_SETFD, FD_CLOEXEC);
    return INFINI_STATUS_SUCCESS;
}
} // namespace

infiniStatus_t memCreate(int device, void **mem, size_t size, uint32_t flags) {
    const bool shareable = (flags & INFINIRT_MEM_CREATE_SHAREABLE) != 0;
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    if (shareable) {
        const infiniStatus_t st = checkDescriptorExport(device);
        if (st != INFINI_STATUS_SUCCESS) {
            return st;
        }
    }
    auto *m = new (std::nothrow) PhysicalMemory{nullptr, -1};
    if (!m) {
        return common::fail(INFINI_STATUS_OUT_OF_MEMORY, "no host memory for a physical allocation of %s:%d",
                            vendorTable().name, device);
    }
    if (NativeStatus rc = vendorTable().mem_create.call(&m->native, device, size, shareable)) {
        delete m;
        return nativeFailure(vendorTable().mem_create.name, rc, "creating %s of physical memory on %s:%d",
                             common::formatBytes(size).c_str(), vendorTable().name, device);
    }
    if (shareable) {
        const infiniStatus_t st = exportDescriptor(device, m->native, size, &m->fd);
        if (st != INFINI_STATUS_SUCCESS) {
            vendorTable().mem_release.call(m->native);
            delete m;
            return st;
        }
    }
    *mem = m;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memRelease(int device, void *mem) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    auto *m = static_cast<PhysicalMemory *>(mem);
    if (NativeStatus rc = vendorTable().mem_release.call(m->native)) {
        return nativeFailure(vendorTable().mem_release.name, rc, "releasing physical memory of %s:%d",
                             vendorTable().name, device);
    }
    if (m->fd >= 0) {
        close(m->fd);
    }
    delete m;
    return INFINI_STATUS_SUCCESS;
}

/* The owning device gets read-write access at once: a mapping nobody may touch is of no use. */
infiniStatus_t memMap(int device, void *ptr, size_t size, void *mem, size_t offset) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().mem_map.call(ptr, size, static_cast<PhysicalMemory *>(mem)->native, offset)) {
        return nativeFailure(vendorTable().mem_map.name, rc, "mapping %s at %p on %s:%d",
                             common::formatBytes(size).c_str(), ptr, vendorTable().name, device);
    }
    if (NativeStatus rc = vendorTable().mem_set_access.call(ptr, size, device, INFINIRT_MEM_ACCESS_READWRITE)) {
        vendorTable().mem_unmap.call(ptr, size);
        return nativeFailure(vendorTable().mem_set_access.name, rc, "giving %s:%d access to %p + %s",
                             vendorTable().name, device, ptr, common::formatBytes(size).c_str());
    }
    return INFINI_STATUS_SUCCESS;
}

/* As freeDevice: queued work may still use the range. */
infiniStatus_t memUnmap(int device, void *ptr, size_t size) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().device_synchronize.call()) {
        return nativeFailure(vendorTable().device_synchronize.name, rc, "waiting for %s:%d before unmapping",
                             vendorTable().name, device);
    }
    if (NativeStatus rc = vendorTable().mem_unmap.call(ptr, size)) {
        return nativeFailure(vendorTable().mem_unmap.name, rc, "unmapping %p + %s on %s:%d", ptr,
                             common::formatBytes(size).c_str(), vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memSetAccess(int device, void *ptr, size_t size, int accessor, uint32_t access) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().mem_set_access.call(ptr, size, accessor, access)) {
        return nativeFailure(vendorTable().mem_set_access.name, rc, "setting access %#x of %s:%d to %p + %s",
                             access, vendorTable().name, accessor, ptr, common::formatBytes(size).c_str());
    }
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::gpu
