// skeleton_stream.cpp - streams: the entries a vendor fills with its queue API (contracts in
// skeleton_backend.h). Until then each answers NOT_IMPLEMENTED, naming itself.
#include "skeleton_backend.h"

namespace infinirt::skeleton {

infiniStatus_t streamCreate(int, void **) { return notImplemented("stream_create"); }

infiniStatus_t streamDestroy(int, void *) { return notImplemented("stream_destroy"); }

infiniStatus_t streamSynchronize(int, void *) { return notImplemented("stream_synchronize"); }

infiniStatus_t streamQuery(int, void *) { return notImplemented("stream_query"); }

infiniStatus_t streamWaitEvent(int, void *, void *) { return notImplemented("stream_wait_event"); }

} // namespace infinirt::skeleton
