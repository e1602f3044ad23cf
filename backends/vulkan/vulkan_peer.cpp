// Peers: every device has its own VkDevice, and a buffer of one VkDevice cannot be used by
// another (device groups aside, which this plugin does not form), so no device can access another's
// memory. The table leaves memcpy_peer_async and stream_wait_peer_event NULL: the loader stages
// copies between two devices through pinned host memory and waits on the host for an event of
// another device.
#include "vulkan_backend.h"

namespace infinirt::vulkan {

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
                        "device_enable_peer_access: vulkan:%d cannot access vulkan:%d: each device has its own "
                        "VkDevice, and a buffer of one is not usable by another",
                        device, peer);
}

infiniStatus_t deviceDisablePeerAccess(int device, int peer) {
    return common::fail(INFINI_STATUS_BAD_PARAM,
                        "device_disable_peer_access: access of vulkan:%d to vulkan:%d is not enabled (it cannot be)",
                        device, peer);
}

} // namespace infinirt::vulkan
