/* hip_peer.cpp - the peer adapters of the vendor table: hipDeviceCanAccessPeer,
 * hipDeviceGetP2PAttribute, hipDeviceEnablePeerAccess/hipDeviceDisablePeerAccess (for the bound
 * device) and hipMemcpyPeerAsync. HIP names devices by ordinal (plugin index == HIP ordinal), so
 * the contexts are not used. Converted types only; the rules are gpu_common's (gpu_peer.cpp). */
#include "hip_backend.h"

namespace infinirt::hip {

NativeStatus canAccessPeer(int *can_access, int device, int peer) {
    return hip().hipDeviceCanAccessPeer(can_access, device, peer);
}
NativeStatus peerAttribute(int *value, int attr, int device, int peer) {
    return hip().hipDeviceGetP2PAttribute(value, static_cast<hipDeviceP2PAttr>(attr), device, peer);
}
NativeStatus enablePeerAccess(int peer, void *) { return hip().hipDeviceEnablePeerAccess(peer, 0); }
NativeStatus disablePeerAccess(int peer, void *) { return hip().hipDeviceDisablePeerAccess(peer); }
NativeStatus memcpyPeerAsync(void *dst, int dst_device, void *, const void *src, int src_device, void *, size_t size,
                             void *s) {
    return hip().hipMemcpyPeerAsync(dst, dst_device, src, src_device, size, static_cast<hipStream_t>(s));
}

} // namespace infinirt::hip
