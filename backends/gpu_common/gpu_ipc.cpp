/* gpu_ipc.cpp - memory and events shared between processes: the plugin entries, for cuda and hip
 * over the vendor table (gpu_vendor.h; <vendor>_ipc.cpp is the vendor half).
 *
 * Memory of malloc_device travels as the vendor's IPC handle. A mapping of a shareable physical
 * allocation travels as the exporter's POSIX file descriptor of the allocation (PhysicalMemory::fd,
 * open while the allocation lives), named with common/shared_descriptor.hpp, plus the mapping's
 * offset in the allocation: the opener copies the descriptor with pidfd_getfd, imports the
 * allocation, reserves a range of the mapping's size, maps it there and gives its device
 * read-write access; closing unmaps it and frees the range. */
#include "gpu_backend.h"

#include "common/shared_descriptor.hpp"

#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <unistd.h>

namespace infinirt::gpu {

namespace {

/* What the plugin's part of a memory handle holds. The kind lies after the vendor's handle, so a
 * handle of malloc_device memory is the vendor's bytes followed by zeros. */
enum class PayloadKind : uint32_t { VendorHandle = 0, Descriptor = 1 };

/* A mapping of a shareable physical allocation. */
struct SharedMapping {
    common::SharedDescriptor file; /* the exporter's PhysicalMemory::fd */
    uint64_t offset;               /* the mapping's place in the allocation */
};

struct MemPayload {
    unsigned char bytes[kIpcHandleBytes]; /* the vendor's IPC handle, or a SharedMapping */
    PayloadKind kind;
    uint32_t reserved; /* 0 */
};
static_assert(sizeof(SharedMapping) <= kIpcHandleBytes, "a shared mapping fits where the vendor's handle lies");
static_assert(sizeof(MemPayload) <= sizeof(infinirtIpcMemHandle_t) - INFINIRT_PLUGIN_IPC_HEADER_BYTES,
              "the payload fits in the plugin's part of infinirt's handle");

/* The ranges this process mapped from other processes' descriptors (base -> size): closing
 * them unmaps and frees the range instead of closing a vendor IPC mapping. */
struct ImportedMappings {
    std::mutex mutex;
    std::map<uintptr_t, size_t> ranges;
};
ImportedMappings &imported() {
    static auto *m = new ImportedMappings(); /* never destroyed: calls may come during exit */
    return *m;
}

infiniStatus_t exportMapping(int device, void *base, size_t size, const PhysicalMemory &m, size_t offset,
                             MemPayload &p) {
    if (m.fd < 0) {
        return common::fail(INFINI_STATUS_NOT_IMPLEMENTED,
                            "%p (%s) of %s:%d maps physical memory that was not exported as a POSIX file descriptor "
                            "when it was created: create it with INFINIRT_MEM_CREATE_SHAREABLE",
                            base, common::formatBytes(size).c_str(), vendorTable().name, device);
    }
    SharedMapping shared{};
    const infiniStatus_t st = common::nameDescriptor(m.fd, &shared.file);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    shared.offset = offset;
    std::memcpy(p.bytes, &shared, sizeof shared);
    p.kind = PayloadKind::Descriptor;
    return INFINI_STATUS_SUCCESS;
}

/* Maps `size` bytes at shared.offset of the allocation another process exported, for `device`
 * (bound). */
infiniStatus_t openMapping(int device, const SharedMapping &shared, size_t size, void **ptr) {
    int fd = -1;
    struct stat st{};
    infiniStatus_t status = common::copySharedDescriptor(shared.file, false, &fd, &st);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    void *native = nullptr;
    NativeStatus rc = vendorTable().mem_import.call(&native, fd);
    close(fd); /* the imported allocation holds the memory */
    if (rc != 0) {
        return nativeFailure(vendorTable().mem_import.name, rc,
                             "importing descriptor %d of process %d (its physical memory) on %s:%d",
                             static_cast<int>(shared.file.fd), static_cast<int>(shared.file.pid), vendorTable().name,
                             device);
    }
    void *p = nullptr;
    const char *call = nullptr;
    if ((rc = vendorTable().mem_address_reserve.call(&p, size, 0)) != 0) {
        call = vendorTable().mem_address_reserve.name;
    } else if ((rc = vendorTable().mem_map.call(p, size, native, static_cast<size_t>(shared.offset))) != 0) {
        call = vendorTable().mem_map.name;
        vendorTable().mem_address_free.call(p, size);
    } else if ((rc = vendorTable().mem_set_access.call(p, size, device, INFINIRT_MEM_ACCESS_READWRITE)) != 0) {
        call = vendorTable().mem_set_access.name;
        vendorTable().mem_unmap.call(p, size);
        vendorTable().mem_address_free.call(p, size);
    }
    vendorTable().mem_release.call(native); /* a mapping keeps the memory until it is unmapped */
    if (call != nullptr) {
        return nativeFailure(call, rc, "mapping %s of process %d's physical memory (offset %llu) on %s:%d",
                             common::formatBytes(size).c_str(), static_cast<int>(shared.file.pid),
                             static_cast<unsigned long long>(shared.offset), vendorTable().name, device);
    }
    ImportedMappings &im = imported();
    {
        std::lock_guard<std::mutex> lock(im.mutex);
        im.ranges[reinterpret_cast<uintptr_t>(p)] = size;
    }
    *ptr = p;
    return INFINI_STATUS_SUCCESS;
}

} // namespace

infiniStatus_t ipcGetMemHandle(int device, void *base, size_t size, void *mem, size_t mem_offset, void *payload,
                               size_t) {
    MemPayload p{};
    if (mem != nullptr) {
        const infiniStatus_t st = exportMapping(device, base, size, *static_cast<const PhysicalMemory *>(mem),
                                                mem_offset, p);
        if (st != INFINI_STATUS_SUCCESS) {
            return st;
        }
        std::memcpy(payload, &p, sizeof p);
        return INFINI_STATUS_SUCCESS;
    }
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().ipc_get_mem_handle.call(p.bytes, base)) {
        return nativeFailure(vendorTable().ipc_get_mem_handle.name, rc, "exporting %p (%s) of %s:%d", base,
                             common::formatBytes(size).c_str(), vendorTable().name, device);
    }
    std::memcpy(payload, &p, sizeof p);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t ipcOpenMemHandle(int device, const void *payload, size_t, size_t size, void **ptr) {
    MemPayload p{};
    std::memcpy(&p, payload, sizeof p);
    if ((p.kind != PayloadKind::VendorHandle && p.kind != PayloadKind::Descriptor) || p.reserved != 0) {
        return common::fail(INFINI_STATUS_BAD_PARAM,
                            "the handle's %s part names kind %u: not a %s memory handle of this version",
                            vendorTable().name, static_cast<unsigned>(p.kind), vendorTable().name);
    }
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    if (p.kind == PayloadKind::Descriptor) {
        SharedMapping shared{};
        std::memcpy(&shared, p.bytes, sizeof shared);
        return openMapping(device, shared, size, ptr);
    }
    void *at = nullptr;
    if (NativeStatus rc = vendorTable().ipc_open_mem_handle.call(&at, p.bytes)) {
        return nativeFailure(vendorTable().ipc_open_mem_handle.name, rc,
                             "opening %s of another process's memory on %s:%d (a handle made in this process cannot "
                             "be opened here)",
                             common::formatBytes(size).c_str(), vendorTable().name, device);
    }
    *ptr = at;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t ipcCloseMemHandle(int device, void *ptr, size_t size) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    ImportedMappings &im = imported();
    std::lock_guard<std::mutex> lock(im.mutex);
    auto it = im.ranges.find(reinterpret_cast<uintptr_t>(ptr));
    if (it != im.ranges.end()) {
        if (NativeStatus rc = vendorTable().mem_unmap.call(ptr, size)) {
            return nativeFailure(vendorTable().mem_unmap.name, rc, "unmapping %p + %s on %s:%d", ptr,
                                 common::formatBytes(size).c_str(), vendorTable().name, device);
        }
        im.ranges.erase(it);
        if (NativeStatus rc = vendorTable().mem_address_free.call(ptr, size)) {
            return nativeFailure(vendorTable().mem_address_free.name, rc, "freeing the range %p of %s:%d", ptr,
                                 vendorTable().name, device);
        }
        return INFINI_STATUS_SUCCESS;
    }
    if (NativeStatus rc = vendorTable().ipc_close_mem_handle.call(ptr)) {
        return nativeFailure(vendorTable().ipc_close_mem_handle.name, rc, "closing %p on %s:%d", ptr,
                             vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t ipcGetEventHandle(int device, void *event, void *payload, size_t) {
    Binding bound(device, vendorTable().handle_calls_need_binding);
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().ipc_get_event_handle.call(payload, static_cast<Event *>(event)->native)) {
        return nativeFailure(vendorTable().ipc_get_event_handle.name, rc, "exporting an event of %s:%d",
                             vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t ipcOpenEventHandle(int device, const void *payload, size_t, void **event) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    auto *e = new (std::nothrow) Event{};
    if (!e) {
        return common::fail(INFINI_STATUS_OUT_OF_MEMORY, "no host memory for an event of %s:%d", vendorTable().name,
                            device);
    }
    e->flags = INFINIRT_EVENT_INTERPROCESS | INFINIRT_EVENT_DISABLE_TIMING;
    if (NativeStatus rc = vendorTable().ipc_open_event_handle.call(&e->native, payload)) {
        delete e;
        return nativeFailure(vendorTable().ipc_open_event_handle.name, rc,
                             "opening another process's event on %s:%d (a handle made in this process cannot be "
                             "opened here)",
                             vendorTable().name, device);
    }
    *event = e;
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::gpu
