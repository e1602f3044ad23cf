// C ABI: peer access and copies between any two devices (infinirt.h, "Peers").
#include "allocations.h"
#include "capture.h"
#include "peer.h"

using namespace infinirt;

namespace {

// Both devices valid (the first one first).
infiniStatus_t checkPair(infiniDevice_t type, int id, infiniDevice_t peer_type, int peer_id, PeerEnd &a, PeerEnd &b) {
    infiniStatus_t st = checkDevice(type, id, a.backend);
    if (st == INFINI_STATUS_SUCCESS) {
        st = checkDevice(peer_type, peer_id, b.backend);
    }
    a.type = static_cast<int>(type);
    a.id = id;
    b.type = static_cast<int>(peer_type);
    b.id = peer_id;
    return st;
}

// Two different devices, both valid: the calls that need a pair refuse a device with itself.
infiniStatus_t checkTwo(const char *function, infiniDevice_t type, int id, infiniDevice_t peer_type, int peer_id,
                        PeerEnd &a, PeerEnd &b) {
    infiniStatus_t st = checkPair(type, id, peer_type, peer_id, a, b);
    if (st == INFINI_STATUS_SUCCESS && a == b) {
        st = fail(INFINI_STATUS_BAD_PARAM, "%s: %s:%d is paired with itself; name two different devices", function,
                  typeName(a.type), a.id);
    }
    return st;
}

// Whether a can access b (a != b): 0 between backends and where the plugin has no such entry.
infiniStatus_t canAccess(const PeerEnd &a, const PeerEnd &b, int &value) {
    value = 0;
    if (a == b || a.type != b.type || a.backend->table.device_can_access_peer == nullptr) {
        return INFINI_STATUS_SUCCESS;
    }
    return INFINIRT_DEVICE_CALL(a.backend, device_can_access_peer, a.id, b.id, &value);
}

// A pointer infinirt allocated must belong to the device it is named with, and the copy must stay
// inside its allocation. Memory infinirt does not know (`known` false) is passed on unchecked.
infiniStatus_t checkRange(const char *function, const char *which, const void *p, const PeerEnd &e, size_t size,
                          bool known, const Allocation &a) {
    if (!known) {
        return INFINI_STATUS_SUCCESS;
    }
    if (a.origin == Origin::Unmapped) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %s %p lies in a reserved address range with nothing mapped there", function,
                    which, p);
    }
    if (a.type != e.type || a.device != e.id) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %s %p is memory of %s:%d, not of %s:%d as named", function, which, p,
                    typeName(a.type), a.device, typeName(e.type), e.id);
    }
    const size_t offset = static_cast<size_t>(static_cast<const char *>(p) - static_cast<const char *>(a.base));
    if (size > a.size - offset) {
        return fail(INFINI_STATUS_BAD_PARAM,
                    "%s: %s range of %zu bytes at offset %zu overruns its allocation at %p of %zu bytes by %zu bytes",
                    function, which, size, offset, a.base, a.size, size - (a.size - offset));
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t checkCopy(const char *function, void *dst, infiniDevice_t dst_type, int dst_id, const void *src,
                         infiniDevice_t src_type, int src_id, size_t size, PeerEnd &d, PeerEnd &s) {
    if (dst == nullptr) {
        return nullArgument(function, "dst");
    }
    if (src == nullptr) {
        return nullArgument(function, "src");
    }
    infiniStatus_t st = checkPair(dst_type, dst_id, src_type, src_id, d, s);
    if (st != INFINI_STATUS_SUCCESS || size == 0) {
        return st;
    }
    // Both pointers in one lookup of the allocation record.
    bool dst_known = false;
    bool src_known = false;
    Allocation da;
    Allocation sa;
    findAllocations(dst, dst_known, da, src, src_known, sa);
    st = checkRange(function, "dst", dst, d, size, dst_known, da);
    if (st == INFINI_STATUS_SUCCESS) {
        st = checkRange(function, "src", src, s, size, src_known, sa);
    }
    return st;
}

} // namespace

