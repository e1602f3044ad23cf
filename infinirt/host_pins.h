// Pinning the memory of host-direct copies (peer_copy.cpp): a device whose memory is host memory
// (the cpu device) and a device of another backend copy with that backend's own D2H/H2D, which
// stages pageable memory through its driver's buffers. The loader registers the host-side
// allocation with that backend (its host_register, cuda: cuMemHostRegister PORTABLE, valid for
// every device of the backend), so its DMA engine reads and writes the memory directly.
//
// One registration per (allocation, backend), of the whole allocation, made during a large copy
// once such copies have moved half the allocation's size (a registration costs about what one
// pageable copy of part of the memory costs: docs/ARCHITECTURE.md, Peers), and kept until the
// memory is freed or the device it was made on is reset. A registration the backend refuses (or a
// backend without host_register) leaves the allocation's copies on the pageable path, without
// failure; that pair is not tried again. Only the loader registers these ranges: the memory is
// infinirt's, so infinirtHostRegister refuses it (it overlaps a recorded allocation).
// Thread-safe: one mutex guards the record; a registration in progress is waited for by the
// unpinning of the same memory and device, never by copies.
#pragma once

#include "dispatch.h"

namespace infinirt {

// Copies below this size neither register nor count toward a registration: their time is mostly
// the copy's fixed cost, which pinning does not change.
constexpr size_t kHostPinMinCopy = size_t(1) << 20;

// Before a host-direct copy of `size` bytes (at least kHostPinMinCopy), after the host side's
// stream drained: `host` is the copy's pointer into memory of device (host_type, host_id), whose
// memory is host memory, and device `id` of `b` (of `type`) runs the copy. Counts the bytes toward
// the registration of the allocation holding `host` with b, and registers it when they reach half
// its size. Only memory of the host device's own allocations (infinirtMalloc, MallocAsync) is
// registered; other pointers are left alone. Never fails: the copy runs either way.
void pinForHostDirectCopy(const void *host, int host_type, int host_id, Backend *b, int type, int id, size_t size);

// Before the allocation at `base` (of a device whose memory is host memory) is freed: unregisters
// it from every backend that registered it (after a registration in progress ends) and forgets
// the bytes counted. The first failure of host_unregister is returned, with the registrations it
// left in place still recorded: the caller then keeps the allocation, since freeing memory a
// driver still has registered would leave its copies using stale pages. One atomic load when
// nothing is recorded.
infiniStatus_t unpinHostMemory(const void *base);

// For infinirtDeviceReset of device `id` of `type`: unregisters every registration made on it
// (after one in progress ends) and forgets their counts. Returns the first failure; a registration
// that failed to go stays recorded.
infiniStatus_t unpinOnDevice(int type, int id);

} // namespace infinirt
