/* cuda_event.cpp - the event adapters of the vendor table: CUevent calls, converted types only
 * (the event rules are gpu_common's, gpu_event.cpp). */
#include "cuda_backend.h"

namespace infinirt::cuda {

NativeStatus eventCreate(void **e, unsigned flags) {
    return driver().cuEventCreate(reinterpret_cast<CUevent *>(e), flags);
}
NativeStatus eventDestroy(void *e) { return driver().cuEventDestroy(eventOf(e)); }
NativeStatus eventRecord(void *e, void *s) { return driver().cuEventRecord(eventOf(e), streamOf(s)); }
/* An event-record node of the graph being captured, so that every launch records the event. */
NativeStatus eventRecordInCapture(void *e, void *s) {
    return driver().cuEventRecordWithFlags(eventOf(e), streamOf(s), CU_EVENT_RECORD_EXTERNAL);
}
NativeStatus eventQuery(void *e) { return driver().cuEventQuery(eventOf(e)); }
NativeStatus eventSynchronize(void *e) { return driver().cuEventSynchronize(eventOf(e)); }
NativeStatus eventElapsedTime(float *ms, void *start, void *end) {
    return driver().cuEventElapsedTime(ms, eventOf(start), eventOf(end));
}

} // namespace infinirt::cuda
