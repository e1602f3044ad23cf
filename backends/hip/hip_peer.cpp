/* hip_peer.cpp - the peer converters of the vendor table: hipDeviceCanAccessPeer,
 * hipDeviceGetP2PAttribute, hipDeviceEnablePeerAccess/hipDeviceDisablePeerAccess (for the bound
 * device) and hipMemcpyPeerAsync. HIP names devices by ordinal (plugin index == HIP ordinal), so
 * the contexts are not used. Converted types only; the rules are gpu_common's (gpu_peer.cpp). */
#include "hip_backend.h"

namespace infinirt::hip {

NativeStatus nativeCanAccessPeer(int *can_access, int device, int peer) {
    return nativeApi().hipDeviceCanAccessPeer(can_access, device, peer);
}
NativeStatus nativePeerAttribute(int *value, int attr, int device, int peer) {
    return nativeApi().hipDeviceGetP2PAttribute(value, static_cast<hipDeviceP2PAttr>(attr), device, peer);
}
NativeStatus nativeEnablePeerAccess(int peer, void *) { return nativeApi().hipDeviceEnablePeerAccess(peer, 0); }
NativeStatus nativeDisablePeerAccess(int peer, void *) { return nativeApi().hipDeviceDisablePeerAccess(peer); }
NativeStatus nativeMemcpyPeerAsync(void *dst, int dst_device, void *, const void *src, int src_device, void *, size_t size,
                             void *s) {
    return nativeApi().hipMemcpyPeerAsync(dst, dst_device, src, src_device, size, static_cast<hipStream_t>(s));
}

} // namespace infinirt::hip