extern "C" {

__export infiniStatus_t infinirtDeviceCanAccessPeer(int *can_access, infiniDevice_t type, int id,
                                                    infiniDevice_t peer_type, int peer_id) {
    INFINIRT_ENTER();
    if (can_access == nullptr) {
        return nullArgument("infinirtDeviceCanAccessPeer", "can_access");
    }
    PeerEnd a, b;
    infiniStatus_t st = checkPair(type, id, peer_type, peer_id, a, b);
    int value = 0;
    if (st == INFINI_STATUS_SUCCESS) {
        st = canAccess(a, b, value);
    }
    if (st == INFINI_STATUS_SUCCESS) {
        *can_access = value != 0 ? 1 : 0;
    }
    return st;
}

__export infiniStatus_t infinirtDeviceGetPeerAttribute(int *value, infinirtPeerAttribute_t attr, infiniDevice_t type,
                                                       int id, infiniDevice_t peer_type, int peer_id) {
    INFINIRT_ENTER();
    const char *function = "infinirtDeviceGetPeerAttribute";
    if (value == nullptr) {
        return nullArgument(function, "value");
    }
    const int a_int = static_cast<int>(attr);
    if (a_int < INFINIRT_PEER_ATTR_ACCESS_SUPPORTED || a_int > INFINIRT_PEER_ATTR_PERFORMANCE_RANK) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: peer attribute %d is not valid", function, a_int);
    }
    PeerEnd a, b;
    infiniStatus_t st = checkTwo(function, type, id, peer_type, peer_id, a, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    int out = 0;
    if (a.type == b.type && a.backend->table.device_get_peer_attribute != nullptr) {
        st = INFINIRT_DEVICE_CALL(a.backend, device_get_peer_attribute, a.id, b.id, attr, &out);
    } else if (a.type == b.type) {
        // The plugin's other entries say what it can do.
        if (attr == INFINIRT_PEER_ATTR_ACCESS_SUPPORTED) {
            st = canAccess(a, b, out);
        } else if (attr == INFINIRT_PEER_ATTR_COPY_WITHOUT_STAGING) {
            out = a.backend->table.memcpy_peer_async != nullptr ? 1 : 0;
        }
    }
    // Between two backends: no access, no atomics, rank unknown: 0; copies are staged unless one
    // device's memory is host memory, which the other backend copies to and from directly.
    if (a.type != b.type && attr == INFINIRT_PEER_ATTR_COPY_WITHOUT_STAGING) {
        out = peerCopyIsHostDirect(a, b) ? 1 : 0;
    }
    if (st == INFINI_STATUS_SUCCESS) {
        *value = out;
    }
    return st;
}

__export infiniStatus_t infinirtDeviceEnablePeerAccess(infiniDevice_t type, int id, infiniDevice_t peer_type,
                                                       int peer_id, uint32_t flags) {
    INFINIRT_ENTER();
    const char *function = "infinirtDeviceEnablePeerAccess";
    if (flags != 0) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: flags must be 0 (got 0x%x)", function, flags);
    }
    PeerEnd a, b;
    infiniStatus_t st = checkTwo(function, type, id, peer_type, peer_id, a, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if (a.type != b.type || a.backend->table.device_enable_peer_access == nullptr) {
        return fail(INFINI_STATUS_BAD_PARAM,
                    "%s: %s:%d cannot access %s:%d (%s); infinirtMemcpyPeer still copies between them, staged", function,
                    typeName(a.type), a.id, typeName(b.type), b.id,
                    a.type != b.type ? "devices of two backends" : "the backend has no peer access");
    }
    st = reserveStaging(function, a.backend, a.type, a.id);
    if (st == INFINI_STATUS_SUCCESS) {
        st = reserveStaging(function, b.backend, b.type, b.id);
    }
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    return INFINIRT_DEVICE_CALL(a.backend, device_enable_peer_access, a.id, b.id);
}

__export infiniStatus_t infinirtDeviceDisablePeerAccess(infiniDevice_t type, int id, infiniDevice_t peer_type,
                                                        int peer_id) {
    INFINIRT_ENTER();
    const char *function = "infinirtDeviceDisablePeerAccess";
    PeerEnd a, b;
    infiniStatus_t st = checkTwo(function, type, id, peer_type, peer_id, a, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if (a.type != b.type || a.backend->table.device_disable_peer_access == nullptr) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: access of %s:%d to %s:%d is not enabled (it cannot be)", function,
                    typeName(a.type), a.id, typeName(b.type), b.id);
    }
    return INFINIRT_DEVICE_CALL(a.backend, device_disable_peer_access, a.id, b.id);
}

__export infiniStatus_t infinirtMemcpyPeer(void *dst, infiniDevice_t dst_type, int dst_id, const void *src,
                                           infiniDevice_t src_type, int src_id, size_t size) {
    INFINIRT_ENTER();
    PeerEnd d, s;
    infiniStatus_t st = checkCopy("infinirtMemcpyPeer", dst, dst_type, dst_id, src, src_type, src_id, size, d, s);
    if (st != INFINI_STATUS_SUCCESS || size == 0) {
        return st;
    }
    return peerCopySync(dst, d, src, s, size);
}

__export infiniStatus_t infinirtMemcpyPeerAsync(void *dst, infiniDevice_t dst_type, int dst_id, const void *src,
                                                infiniDevice_t src_type, int src_id, size_t size,
                                                infinirtStream_t stream) {
    INFINIRT_ENTER();
    const char *function = "infinirtMemcpyPeerAsync";
    PeerEnd d, s;
    infiniStatus_t st = checkCopy(function, dst, dst_type, dst_id, src, src_type, src_id, size, d, s);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    StreamRef r{};
    st = resolveStream(function, stream, r);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    const bool on_dst = r.type == d.type && r.device == d.id;
    const bool on_src = r.type == s.type && r.device == s.id;
    if (!on_dst && !on_src) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: the stream belongs to %s:%d, neither the source %s:%d nor the destination %s:%d%s",
                    function, typeName(r.type), r.device, typeName(s.type), s.id, typeName(d.type), d.id,
                    stream == nullptr ? " (NULL is the current device's default stream)" : "");
    }
    if (size == 0) {
        return INFINI_STATUS_SUCCESS;
    }
    INFINIRT_GUARD_BEGIN
    if (CaptureGraph *g = captureOf(r)) {
        if (peerCopyIsStaged(d, s)) {
            return captureInvalidate(g, "infinirtMemcpyPeerAsync (a copy staged through the host)");
        }
        CapturedOp op(CapturedOp::Kind::Memcpy);
        op.dst = dst;
        op.src = src;
        op.size = size;
        op.memcpy_kind = INFINIRT_MEMCPY_D2D;
        return captureAppend(g, op);
    }
    INFINIRT_GUARD_END(function)
    return peerCopyAsync(dst, d, src, s, size, r);
}

} // extern "C"
