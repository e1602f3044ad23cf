// One rank's part of each call, on the calling thread, in chunks of one staging slot: each rank
// copies its chunk into its slot, a barrier, each rank combines the slots it needs into its
// output, a barrier (so slots are free again). Inputs are always staged, so in-place calls are
// safe. Send/Recv stream bytes through the ring of their ordered pair of ranks.
#include "cpu_backend.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

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
        if (root < 0 || root == c.rank) reduceInto(recv + off * esize, in, c.nranks, n, dtype, op);
        if (infiniStatus_t st = barrier(c, what)) return st;
    }
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
    const auto start = std::chrono::steady_clock::now();
    for (unsigned round = 0;; ++round) {
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
        if (round < 256) {
            std::this_thread::yield();
            continue;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(20));
        if ((round & 255) == 0 &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeoutSeconds()) {
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
    const size_t esize = elementSize(op.dtype);
    const char *what = kindName(op.kind);
    const char *send = static_cast<const char *>(op.send);
    char *recv = static_cast<char *>(op.recv);
    const int n = c.nranks;
    std::vector<size_t> counts(static_cast<size_t>(n)), displs(static_cast<size_t>(n));
    switch (op.kind) {
    case OpKind::AllReduce:
        return reduceChunks(c, what, send, recv, op.count, esize, op.dtype, op.op, -1);
    case OpKind::Reduce:
        return reduceChunks(c, what, send, recv, op.count, esize, op.dtype, op.op, op.root);
    case OpKind::Broadcast:
        counts[static_cast<size_t>(op.root)] = op.count;
        return gatherChunks(c, what, send, recv, counts.data(), displs.data(), esize);
    case OpKind::AllGather:
    case OpKind::AllGatherV:
        for (int r = 0; r < n; ++r) {
            counts[r] = op.kind == OpKind::AllGather ? op.count : op.counts[r];
            displs[r] = r == 0 ? 0 : displs[r - 1] + counts[r - 1];
        }
        return gatherChunks(c, what, send, recv, counts.data(), displs.data(), esize);
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
