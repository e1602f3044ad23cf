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
// leg a pageable copy). They are kept in a pool per (backend, device) and reused:
// concurrent staged copies take separate pairs, and the pool never holds more pairs than copies
// ever ran at once. They are never freed (like default streams).
#include "peer.h"

#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace infinirt {

namespace {

struct BouncePair {
    void *buffer[2] = {nullptr, nullptr};
};

struct BouncePool {
    std::mutex mutex;
    std::map<std::pair<int, int>, std::vector<BouncePair>> idle; // by (type, device)
};

BouncePool &bouncePool() {
    static BouncePool *pool = new BouncePool(); // never destroyed: plugins are never called at exit
    return *pool;
}

infiniStatus_t takeBounce(const PeerEnd &host, BouncePair &pair) {
    BouncePool &pool = bouncePool();
    {
        std::lock_guard<std::mutex> lock(pool.mutex);
        std::vector<BouncePair> &idle = pool.idle[{host.type, host.id}];
        if (!idle.empty()) {
            pair = idle.back();
            idle.pop_back();
            return INFINI_STATUS_SUCCESS;
        }
    }
    for (int i = 0; i < 2; ++i) {
        infiniStatus_t st = INFINIRT_DEVICE_CALL(host.backend, malloc_host, host.id, &pair.buffer[i], kStagingChunk);
        if (st != INFINI_STATUS_SUCCESS) {
            if (i == 1) {
                host.backend->table.free_host(host.id, pair.buffer[0]);
            }
            return st;
        }
    }
    return INFINI_STATUS_SUCCESS;
}

void giveBackBounce(const PeerEnd &host, const BouncePair &pair) {
    BouncePool &pool = bouncePool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    pool.idle[{host.type, host.id}].push_back(pair);
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

infiniStatus_t stagedCopy(void *dst, const PeerEnd &d, void *d_stream, const void *src, const PeerEnd &s,
                          void *s_stream, size_t size) {
    INFINIRT_GUARD_BEGIN
    const PeerEnd &host = d.backend->traits.host_staging_rank > s.backend->traits.host_staging_rank ? d : s;
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
