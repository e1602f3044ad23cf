// skeleton_peer.cpp - peers: access between two devices of the backend and copies between them
// (contracts in skeleton_backend.h). Until a vendor fills them each answers NOT_IMPLEMENTED,
// naming itself. A backend whose devices cannot reach each other leaves memcpy_peer_async and
// stream_wait_peer_event out of its table instead (the loader then stages copies through host
// memory and waits for other devices' events on the host), as opencl does.
#include "skeleton_backend.h"

namespace infinirt::skeleton {

infiniStatus_t deviceCanAccessPeer(int, int, int *) { return notImplemented("device_can_access_peer"); }

infiniStatus_t deviceGetPeerAttribute(int, int, infinirtPeerAttribute_t, int *) {
    return notImplemented("device_get_peer_attribute");
}

infiniStatus_t deviceEnablePeerAccess(int, int) { return notImplemented("device_enable_peer_access"); }

infiniStatus_t deviceDisablePeerAccess(int, int) { return notImplemented("device_disable_peer_access"); }

infiniStatus_t memcpyPeerAsync(int, void *, int, const void *, size_t, int, void *) {
    return notImplemented("memcpy_peer_async");
}

infiniStatus_t streamWaitPeerEvent(int, void *, int, void *) { return notImplemented("stream_wait_peer_event"); }

} // namespace infinirt::skeleton
