/* cuda_memory.cpp - allocation, copies, memsets: the vendor half of those entries, which the
 * vendor table calls: one native call each, types converted (the entries are gpu_common's,
 * gpu_memory.cpp). Over the driver; void* <-> CUdeviceptr. */
#include "cuda_backend.h"

namespace infinirt::cuda {

NativeStatus nativeMallocDevice(void **p, size_t size) {
    CUdeviceptr d = 0;
    CUresult rc = nativeApi().cuMemAlloc(&d, size);
    *p = reinterpret_cast<void *>(static_cast<uintptr_t>(d));
    return rc;
}
NativeStatus nativeFreeDevice(void *p) { return nativeApi().cuMemFree(devicePointer(p)); }
/* PORTABLE: pinned for every context, so copies with any device are asynchronous. */
NativeStatus nativeMallocHost(void **p, size_t size) { return nativeApi().cuMemHostAlloc(p, size, CU_MEMHOSTALLOC_PORTABLE); }
NativeStatus nativeFreeHost(void *p) { return nativeApi().cuMemFreeHost(p); }
/* Unified addressing tells the driver each pointer's side: one call serves every kind. */
NativeStatus nativeMemcpyAsync(void *dst, const void *src, size_t size, infinirtMemcpyKind_t, void *s) {
    return nativeApi().cuMemcpyAsync(devicePointer(dst), devicePointer(src), size, streamOf(s));
}
NativeStatus nativeMemsetAsync(void *p, int value, size_t count, void *s) {
    return nativeApi().cuMemsetD8Async(devicePointer(p), static_cast<unsigned char>(value), count, streamOf(s));
}
NativeStatus nativeMallocAsync(void **p, size_t size, void *s) {
    CUdeviceptr d = 0;
    CUresult rc = nativeApi().cuMemAllocAsync(&d, size, streamOf(s));
    *p = reinterpret_cast<void *>(static_cast<uintptr_t>(d));
    return rc;
}
NativeStatus nativeFreeAsync(void *p, void *s) { return nativeApi().cuMemFreeAsync(devicePointer(p), streamOf(s)); }

} // namespace infinirt::cuda
