// Choosing the path of a copy between two devices (peer.h).
#include "peer.h"

#include "host_pins.h"

namespace infinirt {

namespace {

// A device whose memory is host memory (cpu, PoCL's) and a device of another backend: the
// host side's stream (cpu_stream, NULL: its default stream) is drained, then the other backend
// copies between its memory and the host-side allocation with its own D2H/H2D on other_stream
// (NULL: its default stream) and waits for it. A large copy may first register the host-side
// allocation with the other backend (host_pins.h), so that leg runs at its pinned rate.
// Ordered and complete like the staged copy, at the speed of one native leg.
infiniStatus_t hostDirectCopy(void *dst, const PeerEnd &d, const void *src, const PeerEnd &s, size_t size,
                              void *cpu_stream, void *other_stream) {
    const bool to_cpu = hostDirectToDestination(d, s);
    const PeerEnd &cpu = to_cpu ? d : s;
    const PeerEnd &other = to_cpu ? s : d;
    infiniStatus_t st = INFINIRT_DEVICE_CALL(cpu.backend, stream_synchronize, cpu.id, cpu_stream);
    if (st == INFINI_STATUS_SUCCESS && size >= kHostPinMinCopy) {
        pinForHostDirectCopy(to_cpu ? dst : src, cpu.type, cpu.id, other.backend, other.type, other.id, size);
    }
    if (st == INFINI_STATUS_SUCCESS) {
        st = INFINIRT_DEVICE_CALL(other.backend, memcpy_async, other.id, dst, src, size,
                                  to_cpu ? INFINIRT_MEMCPY_D2H : INFINIRT_MEMCPY_H2D, other_stream);
    }
    if (st == INFINI_STATUS_SUCCESS) {
        st = INFINIRT_DEVICE_CALL(other.backend, stream_synchronize, other.id, other_stream);
    }
    return st;
}

} // namespace

infiniStatus_t peerCopySync(void *dst, const PeerEnd &d, const void *src, const PeerEnd &s, size_t size) {
    if (d == s) {
        return INFINIRT_DEVICE_CALL(s.backend, memcpy_sync, s.id, dst, src, size, INFINIRT_MEMCPY_D2D);
    }
    if (peerCopyIsHostDirect(d, s)) {
        return hostDirectCopy(dst, d, src, s, size, nullptr, nullptr);
    }
    if (peerCopyIsStaged(d, s)) {
        // Each half runs on its device's default stream: after the work queued there.
        return stagedCopy(dst, d, nullptr, src, s, nullptr, size);
    }
    // One plugin, a direct copy on the source's default stream, after the destination's default
    // stream has drained (so a fill queued there earlier cannot land after the copy).
    infiniStatus_t st = INFINIRT_DEVICE_CALL(d.backend, stream_synchronize, d.id, nullptr);
    if (st == INFINI_STATUS_SUCCESS) {
        st = INFINIRT_CALL(s.backend, memcpy_peer_async, s.id, d.id, dst, s.id, src, size, s.id, nullptr);
    }
    if (st == INFINI_STATUS_SUCCESS) {
        st = INFINIRT_DEVICE_CALL(s.backend, stream_synchronize, s.id, nullptr);
    }
    return st;
}

infiniStatus_t peerCopyAsync(void *dst, const PeerEnd &d, const void *src, const PeerEnd &s, size_t size,
                             const StreamRef &r) {
    if (d == s) {
        return INFINIRT_DEVICE_CALL(r.backend, memcpy_async, r.device, dst, src, size, INFINIRT_MEMCPY_D2D, r.native);
    }
    if (!peerCopyIsStaged(d, s)) {
        return INFINIRT_CALL(r.backend, memcpy_peer_async, r.device, d.id, dst, s.id, src, size, r.device, r.native);
    }
    if (peerCopyIsHostDirect(d, s)) {
        const PeerEnd &host = hostDirectToDestination(d, s) ? d : s;
        const bool on_cpu = r.type == host.type && r.device == host.id; // the stream is the host end's
        return hostDirectCopy(dst, d, src, s, size, on_cpu ? r.native : nullptr, on_cpu ? nullptr : r.native);
    }
    const bool on_source = r.type == s.type && r.device == s.id;
    return stagedCopy(dst, d, on_source ? nullptr : r.native, src, s, on_source ? r.native : nullptr, size);
}

} // namespace infinirt
