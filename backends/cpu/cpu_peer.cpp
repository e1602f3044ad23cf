// Peers: every cpu device is the same host memory, so each can always access every other one.
// Access is still enabled and disabled per direction (kept in a matrix, so that the state the
// caller set is the state reported back, as on cuda), but it changes no path: a copy between two
// cpu devices is a Copy task (memmove) on the stream named, and an event of one cpu device is
// waited for by a Wait task on a stream of another, as on its own device.
#include "cpu_backend.h"
#include "cpu_stream.h"

#include "common/host_services.hpp"

namespace infinirt::cpu {

namespace {

// enabled[device][peer]: access of `device` to `peer` was enabled and not disabled since.
std::atomic<bool> g_enabled[kMaxDevices][kMaxDevices];

} // namespace

infiniStatus_t deviceCanAccessPeer(int, int, int *can_access) {
    *can_access = 1;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t deviceGetPeerAttribute(int, int, infinirtPeerAttribute_t attr, int *value) {
    switch (attr) {
    case INFINIRT_PEER_ATTR_ACCESS_SUPPORTED:
    case INFINIRT_PEER_ATTR_NATIVE_ATOMICS_SUPPORTED: // one memory: host atomics are atomic for both
    case INFINIRT_PEER_ATTR_COPY_WITHOUT_STAGING:
        *value = 1;
        break;
    default: // PERFORMANCE_RANK: one memory, no link to rank
        *value = 0;
        break;
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t deviceEnablePeerAccess(int device, int peer) {
    g_enabled[device][peer].store(true, std::memory_order_release);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t deviceDisablePeerAccess(int device, int peer) {
    if (!g_enabled[device][peer].exchange(false, std::memory_order_acq_rel)) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "device_disable_peer_access: access of cpu:%d to cpu:%d is not enabled",
                            device, peer);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memcpyPeerAsync(int, void *dst, int, const void *src, size_t size, int stream_device, void *stream) {
    Task task;
    task.kind = Task::Kind::Copy;
    task.dst = dst;
    task.src = src;
    task.size = size;
    resolveStream(stream_device, stream).submit(std::move(task));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamWaitPeerEvent(int device, void *stream, int, void *event) {
    // Events and streams of every cpu device are objects of this one process: the wait task is
    // the same as for an event of the stream's own device.
    return streamWaitEvent(device, stream, event);
}

} // namespace infinirt::cpu
