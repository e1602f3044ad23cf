/* hip_event.cpp - events: the vendor half of those entries, which the vendor table calls: one
 * native call each, types converted (the entries are gpu_common's, gpu_event.cpp). hipEvent_t
 * calls; HIP 5.2 has no hipEventRecordWithFlags, so there is no capture-time record. */
#include "hip_backend.h"

namespace infinirt::hip {

NativeStatus nativeEventCreate(void **e, unsigned flags) {
    return nativeApi().hipEventCreateWithFlags(reinterpret_cast<hipEvent_t *>(e), flags);
}
NativeStatus nativeEventDestroy(void *e) { return nativeApi().hipEventDestroy(eventOf(e)); }
NativeStatus nativeEventRecord(void *e, void *s) { return nativeApi().hipEventRecord(eventOf(e), streamOf(s)); }
NativeStatus nativeEventQuery(void *e) { return nativeApi().hipEventQuery(eventOf(e)); }
NativeStatus nativeEventSynchronize(void *e) { return nativeApi().hipEventSynchronize(eventOf(e)); }
NativeStatus nativeEventElapsedTime(float *ms, void *start, void *end) {
    return nativeApi().hipEventElapsedTime(ms, eventOf(start), eventOf(end));
}

} // namespace infinirt::hip
