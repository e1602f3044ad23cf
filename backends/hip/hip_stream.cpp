/* hip_stream.cpp - streams: the vendor half of those entries, which the vendor table calls: one
 * native call each, types converted (the entries are gpu_common's, gpu_stream.cpp). hipStream_t
 * calls. */
#include "hip_backend.h"

namespace infinirt::hip {

NativeStatus nativeStreamCreate(void **s, unsigned flags) {
    return nativeApi().hipStreamCreateWithFlags(reinterpret_cast<hipStream_t *>(s), flags);
}
NativeStatus nativeStreamDestroy(void *s) { return nativeApi().hipStreamDestroy(streamOf(s)); }
NativeStatus nativeStreamSynchronize(void *s) { return nativeApi().hipStreamSynchronize(streamOf(s)); }
NativeStatus nativeStreamQuery(void *s) { return nativeApi().hipStreamQuery(streamOf(s)); }
NativeStatus nativeStreamWaitEvent(void *s, void *e) { return nativeApi().hipStreamWaitEvent(streamOf(s), eventOf(e), 0); }

} // namespace infinirt::hip
