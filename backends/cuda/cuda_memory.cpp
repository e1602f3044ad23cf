/* cuda_memory.cpp - the memory adapters of the vendor table: allocations, copies and memsets over
 * the driver, converted types only (void* <-> CUdeviceptr; the rules are gpu_common's,
 * gpu_memory.cpp). */
#include "cuda_backend.h"

namespace infinirt::cuda {

NativeStatus mallocDevice(void **p, size_t size) {
    CUdeviceptr d = 0;
    CUresult rc = driver().cuMemAlloc(&d, size);
    *p = reinterpret_cast<void *>(static_cast<uintptr_t>(d));
    return rc;
}
NativeStatus freeDevice(void *p) { return driver().cuMemFree(devicePointer(p)); }
/* PORTABLE: pinned for every context, so copies with any device are asynchronous. */
NativeStatus mallocHost(void **p, size_t size) { return driver().cuMemHostAlloc(p, size, CU_MEMHOSTALLOC_PORTABLE); }
NativeStatus freeHost(void *p) { return driver().cuMemFreeHost(p); }
/* Unified addressing tells the driver each pointer's side: one call serves every kind. */
NativeStatus memcpyAsync(void *dst, const void *src, size_t size, infinirtMemcpyKind_t, void *s) {
    return driver().cuMemcpyAsync(devicePointer(dst), devicePointer(src), size, streamOf(s));
}
NativeStatus memsetAsync(void *p, int value, size_t count, void *s) {
    return driver().cuMemsetD8Async(devicePointer(p), static_cast<unsigned char>(value), count, streamOf(s));
}
NativeStatus mallocAsync(void **p, size_t size, void *s) {
    CUdeviceptr d = 0;
    CUresult rc = driver().cuMemAllocAsync(&d, size, streamOf(s));
    *p = reinterpret_cast<void *>(static_cast<uintptr_t>(d));
    return rc;
}
NativeStatus freeAsync(void *p, void *s) { return driver().cuMemFreeAsync(devicePointer(p), streamOf(s)); }

} // namespace infinirt::cuda
