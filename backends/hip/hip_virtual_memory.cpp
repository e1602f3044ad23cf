/* hip_virtual_memory.cpp - host registration and HIP's virtual memory management: the vendor half
 * of those entries (gpu_common's gpu_host_register.cpp and gpu_virtual_memory.cpp), one native
 * call each, types converted. Physical allocations are pinned device memory of one device;
 * shareable ones are exported and imported as POSIX file descriptors. */
#include "hip_backend.h"

namespace infinirt::hip {

namespace {
hipMemGenericAllocationHandle_t allocationOf(void *mem) { return static_cast<hipMemGenericAllocationHandle_t>(mem); }

MemAllocationProp deviceAllocation(int device, bool shareable) {
    MemAllocationProp prop{};
    prop.type = hipMemAllocationTypePinned;
    prop.requestedHandleType = shareable ? hipMemHandleTypePosixFileDescriptor : hipMemHandleTypeNone;
    prop.location.type = hipMemLocationTypeDevice;
    prop.location.id = device;
    return prop;
}

static_assert(INFINIRT_MEM_ACCESS_NONE == hipMemAccessFlagsProtNone && INFINIRT_MEM_ACCESS_READ == hipMemAccessFlagsProtRead &&
                  INFINIRT_MEM_ACCESS_READWRITE == hipMemAccessFlagsProtReadWrite,
              "infinirt's access values are HIP's");
hipMemAccessDesc accessOf(int device, unsigned access) {
    hipMemAccessDesc desc{};
    desc.location.type = hipMemLocationTypeDevice;
    desc.location.id = device;
    desc.flags = static_cast<hipMemAccessFlags>(access);
    return desc;
}
} // namespace

/* Portable: pinned for every device, as nativeMallocHost's memory is. */
NativeStatus nativeHostRegister(void *ptr, size_t size, bool read_only) {
    return nativeApi().hipHostRegister(ptr, size, kHostRegisterPortable | (read_only ? kHostRegisterReadOnly : 0u));
}
NativeStatus nativeHostUnregister(void *ptr) { return nativeApi().hipHostUnregister(ptr); }

NativeStatus nativeMemGranularity(size_t *granularity, int device, bool recommended) {
    const MemAllocationProp prop = deviceAllocation(device, false);
    return nativeApi().hipMemGetAllocationGranularity(
        granularity, &prop, recommended ? hipMemAllocationGranularityRecommended : hipMemAllocationGranularityMinimum);
}

NativeStatus nativeMemAddressReserve(void **ptr, size_t size, size_t alignment) {
    return nativeApi().hipMemAddressReserve(ptr, size, alignment, nullptr, 0);
}
NativeStatus nativeMemAddressFree(void *ptr, size_t size) { return nativeApi().hipMemAddressFree(ptr, size); }

NativeStatus nativeMemCreate(void **mem, int device, size_t size, bool shareable) {
    const MemAllocationProp prop = deviceAllocation(device, shareable);
    hipMemGenericAllocationHandle_t h = nullptr;
    const hipError_t rc = nativeApi().hipMemCreate(&h, size, &prop, 0);
    *mem = h;
    return rc;
}
NativeStatus nativeMemRelease(void *mem) { return nativeApi().hipMemRelease(allocationOf(mem)); }

NativeStatus nativeMemExport(int *fd, void *mem) {
    return nativeApi().hipMemExportToShareableHandle(fd, allocationOf(mem), hipMemHandleTypePosixFileDescriptor, 0);
}
/* The POSIX descriptor is passed as the handle's value, as HIP wants it. */
NativeStatus nativeMemImport(void **mem, int fd) {
    hipMemGenericAllocationHandle_t h = nullptr;
    const hipError_t rc = nativeApi().hipMemImportFromShareableHandle(
        &h, reinterpret_cast<void *>(static_cast<uintptr_t>(fd)), hipMemHandleTypePosixFileDescriptor);
    *mem = h;
    return rc;
}

NativeStatus nativeMemMap(void *ptr, size_t size, void *mem, size_t offset) {
    return nativeApi().hipMemMap(ptr, size, offset, allocationOf(mem), 0);
}
NativeStatus nativeMemUnmap(void *ptr, size_t size) { return nativeApi().hipMemUnmap(ptr, size); }

NativeStatus nativeMemSetAccess(void *ptr, size_t size, int device, unsigned access) {
    const hipMemAccessDesc desc = accessOf(device, access);
    return nativeApi().hipMemSetAccess(ptr, size, &desc, 1);
}

} // namespace infinirt::hip
