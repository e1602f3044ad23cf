/* hip_memory.cpp - allocation, copies, memsets: the vendor half of those entries, which the vendor
 * table calls: one native call each, types converted (the entries are gpu_common's,
 * gpu_memory.cpp). Over the runtime. */
#include "hip_backend.h"

namespace infinirt::hip {

NativeStatus nativeMallocDevice(void **p, size_t size) { return nativeApi().hipMalloc(p, size); }
NativeStatus nativeFreeDevice(void *p) { return nativeApi().hipFree(p); }
NativeStatus nativeMallocHost(void **p, size_t size) { return nativeApi().hipHostMalloc(p, size, hipHostMallocPortable); }
NativeStatus nativeFreeHost(void *p) { return nativeApi().hipHostFree(p); }
/* infinirtMemcpyKind_t and hipMemcpyKind share their values, DEFAULT included. */
NativeStatus nativeMemcpyAsync(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind, void *s) {
    return nativeApi().hipMemcpyAsync(dst, src, size, static_cast<hipMemcpyKind>(kind), streamOf(s));
}
NativeStatus nativeMemsetAsync(void *p, int value, size_t count, void *s) {
    return nativeApi().hipMemsetAsync(p, static_cast<unsigned char>(value), count, streamOf(s));
}
NativeStatus nativeMallocAsync(void **p, size_t size, void *s) { return nativeApi().hipMallocAsync(p, size, streamOf(s)); }
NativeStatus nativeFreeAsync(void *p, void *s) { return nativeApi().hipFreeAsync(p, streamOf(s)); }

} // namespace infinirt::hip
