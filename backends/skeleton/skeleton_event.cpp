// skeleton_event.cpp - events: the entries a vendor fills with its event API (contracts in
// skeleton_backend.h). Until then each answers NOT_IMPLEMENTED, naming itself.
#include "skeleton_backend.h"

namespace infinirt::skeleton {

infiniStatus_t eventCreate(int, uint32_t, void **) { return notImplemented("event_create"); }

infiniStatus_t eventDestroy(int, void *) { return notImplemented("event_destroy"); }

infiniStatus_t eventRecord(int, void *, void *) { return notImplemented("event_record"); }

infiniStatus_t eventQuery(int, void *, infinirtEventStatus_t *) { return notImplemented("event_query"); }

infiniStatus_t eventSynchronize(int, void *) { return notImplemented("event_synchronize"); }

infiniStatus_t eventElapsedTime(int, float *, void *, void *) { return notImplemented("event_elapsed_time"); }

} // namespace infinirt::skeleton
