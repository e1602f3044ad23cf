// Peers: every device has a context of its own (opencl_device.h), and SVM memory of one context
// is not memory of another, so no device can access another's memory. The entries say so; the
// table leaves memcpy_peer_async and stream_wait_peer_event NULL, so the loader stages copies
// between two devices through host memory and waits on the host for an event of another device
// (a cl_event of another context cannot be in a queue's wait list).
#include "opencl_backend.h"

namespace infinirt::opencl {

// No device can access another's memory (one context per device; SVM is per context): access 0,
// every attribute 0, enabling refused with BAD_PARAM. memcpy_peer_async and
// stream_wait_peer_event are left NULL: the loader stages copies and waits on the host.
infiniStatus_t deviceCanAccessPeer(int, int, int *can_access) {
    *can_access = 0;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t deviceGetPeerAttribute(int, int, infinirtPeerAttribute_t, int *value) {
    *value = 0; // no access, no atomics, staged copies, no link to rank
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t deviceEnablePeerAccess(int device, int peer) {
    return common::fail(INFINI_STATUS_BAD_PARAM,
                        "device_enable_peer_access: opencl:%d cannot access opencl:%d: each device has its own context "
                        "and SVM memory is not shared between contexts",
                        device, peer);
}

infiniStatus_t deviceDisablePeerAccess(int device, int peer) {
    return common::fail(INFINI_STATUS_BAD_PARAM,
                        "device_disable_peer_access: access of opencl:%d to opencl:%d is not enabled (it cannot be)",
                        device, peer);
}

} // namespace infinirt::opencl
