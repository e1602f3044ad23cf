/* hip_stream.cpp - the stream adapters of the vendor table: hipStream_t calls, converted types
 * only (the stream rules are gpu_common's, gpu_stream.cpp). */
#include "hip_backend.h"

namespace infinirt::hip {

NativeStatus streamCreate(void **s, unsigned flags) {
    return hip().hipStreamCreateWithFlags(reinterpret_cast<hipStream_t *>(s), flags);
}
NativeStatus streamDestroy(void *s) { return hip().hipStreamDestroy(streamOf(s)); }
NativeStatus streamSynchronize(void *s) { return hip().hipStreamSynchronize(streamOf(s)); }
NativeStatus streamQuery(void *s) { return hip().hipStreamQuery(streamOf(s)); }
NativeStatus streamWaitEvent(void *s, void *e) { return hip().hipStreamWaitEvent(streamOf(s), eventOf(e), 0); }

} // namespace infinirt::hip
