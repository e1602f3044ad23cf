// The staged path of copies between devices that cannot copy to each other directly (two
// backends, or two devices of a plugin without memcpy_peer_async): device -> pinned host bounce
// buffer on the source, bounce buffer -> device on the destination, chunk by chunk.
//
// Two bounce buffers of kStagingChunk bytes each, double-buffered: the source's read of chunk k+1
// is in flight while the destination writes chunk k, so the copy runs at about the speed of the
// slower leg rather than the sum of both. The host waits on events between the legs (the two
// devices cannot wait on each other), so the call blocks until the copy is complete.
//
// Bounce buffers are pinned host memory of the source backend (malloc_host on the source device),
// or of the destination's where that backend's pinned memory serves its DMA better: the higher
// host_staging_rank of the two plugins' traits (a vendor GPU backend's page-locked memory over
// memory an OpenCL device maps over the cpu backend's ordinary memory, which would make the other
// leg a pageable copy). They are kept in a pool per device, in pairs: one pair is reserved when the
// device is first used (reserveStaging), more are allocated while copies run at once, and a copy
// that cannot allocate one waits for a pair to come back. A reset of the device frees them (as it
// frees the device's pinned host memory); otherwise they are never freed (like default streams).
#include "peer.h"
#include "per_device.h"

#include <condition_variable>
#include <mutex>
#include <vector>

