// Copies between two devices, for infinirtMemcpyPeer/MemcpyPeerAsync (api_peer.cpp) and for plain
// infinirtMemcpy/MemcpyAsync whose pointers the allocation registry places on two devices
// (api_memory.cpp). Arguments are validated by the callers; these only choose the path:
//   - the same device: the plugin's own device-to-device copy;
//   - two devices of one plugin with memcpy_peer_async: the plugin's direct copy (cuda
//     cuMemcpyPeerAsync, cpu memmove on a stream);
//   - a device whose memory is ordinary host memory (cpu, PoCL's OpenCL device) and a device of
//     another backend: the other backend copies straight to/from it (its own D2H/H2D), no bounce
//     buffer and no second copy (hostDirectCopy), from memory pinned for it once large copies
//     have paid for the registration (host_pins.h);
//   - otherwise (two backends, or a plugin without it, like opencl): staged through host bounce
//     buffers by the loader (peer_staging.cpp).
#pragma once

#include "dispatch.h"

namespace infinirt {

// One end of a copy: a validated device.
struct PeerEnd {
    Backend *backend = nullptr;
    int type = 0;
    int id = 0;
    bool operator==(const PeerEnd &o) const { return type == o.type && id == o.id; }
};

// Ordered after the work already submitted to both devices' default streams; complete on return.
infiniStatus_t peerCopySync(void *dst, const PeerEnd &d, const void *src, const PeerEnd &s, size_t size);

// Ordered after earlier work on `stream`, which belongs to `d` or `s` (the caller checked). Staged
// copies run the other device's half on its default stream and are complete on return.
infiniStatus_t peerCopyAsync(void *dst, const PeerEnd &d, const void *src, const PeerEnd &s, size_t size,
                             const StreamRef &stream);

// Whether copies between the two go through host memory (peerCopy* stages them, or copies them
// host-direct when one end's memory is host memory); such copies are not captured into graphs.
inline bool peerCopyIsStaged(const PeerEnd &d, const PeerEnd &s) {
    return !(d == s) && (d.type != s.type || d.backend->table.memcpy_peer_async == nullptr);
}

// Whether the memory of device `id` of `b` (a valid index) is ordinary host memory: every device
// of the cpu backend, PoCL's OpenCL device (Backend::memory_is_host).
inline bool deviceMemoryIsHost(const Backend *b, int id) { return b->memory_is_host[static_cast<size_t>(id)] != 0; }
inline bool deviceMemoryIsHost(const PeerEnd &e) { return deviceMemoryIsHost(e.backend, e.id); }

// Whether one end's memory is host memory and the other is a device of another backend (peerCopy*
// copies between them with the other backend's own D2H/H2D, see hostDirectCopy).
inline bool peerCopyIsHostDirect(const PeerEnd &d, const PeerEnd &s) {
    return d.type != s.type && (deviceMemoryIsHost(d) || deviceMemoryIsHost(s));
}

// Of a host-direct copy's two ends, whether the destination is the host-memory end (the other
// end's backend makes the copy): the end with host memory, or, where both have it, the one of a
// backend whose every device has (the cpu backend's, so that PoCL's device copies to and from
// cpu memory, as it would to and from any host memory).
inline bool hostDirectToDestination(const PeerEnd &d, const PeerEnd &s) {
    return deviceMemoryIsHost(d) && (!deviceMemoryIsHost(s) || backendMemoryIsHost(d.backend));
}

// The staged path (peer_staging.cpp): `size` bytes from src (on s, read on its stream s_stream,
// NULL: the default stream) to dst (on d, written on d_stream) through two pinned host bounce
// buffers of kStagingChunk bytes, double-buffered: the read of chunk k+1 overlaps the write of
// chunk k. Blocks until the last chunk is written. Never allocates the whole size on the host.
// The pair comes from the pool of the end whose backend lends it (the higher host_staging_rank,
// the source on a tie): an idle pair, a new one, or, where a new one cannot be had while other
// copies hold pairs of that device, the first one they give back. It fails for lack of bounce
// buffers only where the device has no pair at all (reserveStaging never ran on it).
constexpr size_t kStagingChunk = size_t(8) << 20;
infiniStatus_t stagedCopy(void *dst, const PeerEnd &d, void *d_stream, const void *src, const PeerEnd &s,
                          void *s_stream, size_t size);

// Reserves the staging (one pair of bounce buffers) of device `id` of `b` (of `type`) where staged
// copies may take theirs from it, once per device and again after its reset: where a device is
// first used (allocation, peer access), never on a hot path. After the first call an atomic load.
// A failure (OUT_OF_MEMORY from malloc_host) is reported as `function`'s and the next call tries
// again.
infiniStatus_t reserveStaging(const char *function, Backend *b, int type, int id);

// For infinirtDeviceReset: frees the device's idle bounce buffers (pairs held by a copy running
// meanwhile are freed when it gives them back) and forgets the reservation, which the device's next
// use makes again. Returns the first failure of free_host.
infiniStatus_t releaseStaging(Backend *b, int type, int id);

} // namespace infinirt
