/* gpu_peer.cpp - peers: access between two devices of the plugin and copies between them, over the
 * vendor's peer entries (CUDA: cuDeviceCanAccessPeer, cuDeviceGetP2PAttribute,
 * cuCtxEnablePeerAccess, cuMemcpyPeerAsync; HIP: the hip* equivalents). */
#include "gpu_backend.h"

namespace infinirt::gpu {

namespace {
/* The native context of a device (retained on first use), for the vendor's peer calls. */
infiniStatus_t contextOf(int device, void **context) { return vendorTable().device_get_native_context(device, context); }

/* Calls `entry` (enable or disable) for device's access to peer, over device's context; *rc is
 * the native answer, for the caller to judge. */
infiniStatus_t changeAccess(int device, int peer, const Entry<NativeStatus (*)(int, void *)> &entry, NativeStatus *rc) {
    void *peer_context = nullptr;
    if (infiniStatus_t st = contextOf(peer, &peer_context)) {
        return st;
    }
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    *rc = entry.call(peer, peer_context);
    return INFINI_STATUS_SUCCESS;
}
} // namespace

infiniStatus_t deviceCanAccessPeer(int device, int peer, int *can_access) {
    int value = 0;
    if (NativeStatus rc = vendorTable().can_access_peer.call(&value, device, peer)) {
        return nativeFailure(vendorTable().can_access_peer.name, rc, "asking whether %s:%d can access %s:%d", vendorTable().name,
                             device, vendorTable().name, peer);
    }
    *can_access = value;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t deviceGetPeerAttribute(int device, int peer, infinirtPeerAttribute_t attr, int *value) {
    int native = 0;
    switch (attr) {
    case INFINIRT_PEER_ATTR_ACCESS_SUPPORTED: native = vendorTable().p2p_attr_access_supported; break;
    case INFINIRT_PEER_ATTR_NATIVE_ATOMICS_SUPPORTED: native = vendorTable().p2p_attr_native_atomics; break;
    case INFINIRT_PEER_ATTR_PERFORMANCE_RANK: native = vendorTable().p2p_attr_performance_rank; break;
    case INFINIRT_PEER_ATTR_COPY_WITHOUT_STAGING:
        /* Direct over the link once access is enabled; the driver stages otherwise. */
        return deviceCanAccessPeer(device, peer, value);
    }
    int out = 0;
    if (NativeStatus rc = vendorTable().peer_attribute.call(&out, native, device, peer)) {
        return nativeFailure(vendorTable().peer_attribute.name, rc, "reading peer attribute %d of %s:%d -> %s:%d",
                             static_cast<int>(attr), vendorTable().name, device, vendorTable().name, peer);
    }
    *value = out;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t deviceEnablePeerAccess(int device, int peer) {
    int can = 0;
    if (infiniStatus_t st = deviceCanAccessPeer(device, peer, &can)) {
        return st;
    }
    if (!can) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "%s:%d cannot access %s:%d (%s answers 0)", vendorTable().name, device,
                            vendorTable().name, peer, vendorTable().can_access_peer.name);
    }
    NativeStatus rc = 0;
    if (infiniStatus_t st = changeAccess(device, peer, vendorTable().enable_peer_access, &rc)) {
        return st;
    }
    if (rc != 0 && rc != vendorTable().peer_already_enabled) {
        return nativeFailure(vendorTable().enable_peer_access.name, rc, "enabling access of %s:%d to %s:%d", vendorTable().name, device,
                             vendorTable().name, peer);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t deviceDisablePeerAccess(int device, int peer) {
    NativeStatus rc = 0;
    if (infiniStatus_t st = changeAccess(device, peer, vendorTable().disable_peer_access, &rc)) {
        return st;
    }
    if (rc == vendorTable().peer_not_enabled) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "%s failed: %s (%d): access of %s:%d to %s:%d is not enabled",
                            vendorTable().disable_peer_access.name, vendorTable().error_name(rc), rc, vendorTable().name, device, vendorTable().name,
                            peer);
    }
    if (rc != 0) {
        return nativeFailure(vendorTable().disable_peer_access.name, rc, "disabling access of %s:%d to %s:%d", vendorTable().name,
                             device, vendorTable().name, peer);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memcpyPeerAsync(int dst_device, void *dst, int src_device, const void *src, size_t size,
                               int stream_device, void *stream) {
    void *dst_context = nullptr;
    void *src_context = nullptr;
    if (infiniStatus_t st = contextOf(dst_device, &dst_context)) {
        return st;
    }
    if (infiniStatus_t st = contextOf(src_device, &src_context)) {
        return st;
    }
    Binding bound(stream_device, needsBinding(stream));
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().memcpy_peer_async.call(dst, dst_device, dst_context, src, src_device, src_context,
                                                       size, nativeStream(stream))) {
        return nativeFailure(vendorTable().memcpy_peer_async.name, rc, "copying %s from %s:%d to %s:%d",
                             common::formatBytes(size).c_str(), vendorTable().name, src_device, vendorTable().name, dst_device);
    }
    return INFINI_STATUS_SUCCESS;
}

/* The native wait takes an event of any context of the process (cuStreamWaitEvent, hipStreamWaitEvent):
 * the same call as for the stream's own device, a device-side wait. */
infiniStatus_t streamWaitPeerEvent(int device, void *stream, int, void *event) {
    return streamWaitEvent(device, stream, event);
}

} // namespace infinirt::gpu
