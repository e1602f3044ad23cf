/* cuda_peer.cpp - the peer adapters of the vendor table: cuDeviceCanAccessPeer,
 * cuDeviceGetP2PAttribute, cuCtxEnablePeerAccess/cuCtxDisablePeerAccess (over the bound primary
 * context, naming the peer's primary context) and cuMemcpyPeerAsync between primary contexts.
 * Converted types only; the rules are gpu_common's (gpu_peer.cpp). */
#include "cuda_backend.h"

namespace infinirt::cuda {

NativeStatus canAccessPeer(int *can_access, int device, int peer) {
    return driver().cuDeviceCanAccessPeer(can_access, nativeDevice(device), nativeDevice(peer));
}
NativeStatus peerAttribute(int *value, int attr, int device, int peer) {
    return driver().cuDeviceGetP2PAttribute(value, static_cast<CUdevice_P2PAttribute>(attr), nativeDevice(device),
                                            nativeDevice(peer));
}
NativeStatus enablePeerAccess(int, void *peer_context) {
    return driver().cuCtxEnablePeerAccess(static_cast<CUcontext>(peer_context), 0);
}
NativeStatus disablePeerAccess(int, void *peer_context) {
    return driver().cuCtxDisablePeerAccess(static_cast<CUcontext>(peer_context));
}
NativeStatus memcpyPeerAsync(void *dst, int, void *dst_context, const void *src, int, void *src_context, size_t size,
                             void *s) {
    return driver().cuMemcpyPeerAsync(devicePointer(dst), static_cast<CUcontext>(dst_context), devicePointer(src),
                                      static_cast<CUcontext>(src_context), size, streamOf(s));
}

} // namespace infinirt::cuda
