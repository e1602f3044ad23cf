// One rank's part of each call, on the calling thread. AllReduce among the threads of one process
// is direct (directAllReduce). The other calls, and AllReduce across processes, go in chunks of
// one staging slot: each rank copies its chunk into its slot, a barrier, each rank combines the
// slots it needs into its output, a barrier (so slots are free again); inputs are always staged,
// so in-place calls are safe. Send/Recv stream bytes through the ring of their ordered pair of
// ranks.
#include "cpu_backend.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace infiniccl::cpu {

namespace {

const char *kindName(OpKind k) {
    static const char *const names[] = {"AllReduce",     "Reduce",         "Broadcast", "AllGather", "AllGatherV",
                                        "ReduceScatter", "ReduceScatterV", "Send",      "Recv"};
    return names[static_cast<int>(k)];
}

// Reduce `count` elements of every rank's `send` into root's `recv` (all ranks when root < 0).
infiniStatus_t reduceChunks(Comm &c, const char *what, const char *send, char *recv, size_t count, size_t esize,
                            infiniDtype_t dtype, infinicclReduceOp_t op, int root) {
    const size_t per = kSlotBytes / esize;
    const void *in[kMaxRanks];
    for (int r = 0; r < c.nranks; ++r) in[r] = c.slot(r);
    for (size_t off = 0; off < count; off += per) {
        const size_t n = std::min(per, count - off);
        std::memcpy(c.slot(c.rank), send + off * esize, n * esize);
        if (infiniStatus_t st = barrier(c, what)) return st;
        void *out = recv + off * esize;
        if (root < 0 || root == c.rank) reduceInto(&out, 1, in, c.nranks, n, dtype, op);
        if (infiniStatus_t st = barrier(c, what)) return st;
    }
    return INFINI_STATUS_SUCCESS;
}

// Rank c.rank's slice of `count` elements (begin and end in elements): the slices split the
// elements evenly among the ranks, with their borders on cache lines of `anchor` (so on those of
// every buffer that is aligned as it is), so that no two ranks write one line of it.
void sliceOf(const Comm &c, size_t count, size_t esize, const void *anchor, size_t *begin, size_t *end) {
    const size_t line = 64 / esize;
    const uintptr_t at = reinterpret_cast<uintptr_t>(anchor);
    // The elements before anchor's first line border (none if it lies inside an element).
    const size_t lead = at % esize == 0 ? (64 - at % 64) % 64 / esize : 0;
    const size_t n = static_cast<size_t>(c.nranks);
    const size_t rank = static_cast<size_t>(c.rank);
    const size_t per = ((count + n - 1) / n + line - 1) / line * line;
    *begin = rank == 0 ? 0 : std::min(count, lead + per * rank);
    *end = rank + 1 == n ? count : std::min(count, lead + per * (rank + 1));
}

// AllReduce among the threads of one process: every rank posts its buffers and arguments, a
// barrier, each rank checks that every post belongs to this call and matches its own, then
// reduces its slice of every rank's send buffer straight into its own recv buffer, copying each
// chunk from there into every other rank's (only this rank touches that slice of any buffer, so
// in place is safe), a drain (every recv buffer is complete, and no rank reads a send buffer any
// more). Ranks that disagree abandon the comm before touching any buffer: the check is the same
// on every rank, so all of them see it.
infiniStatus_t directAllReduce(Comm &c, const Op &op) {
    if (op.count == 0) return INFINI_STATUS_SUCCESS;
    // A rank that gave up may have left its peers reading the posts: post nothing then.
    if (infiniStatus_t st = usable(c, "AllReduce")) return st;
    Post *posts = c.region->header()->posts;
    const Post mine{c.barriers + 1, op.send, op.recv, op.count, static_cast<int32_t>(op.dtype),
                    static_cast<int32_t>(op.op)};
    posts[c.rank] = mine;
    if (infiniStatus_t st = barrier(c, "AllReduce")) return st;
    for (int r = 0; r < c.nranks; ++r) {
        const Post &p = posts[r];
        if (p.epoch != mine.epoch || p.count != mine.count || p.dtype != mine.dtype || p.op != mine.op) {
            abandon(c);
            if (p.epoch != mine.epoch) {
                return fail(INFINI_STATUS_DRIVER_ERROR,
                            "rank %d of %d in AllReduce: rank %d called another collective; the comm can no longer "
                            "be used",
                            c.rank, c.nranks, r);
            }
            return fail(INFINI_STATUS_DRIVER_ERROR,
                        "rank %d of %d: AllReduce of %zu elements of dtype %d, op %d; rank %d called it with %zu, "
                        "dtype %d, op %d; the comm can no longer be used",
                        c.rank, c.nranks, mine.count, mine.dtype, mine.op, r, p.count, p.dtype, p.op);
        }
    }
    const size_t esize = elementSize(op.dtype);
    size_t begin = 0, end = 0;
    sliceOf(c, op.count, esize, posts[0].recv, &begin, &end);
    if (begin < end) {
        const void *in[kMaxRanks];
        void *out[kMaxRanks];
        for (int r = 0; r < c.nranks; ++r) {
            in[r] = static_cast<const char *>(posts[r].send) + begin * esize;
            // This rank's own result first: reduceInto writes it, and copies it into the others.
            const int to = r == 0 ? c.rank : r <= c.rank ? r - 1 : r;
            out[r] = static_cast<char *>(posts[to].recv) + begin * esize;
        }
        reduceInto(out, c.nranks, in, c.nranks, end - begin, op.dtype, op.op);
    }
    drain(c);
    return INFINI_STATUS_SUCCESS;
}

// Every rank r contributes counts[r] elements from `send`; `recv` (NULL: skip) receives them at
// displs[r]. Broadcast is the case where only root contributes.
infiniStatus_t gatherChunks(Comm &c, const char *what, const char *send, char *recv, const size_t *counts,
                            const size_t *displs, size_t esize) {
    const size_t per = kSlotBytes / esize;
    size_t most = 0;
    for (int r = 0; r < c.nranks; ++r) most = std::max(most, counts[r]);
    for (size_t off = 0; off < most; off += per) {
        const size_t mine = counts[c.rank] > off ? std::min(per, counts[c.rank] - off) : 0;
        if (mine != 0) std::memcpy(c.slot(c.rank), send + off * esize, mine * esize);
        if (infiniStatus_t st = barrier(c, what)) return st;
        for (int r = 0; recv != nullptr && r < c.nranks; ++r) {
            const size_t n = counts[r] > off ? std::min(per, counts[r] - off) : 0;
            if (n != 0) std::memcpy(recv + (displs[r] + off) * esize, c.slot(r), n * esize);
        }
        if (infiniStatus_t st = barrier(c, what)) return st;
    }
    return INFINI_STATUS_SUCCESS;
}

// A Send or Recv in progress.
struct Transfer {
    const Op *op;
    size_t bytes;
    size_t done = 0;
};

// Moves what the ring allows without waiting; true when the transfer is complete.
bool progress(Comm &c, Transfer &t) {
    const bool sending = t.op->kind == OpKind::Send;
    Ring *ring = sending ? c.ring(c.rank, t.op->root) : c.ring(t.op->root, c.rank);
    char *data = sending ? c.ringData(c.rank, t.op->root) : c.ringData(t.op->root, c.rank);
    while (t.done < t.bytes) {
        const uint64_t head = ring->head.load(std::memory_order_acquire);
        const uint64_t tail = ring->tail.load(std::memory_order_acquire);
        const size_t room = sending ? kRingBytes - static_cast<size_t>(head - tail) : static_cast<size_t>(head - tail);
        if (room == 0) return false;
        const uint64_t at = sending ? head : tail;
        const size_t pos = static_cast<size_t>(at % kRingBytes);
        const size_t n = std::min({room, t.bytes - t.done, kRingBytes - pos});
        if (sending) {
            std::memcpy(data + pos, static_cast<const char *>(t.op->send) + t.done, n);
            ring->head.store(head + n, std::memory_order_release);
        } else {
            std::memcpy(static_cast<char *>(t.op->recv) + t.done, data + pos, n);
            ring->tail.store(tail + n, std::memory_order_release);
        }
        t.done += n;
    }
    return true;
}

infiniStatus_t runTransfers(Comm &c, std::vector<Transfer> &transfers) {
    Backoff backoff(false);
    for (;;) {
        bool all = true;
        for (size_t i = 0; i < transfers.size(); ++i) {
            // Messages on one ring go in call order: a transfer waits for the earlier ones on its ring.
            bool earlier_pending = false;
            for (size_t j = 0; j < i; ++j) {
                earlier_pending |= transfers[j].op->kind == transfers[i].op->kind &&
                                   transfers[j].op->root == transfers[i].op->root && transfers[j].done < transfers[j].bytes;
            }
            all = (!earlier_pending && progress(c, transfers[i])) && all;
        }
        if (all) return INFINI_STATUS_SUCCESS;
        if (!backoff.pause()) {
            const Transfer *stuck = nullptr;
            for (const Transfer &t : transfers) {
                if (t.done < t.bytes) stuck = &t;
            }
            return fail(INFINI_STATUS_DRIVER_ERROR,
                        "rank %d: %s with rank %d moved %zu of %zu bytes in %.0f s (INFINICCL_CPU_TIMEOUT): the peer "
                        "did not post the matching call",
                        c.rank, kindName(stuck->op->kind), stuck->op->root, stuck->done, stuck->bytes, timeoutSeconds());
        }
    }
}

} // namespace

