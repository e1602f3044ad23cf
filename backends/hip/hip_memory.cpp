/* hip_memory.cpp - the memory adapters of the vendor table: allocations, copies and memsets over
 * the runtime, converted types only (the rules are gpu_common's, gpu_memory.cpp). */
#include "hip_backend.h"

namespace infinirt::hip {

NativeStatus mallocDevice(void **p, size_t size) { return hip().hipMalloc(p, size); }
NativeStatus freeDevice(void *p) { return hip().hipFree(p); }
NativeStatus mallocHost(void **p, size_t size) { return hip().hipHostMalloc(p, size, hipHostMallocPortable); }
NativeStatus freeHost(void *p) { return hip().hipHostFree(p); }
/* infinirtMemcpyKind_t and hipMemcpyKind share their values, DEFAULT included. */
NativeStatus memcpyAsync(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind, void *s) {
    return hip().hipMemcpyAsync(dst, src, size, static_cast<hipMemcpyKind>(kind), streamOf(s));
}
NativeStatus memsetAsync(void *p, int value, size_t count, void *s) {
    return hip().hipMemsetAsync(p, static_cast<unsigned char>(value), count, streamOf(s));
}
NativeStatus mallocAsync(void **p, size_t size, void *s) { return hip().hipMallocAsync(p, size, streamOf(s)); }
NativeStatus freeAsync(void *p, void *s) { return hip().hipFreeAsync(p, streamOf(s)); }

} // namespace infinirt::hip
