/* cuda_stream.cpp - the stream adapters of the vendor table: CUstream calls, converted types only
 * (the stream rules are gpu_common's, gpu_stream.cpp). */
#include "cuda_backend.h"

namespace infinirt::cuda {

NativeStatus streamCreate(void **s, unsigned flags) {
    return driver().cuStreamCreate(reinterpret_cast<CUstream *>(s), flags);
}
NativeStatus streamDestroy(void *s) { return driver().cuStreamDestroy(streamOf(s)); }
NativeStatus streamSynchronize(void *s) { return driver().cuStreamSynchronize(streamOf(s)); }
NativeStatus streamQuery(void *s) { return driver().cuStreamQuery(streamOf(s)); }
NativeStatus streamWaitEvent(void *s, void *e) { return driver().cuStreamWaitEvent(streamOf(s), eventOf(e), 0); }
NativeStatus streamWaitEventInCapture(void *s, void *e) {
    return driver().cuStreamWaitEvent(streamOf(s), eventOf(e), CU_EVENT_WAIT_EXTERNAL);
}
NativeStatus streamIsCapturing(void *s, bool *capturing) {
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    CUresult rc = driver().cuStreamIsCapturing(streamOf(s), &status);
    *capturing = status == CU_STREAM_CAPTURE_STATUS_ACTIVE;
    return rc;
}

} // namespace infinirt::cuda
