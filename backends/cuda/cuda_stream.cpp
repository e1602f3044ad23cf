/* cuda_stream.cpp - streams: the vendor half of those entries, which the vendor table calls: one
 * native call each, types converted (the entries are gpu_common's, gpu_stream.cpp). CUstream
 * calls. */
#include "cuda_backend.h"

namespace infinirt::cuda {

NativeStatus nativeStreamCreate(void **s, unsigned flags) {
    return nativeApi().cuStreamCreate(reinterpret_cast<CUstream *>(s), flags);
}
NativeStatus nativeStreamCreateWithPriority(void **s, unsigned flags, int priority) {
    return nativeApi().cuStreamCreateWithPriority(reinterpret_cast<CUstream *>(s), flags, priority);
}
NativeStatus nativeStreamDestroy(void *s) { return nativeApi().cuStreamDestroy(streamOf(s)); }
NativeStatus nativeStreamSynchronize(void *s) { return nativeApi().cuStreamSynchronize(streamOf(s)); }
NativeStatus nativeStreamQuery(void *s) { return nativeApi().cuStreamQuery(streamOf(s)); }
NativeStatus nativeStreamWaitEvent(void *s, void *e) { return nativeApi().cuStreamWaitEvent(streamOf(s), eventOf(e), 0); }
NativeStatus nativeStreamWaitEventInCapture(void *s, void *e) {
    return nativeApi().cuStreamWaitEvent(streamOf(s), eventOf(e), CU_EVENT_WAIT_EXTERNAL);
}
NativeStatus nativeStreamIsCapturing(void *s, bool *capturing) {
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    CUresult rc = nativeApi().cuStreamIsCapturing(streamOf(s), &status);
    *capturing = status == CU_STREAM_CAPTURE_STATUS_ACTIVE;
    return rc;
}

} // namespace infinirt::cuda
