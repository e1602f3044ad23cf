/* cuda_virtual_memory.cpp - host registration and the VMM driver API: the vendor half of those
 * entries (gpu_common's gpu_host_register.cpp and gpu_virtual_memory.cpp), one native call each,
 * types converted. Physical allocations are pinned device memory of one device; shareable ones
 * are exported and imported as POSIX file descriptors. */
#include "cuda_backend.h"

namespace infinirt::cuda {

namespace {
CUmemGenericAllocationHandle allocationOf(void *mem) {
    return static_cast<CUmemGenericAllocationHandle>(reinterpret_cast<uintptr_t>(mem));
}

CUmemAllocationProp deviceAllocation(int device, bool shareable) {
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = static_cast<int>(nativeDevice(device));
    prop.requestedHandleTypes = shareable ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR : CU_MEM_HANDLE_TYPE_NONE;
    return prop;
}

CUmemAccessDesc accessOf(int device, unsigned access) {
    CUmemAccessDesc desc{};
    desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    desc.location.id = static_cast<int>(nativeDevice(device));
    desc.flags = access == INFINIRT_MEM_ACCESS_READWRITE ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE
                 : access == INFINIRT_MEM_ACCESS_READ    ? CU_MEM_ACCESS_FLAGS_PROT_READ
                                                         : CU_MEM_ACCESS_FLAGS_PROT_NONE;
    return desc;
}
} // namespace

/* PORTABLE: pinned for every context, as nativeMallocHost's memory is. */
NativeStatus nativeHostRegister(void *ptr, size_t size, bool read_only) {
    return nativeApi().cuMemHostRegister(ptr, size,
                                         CU_MEMHOSTREGISTER_PORTABLE | (read_only ? CU_MEMHOSTREGISTER_READ_ONLY : 0u));
}
NativeStatus nativeHostUnregister(void *ptr) { return nativeApi().cuMemHostUnregister(ptr); }

NativeStatus nativeMemGranularity(size_t *granularity, int device, bool recommended) {
    const CUmemAllocationProp prop = deviceAllocation(device, false);
    return nativeApi().cuMemGetAllocationGranularity(
        granularity, &prop, recommended ? CU_MEM_ALLOC_GRANULARITY_RECOMMENDED : CU_MEM_ALLOC_GRANULARITY_MINIMUM);
}

NativeStatus nativeMemAddressReserve(void **ptr, size_t size, size_t alignment) {
    CUdeviceptr d = 0;
    CUresult rc = nativeApi().cuMemAddressReserve(&d, size, alignment, 0, 0);
    *ptr = reinterpret_cast<void *>(static_cast<uintptr_t>(d));
    return rc;
}
NativeStatus nativeMemAddressFree(void *ptr, size_t size) { return nativeApi().cuMemAddressFree(devicePointer(ptr), size); }

NativeStatus nativeMemCreate(void **mem, int device, size_t size, bool shareable) {
    const CUmemAllocationProp prop = deviceAllocation(device, shareable);
    CUmemGenericAllocationHandle h = 0;
    CUresult rc = nativeApi().cuMemCreate(&h, size, &prop, 0);
    *mem = reinterpret_cast<void *>(static_cast<uintptr_t>(h));
    return rc;
}
NativeStatus nativeMemRelease(void *mem) { return nativeApi().cuMemRelease(allocationOf(mem)); }

NativeStatus nativeMemExport(int *fd, void *mem) {
    return nativeApi().cuMemExportToShareableHandle(fd, allocationOf(mem), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
}
/* The POSIX descriptor is passed as the handle's value, as CUDA wants it. */
NativeStatus nativeMemImport(void **mem, int fd) {
    CUmemGenericAllocationHandle h = 0;
    const CUresult rc = nativeApi().cuMemImportFromShareableHandle(
        &h, reinterpret_cast<void *>(static_cast<uintptr_t>(fd)), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    *mem = reinterpret_cast<void *>(static_cast<uintptr_t>(h));
    return rc;
}

NativeStatus nativeMemMap(void *ptr, size_t size, void *mem, size_t offset) {
    return nativeApi().cuMemMap(devicePointer(ptr), size, offset, allocationOf(mem), 0);
}
NativeStatus nativeMemUnmap(void *ptr, size_t size) { return nativeApi().cuMemUnmap(devicePointer(ptr), size); }

NativeStatus nativeMemSetAccess(void *ptr, size_t size, int device, unsigned access) {
    const CUmemAccessDesc desc = accessOf(device, access);
    return nativeApi().cuMemSetAccess(devicePointer(ptr), size, &desc, 1);
}

} // namespace infinirt::cuda