namespace infinirt {

namespace {

struct BouncePair {
    void *buffer[2] = {nullptr, nullptr};
    uint64_t generation = 0; // the pool's generation when the pair was allocated
};

// The bounce buffers of one device.
struct DevicePool {
    std::mutex mutex;
    std::condition_variable changed; // a pair came back to `idle`, or the device was reset
    std::vector<BouncePair> idle;    // its capacity is `owned`: giving a pair back never allocates
    size_t owned = 0;                // pairs of this generation, idle or held by a copy
    uint64_t generation = 0;         // advanced by a reset: older pairs are freed when given back
    // The reservation ran for this generation (or the device hosts no staging): reserveStaging
    // reads it without the mutex.
    std::atomic<bool> reserved{false};
};

// Each device's pool, made when the device first stages (or reserves staging) and never freed:
// copies and resets may come during exit.
PerDevice<DevicePool> g_pools;

// Which end's backend lends the bounce buffers: the higher host_staging_rank, the source on a tie.
const PeerEnd &stagingHost(const PeerEnd &d, const PeerEnd &s) {
    return d.backend->traits.host_staging_rank > s.backend->traits.host_staging_rank ? d : s;
}

// Whether a staged copy may take its bounce buffers from a device of `b` (stagingHost): one
// between two of its devices when its plugin has no direct copy, or one with a device of another
// backend whose memory is not host memory (that copy is host-direct) and whose rank is not above b's.
bool mayHostStaging(const Backend *b) {
    if (backendMemoryIsHost(b) || b->table.malloc_host == nullptr) {
        return false;
    }
    if (b->table.memcpy_peer_async == nullptr && b->device_count > 1) {
        return true;
    }
    for (const Backend *other : g_registry.by_type) {
        if (other != nullptr && other != b && other->device_count > 0 && !backendMemoryIsHost(other) &&
            other->traits.host_staging_rank <= b->traits.host_staging_rank) {
            return true;
        }
    }
    return false;
}

void freePair(const PeerEnd &host, const BouncePair &pair) {
    for (void *p : pair.buffer) {
        if (p != nullptr) {
            host.backend->table.free_host(host.id, p);
        }
    }
}

// Two buffers of kStagingChunk bytes from the host backend's malloc_host, or the first failure
// (the plugin's detail pending for stagingFailed) with nothing allocated.
infiniStatus_t allocatePair(const PeerEnd &host, BouncePair &pair) {
    for (void *&p : pair.buffer) {
        const infiniStatus_t st = INFINIRT_PLUGIN_STATUS(host.backend, malloc_host, host.id, &p, kStagingChunk);
        if (st != INFINI_STATUS_SUCCESS) {
            p = nullptr;
            freePair(host, pair);
            return st;
        }
    }
    return INFINI_STATUS_SUCCESS;
}

INFINIRT_COLD infiniStatus_t stagingFailed(const char *function, const char *what, const PeerEnd &host,
                                           infiniStatus_t st) {
    const char *detail = takePluginDetail();
    return fail(st, "%s: %s (two %s bounce buffers of pinned host memory for the staged copies of %s:%d): %s",
                function, what, formatBytes(kStagingChunk).c_str(), typeName(host.type), host.id,
                detail != nullptr ? detail : infinirtGetErrorName(st));
}

// Makes `fresh` a pair of the pool's current generation; `lock` holds the pool's mutex. On a
// failure to grow `idle`, the pair is freed and bad_alloc rethrown.
void adopt(DevicePool &p, std::unique_lock<std::mutex> &lock, const PeerEnd &host, BouncePair &fresh) {
    try {
        p.idle.reserve(p.owned + 1);
    } catch (...) {
        lock.unlock();
        freePair(host, fresh);
        throw;
    }
    fresh.generation = p.generation;
    ++p.owned;
}

// A pair for one copy: an idle one, else a new one; when allocating fails while other copies hold
// pairs of the device, the first pair they give back (each copy holds one pair at most and gives
// it back when it ends, so the wait ends). Fails only when the device has no pair at all (not
// reserved: used through infinirt only by this copy since it was loaded or reset) and none can be
// allocated.
infiniStatus_t takeBounce(const PeerEnd &host, BouncePair &pair) {
    DevicePool *const pool = g_pools.get(host.type, host.id);
    if (pool == nullptr) {
        return fail(INFINI_STATUS_OUT_OF_MEMORY, "infinirtMemcpyPeer: host memory exhausted (the staging pool of %s:%d)",
                    typeName(host.type), host.id);
    }
    DevicePool &p = *pool;
    std::unique_lock<std::mutex> lock(p.mutex);
    for (;;) {
        if (!p.idle.empty()) {
            pair = p.idle.back();
            p.idle.pop_back();
            return INFINI_STATUS_SUCCESS;
        }
        const uint64_t generation = p.generation;
        lock.unlock();
        BouncePair fresh;
        const infiniStatus_t st = allocatePair(host, fresh);
        lock.lock();
        if (st == INFINI_STATUS_SUCCESS) {
            adopt(p, lock, host, fresh);
            pair = fresh;
            return INFINI_STATUS_SUCCESS;
        }
        if (p.owned == 0) {
            return stagingFailed("infinirtMemcpyPeer", "no staging was reserved and allocating it failed", host, st);
        }
        p.changed.wait(lock, [&] { return !p.idle.empty() || p.generation != generation; });
    }
}

void giveBackBounce(const PeerEnd &host, const BouncePair &pair) {
    DevicePool &p = *g_pools.find(host.type, host.id); // takeBounce made it
    {
        std::lock_guard<std::mutex> lock(p.mutex);
        if (pair.generation == p.generation) {
            p.idle.push_back(pair); // within the capacity adopt reserved
            p.changed.notify_one();
            return;
        }
    }
    freePair(host, pair); // the device was reset while this copy held the pair
}

// Two events on one device, destroyed with the object.
struct EventPair {
    const PeerEnd &end;
    void *event[2] = {nullptr, nullptr};
    explicit EventPair(const PeerEnd &e) : end(e) {}
    infiniStatus_t create() {
        for (void *&e : event) {
            infiniStatus_t st =
                INFINIRT_DEVICE_CALL(end.backend, event_create, end.id, INFINIRT_EVENT_DISABLE_TIMING, &e);
            if (st != INFINI_STATUS_SUCCESS) {
                return st;
            }
        }
        return INFINI_STATUS_SUCCESS;
    }
    ~EventPair() {
        for (void *e : event) {
            if (e != nullptr) {
                end.backend->table.event_destroy(end.id, e);
            }
        }
    }
};

} // namespace

infiniStatus_t reserveStaging(const char *function, Backend *b, int type, int id) {
    DevicePool *const pool = g_pools.get(type, id);
    if (INFINIRT_LIKELY(pool != nullptr && pool->reserved.load(std::memory_order_acquire))) {
        return INFINI_STATUS_SUCCESS;
    }
    if (pool == nullptr) {
        return fail(INFINI_STATUS_OUT_OF_MEMORY, "%s: host memory exhausted (the staging pool of %s:%d)", function,
                    typeName(type), id);
    }
    DevicePool &p = *pool;
    INFINIRT_GUARD_BEGIN
    std::unique_lock<std::mutex> lock(p.mutex);
    if (p.owned == 0 && mayHostStaging(b)) {
        PeerEnd host;
        host.backend = b;
        host.type = type;
        host.id = id;
        BouncePair fresh;
        const infiniStatus_t st = allocatePair(host, fresh);
        if (st != INFINI_STATUS_SUCCESS) {
            return stagingFailed(function, "reserving the staging failed", host, st);
        }
        adopt(p, lock, host, fresh);
        p.idle.push_back(fresh);
        p.changed.notify_one();
    }
    p.reserved.store(true, std::memory_order_release);
    return INFINI_STATUS_SUCCESS;
    INFINIRT_GUARD_END(function)
}

infiniStatus_t releaseStaging(Backend *b, int type, int id) {
    DevicePool *const pool = g_pools.find(type, id);
    if (pool == nullptr) {
        return INFINI_STATUS_SUCCESS; // the device never staged: nothing to release
    }
    DevicePool &p = *pool;
    std::vector<BouncePair> idle;
    {
        std::lock_guard<std::mutex> lock(p.mutex);
        idle.swap(p.idle);
        p.owned = 0;
        ++p.generation;
        p.reserved.store(false, std::memory_order_release);
        p.changed.notify_all();
    }
    infiniStatus_t first = INFINI_STATUS_SUCCESS;
    for (const BouncePair &pair : idle) {
        for (void *buffer : pair.buffer) {
            const infiniStatus_t st = INFINIRT_DEVICE_CALL(b, free_host, id, buffer);
            if (first == INFINI_STATUS_SUCCESS) {
                first = st;
            }
        }
    }
    return first;
}

infiniStatus_t stagedCopy(void *dst, const PeerEnd &d, void *d_stream, const void *src, const PeerEnd &s,
                          void *s_stream, size_t size) {
    INFINIRT_GUARD_BEGIN
    const PeerEnd &host = stagingHost(d, s);
    for (const PeerEnd *e : {&s, &d}) {
        const infinirtPluginTable_t &t = e->backend->table;
        if (t.memcpy_async == nullptr || t.event_create == nullptr || t.event_record == nullptr ||
            t.event_synchronize == nullptr || t.event_destroy == nullptr || t.stream_synchronize == nullptr) {
            return fail(INFINI_STATUS_NOT_IMPLEMENTED,
                        "copy between %s:%d and %s:%d: backend %s lacks the asynchronous copies and events a staged "
                        "copy needs",
                        typeName(s.type), s.id, typeName(d.type), d.id, e->backend->name.c_str());
        }
    }
    if (host.backend->table.malloc_host == nullptr) {
        return notImplemented(host.backend, "malloc_host");
    }
    BouncePair bounce;
    infiniStatus_t st = takeBounce(host, bounce);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    EventPair read_done(s);  // recorded after the source's read of a chunk into buffer[k % 2]
    EventPair write_done(d); // recorded after the destination's write of a chunk from buffer[k % 2]
    st = read_done.create();
    if (st == INFINI_STATUS_SUCCESS) {
        st = write_done.create();
    }
    if (st != INFINI_STATUS_SUCCESS) {
        giveBackBounce(host, bounce); // nothing used them yet
        return st;
    }
    const size_t chunks = (size + kStagingChunk - 1) / kStagingChunk;
    auto length = [&](size_t k) { return k + 1 < chunks ? kStagingChunk : size - k * kStagingChunk; };
    const char *from = static_cast<const char *>(src);
    char *to = static_cast<char *>(dst);
    auto read = [&](size_t k) {
        infiniStatus_t r = INFINIRT_DEVICE_CALL(s.backend, memcpy_async, s.id, bounce.buffer[k % 2],
                                                from + k * kStagingChunk, length(k), INFINIRT_MEMCPY_D2H, s_stream);
        if (r == INFINI_STATUS_SUCCESS) {
            r = INFINIRT_DEVICE_CALL(s.backend, event_record, s.id, read_done.event[k % 2], s_stream);
        }
        return r;
    };
    st = read(0);
    for (size_t k = 0; k < chunks && st == INFINI_STATUS_SUCCESS; ++k) {
        if (k + 1 < chunks) {
            // Chunk k+1 goes into the buffer chunk k-1 came through: wait until it was written.
            if (k >= 1) {
                st = INFINIRT_DEVICE_CALL(d.backend, event_synchronize, d.id, write_done.event[(k + 1) % 2]);
            }
            if (st == INFINI_STATUS_SUCCESS) {
                st = read(k + 1);
            }
        }
        if (st == INFINI_STATUS_SUCCESS) {
            st = INFINIRT_DEVICE_CALL(s.backend, event_synchronize, s.id, read_done.event[k % 2]);
        }
        if (st == INFINI_STATUS_SUCCESS) {
            st = INFINIRT_DEVICE_CALL(d.backend, memcpy_async, d.id, to + k * kStagingChunk, bounce.buffer[k % 2],
                                      length(k), INFINIRT_MEMCPY_H2D, d_stream);
        }
        if (st == INFINI_STATUS_SUCCESS) {
            st = INFINIRT_DEVICE_CALL(d.backend, event_record, d.id, write_done.event[k % 2], d_stream);
        }
    }
    if (st == INFINI_STATUS_SUCCESS) {
        st = INFINIRT_DEVICE_CALL(d.backend, event_synchronize, d.id, write_done.event[(chunks - 1) % 2]);
    } else {
        // Nothing queued may still use the buffers when they go back to the pool. Cleanup: the
        // failure already reported stays the thread's last error.
        s.backend->table.stream_synchronize(s.id, s_stream);
        d.backend->table.stream_synchronize(d.id, d_stream);
    }
    giveBackBounce(host, bounce);
    return st;
    INFINIRT_GUARD_END("infinirtMemcpyPeer")
}

} // namespace infinirt
