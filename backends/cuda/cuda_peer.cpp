/* cuda_peer.cpp - the peer converters of the vendor table: cuDeviceCanAccessPeer,
 * cuDeviceGetP2PAttribute, cuCtxEnablePeerAccess/cuCtxDisablePeerAccess (over the bound primary
 * context, naming the peer's primary context) and cuMemcpyPeerAsync between primary contexts.
 * Converted types only; the rules are gpu_common's (gpu_peer.cpp). */
#include "cuda_backend.h"

namespace infinirt::cuda {

NativeStatus nativeCanAccessPeer(int *can_access, int device, int peer) {
    return nativeApi().cuDeviceCanAccessPeer(can_access, nativeDevice(device), nativeDevice(peer));
}
NativeStatus nativePeerAttribute(int *value, int attr, int device, int peer) {
    return nativeApi().cuDeviceGetP2PAttribute(value, static_cast<CUdevice_P2PAttribute>(attr), nativeDevice(device),
                                            nativeDevice(peer));
}
NativeStatus nativeEnablePeerAccess(int, void *peer_context) {
    return nativeApi().cuCtxEnablePeerAccess(static_cast<CUcontext>(peer_context), 0);
}
NativeStatus nativeDisablePeerAccess(int, void *peer_context) {
    return nativeApi().cuCtxDisablePeerAccess(static_cast<CUcontext>(peer_context));
}
NativeStatus nativeMemcpyPeerAsync(void *dst, int, void *dst_context, const void *src, int, void *src_context, size_t size,
                             void *s) {
    return nativeApi().cuMemcpyPeerAsync(devicePointer(dst), static_cast<CUcontext>(dst_context), devicePointer(src),
                                      static_cast<CUcontext>(src_context), size, streamOf(s));
}

} // namespace infinirt::cuda
