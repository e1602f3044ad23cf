// Choosing the path of a copy between two devices (peer.h).
#include "peer.h"

namespace infinirt {

infiniStatus_t peerCopySync(void *dst, const PeerEnd &d, const void *src, const PeerEnd &s, size_t size) {
    if (d == s) {
        return INFINIRT_CALL(s.backend, memcpy_sync, s.id, s.id, dst, src, size, INFINIRT_MEMCPY_D2D);
    }
    if (peerCopyIsStaged(d, s)) {
        // Each half runs on its device's default stream: after the work queued there.
        return stagedCopy(dst, d, nullptr, src, s, nullptr, size);
    }
    // One plugin, a direct copy on the source's default stream, after the destination's default
    // stream has drained (so a fill queued there earlier cannot land after the copy).
    infiniStatus_t st = INFINIRT_CALL(d.backend, stream_synchronize, d.id, d.id, nullptr);
    if (st == INFINI_STATUS_SUCCESS) {
        st = INFINIRT_CALL(s.backend, memcpy_peer_async, s.id, d.id, dst, s.id, src, size, s.id, nullptr);
    }
    if (st == INFINI_STATUS_SUCCESS) {
        st = INFINIRT_CALL(s.backend, stream_synchronize, s.id, s.id, nullptr);
    }
    return st;
}

infiniStatus_t peerCopyAsync(void *dst, const PeerEnd &d, const void *src, const PeerEnd &s, size_t size,
                             const StreamRef &r) {
    if (d == s) {
        return INFINIRT_CALL(r.backend, memcpy_async, r.device, r.device, dst, src, size, INFINIRT_MEMCPY_D2D,
                             r.native);
    }
    if (!peerCopyIsStaged(d, s)) {
        return INFINIRT_CALL(r.backend, memcpy_peer_async, r.device, d.id, dst, s.id, src, size, r.device, r.native);
    }
    const bool on_source = r.type == s.type && r.device == s.id;
    return stagedCopy(dst, d, on_source ? nullptr : r.native, src, s, on_source ? r.native : nullptr, size);
}

} // namespace infinirt
