/* cuda_event.cpp - events: the vendor half of those entries, which the vendor table calls: one
 * native call each, types converted (the entries are gpu_common's, gpu_event.cpp). CUevent calls. */
#include "cuda_backend.h"

namespace infinirt::cuda {

NativeStatus nativeEventCreate(void **e, unsigned flags) {
    return nativeApi().cuEventCreate(reinterpret_cast<CUevent *>(e), flags);
}
NativeStatus nativeEventDestroy(void *e) { return nativeApi().cuEventDestroy(eventOf(e)); }
NativeStatus nativeEventRecord(void *e, void *s) { return nativeApi().cuEventRecord(eventOf(e), streamOf(s)); }
/* An event-record node of the graph being captured, so that every launch records the event. */
NativeStatus nativeEventRecordInCapture(void *e, void *s) {
    return nativeApi().cuEventRecordWithFlags(eventOf(e), streamOf(s), CU_EVENT_RECORD_EXTERNAL);
}
NativeStatus nativeEventQuery(void *e) { return nativeApi().cuEventQuery(eventOf(e)); }
NativeStatus nativeEventSynchronize(void *e) { return nativeApi().cuEventSynchronize(eventOf(e)); }
NativeStatus nativeEventElapsedTime(float *ms, void *start, void *end) {
    return nativeApi().cuEventElapsedTime(ms, eventOf(start), eventOf(end));
}

} // namespace infinirt::cuda
