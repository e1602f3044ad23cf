/* gpu_ipc.cpp - memory and events shared between processes: the plugin entries, for cuda over the
 * vendor table (gpu_vendor.h; cuda_ipc.cpp is the vendor half). The payload is the vendor's IPC
 * handle. Memory of malloc_device is shared; virtual memory is not (exporting a physical
 * allocation's POSIX file descriptor is not done). */
#include "gpu_backend.h"

#include <new>

namespace infinirt::gpu {

static_assert(kIpcHandleBytes <= sizeof(infinirtIpcMemHandle_t) - INFINIRT_PLUGIN_IPC_HEADER_BYTES,
              "the vendor's handle fits in the plugin's part of infinirt's");

infiniStatus_t ipcGetMemHandle(int device, void *base, size_t size, void *mem, size_t, void *payload, size_t) {
    if (mem != nullptr) {
        return common::fail(INFINI_STATUS_NOT_IMPLEMENTED,
                            "%p is virtual memory of %s:%d (%s mapped); sharing it would export the physical "
                            "allocation as a POSIX file descriptor, which this plugin does not do: share "
                            "infinirtMalloc memory",
                            base, vendorTable().name, device, common::formatBytes(size).c_str());
    }
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().ipc_get_mem_handle.call(payload, base)) {
        return nativeFailure(vendorTable().ipc_get_mem_handle.name, rc, "exporting %p (%s) of %s:%d", base,
                             common::formatBytes(size).c_str(), vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t ipcOpenMemHandle(int device, const void *payload, size_t, size_t size, void **ptr) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    void *p = nullptr;
    if (NativeStatus rc = vendorTable().ipc_open_mem_handle.call(&p, payload)) {
        return nativeFailure(vendorTable().ipc_open_mem_handle.name, rc,
                             "opening %s of another process's memory on %s:%d (a handle made in this process cannot "
                             "be opened here)",
                             common::formatBytes(size).c_str(), vendorTable().name, device);
    }
    *ptr = p;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t ipcCloseMemHandle(int device, void *ptr, size_t) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
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
