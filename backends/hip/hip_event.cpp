/* hip_event.cpp - the event adapters of the vendor table: hipEvent_t calls, converted types only
 * (the event rules are gpu_common's, gpu_event.cpp). HIP 5.2 has no hipEventRecordWithFlags, so
 * there is no capture-time record adapter: a recording during capture keeps HIP's meaning. */
#include "hip_backend.h"

namespace infinirt::hip {

NativeStatus eventCreate(void **e, unsigned flags) {
    return hip().hipEventCreateWithFlags(reinterpret_cast<hipEvent_t *>(e), flags);
}
NativeStatus eventDestroy(void *e) { return hip().hipEventDestroy(eventOf(e)); }
NativeStatus eventRecord(void *e, void *s) { return hip().hipEventRecord(eventOf(e), streamOf(s)); }
NativeStatus eventQuery(void *e) { return hip().hipEventQuery(eventOf(e)); }
NativeStatus eventSynchronize(void *e) { return hip().hipEventSynchronize(eventOf(e)); }
NativeStatus eventElapsedTime(float *ms, void *start, void *end) {
    return hip().hipEventElapsedTime(ms, eventOf(start), eventOf(end));
}

} // namespace infinirt::hip