infiniStatus_t runCollective(const Op &op) {
    Comm &c = *op.comm;
    if (c.gloo != nullptr) {
        const std::vector<const Op *> one{&op};
        return glooRunOps(c, one);
    }
    const size_t esize = elementSize(op.dtype);
    const char *what = kindName(op.kind);
    const char *send = static_cast<const char *>(op.send);
    char *recv = static_cast<char *>(op.recv);
    const int n = c.nranks;
    size_t counts[kMaxRanks] = {}, displs[kMaxRanks] = {};
    switch (op.kind) {
    case OpKind::AllReduce:
        if (c.direct()) return directAllReduce(c, op);
        return reduceChunks(c, what, send, recv, op.count, esize, op.dtype, op.op, -1);
    case OpKind::Reduce:
        return reduceChunks(c, what, send, recv, op.count, esize, op.dtype, op.op, op.root);
    case OpKind::Broadcast:
        counts[op.root] = op.count;
        return gatherChunks(c, what, send, recv, counts, displs, esize);
    case OpKind::AllGather:
    case OpKind::AllGatherV:
        for (int r = 0; r < n; ++r) {
            counts[r] = op.kind == OpKind::AllGather ? op.count : op.counts[r];
            displs[r] = r == 0 ? 0 : displs[r - 1] + counts[r - 1];
        }
        return gatherChunks(c, what, send, recv, counts, displs, esize);
    case OpKind::ReduceScatter:
    case OpKind::ReduceScatterV: {
        // Block t of every rank's send is reduced into rank t's recv.
        size_t displ = 0;
        for (int t = 0; t < n; ++t) {
            const size_t count = op.kind == OpKind::ReduceScatter ? op.count : op.counts[t];
            if (infiniStatus_t st = reduceChunks(c, what, send + displ * esize, t == c.rank ? recv : nullptr, count,
                                                 esize, op.dtype, op.op, t)) {
                return st;
            }
            displ += count;
        }
        return INFINI_STATUS_SUCCESS;
    }
    case OpKind::Send:
    case OpKind::Recv: {
        std::vector<Transfer> one{Transfer{&op, op.count * esize}};
        return runTransfers(c, one);
    }
    }
    return fail(INFINI_STATUS_INTERNAL_ERROR, "unknown operation %d", static_cast<int>(op.kind));
}

infiniStatus_t runOps(const std::vector<const Op *> &ops) {
    if (!ops.empty() && ops.front()->comm->gloo != nullptr) return glooRunOps(*ops.front()->comm, ops);
    for (size_t i = 0; i < ops.size();) {
        if (ops[i]->kind != OpKind::Send && ops[i]->kind != OpKind::Recv) {
            if (infiniStatus_t st = runCollective(*ops[i])) return st;
            ++i;
            continue;
        }
        std::vector<Transfer> transfers;
        for (; i < ops.size() && (ops[i]->kind == OpKind::Send || ops[i]->kind == OpKind::Recv); ++i) {
            transfers.push_back(Transfer{ops[i], ops[i]->count * elementSize(ops[i]->dtype)});
        }
        if (infiniStatus_t st = runTransfers(*transfers.front().op->comm, transfers)) return st;
    }
    return INFINI_STATUS_SUCCESS;
}

} // namespace infiniccl::cpu
