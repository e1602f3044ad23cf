// Ranks on several hosts: the cpu backend's collectives over Gloo's TCP transport (Debian's
// libgloo-dev). The ranks meet through the loader's rendezvous store (tcp_store.hpp; Gloo's own
// rendezvous runs over it, under the comm's keys); each rank listens on the address it reaches the
// store from (INFINICCL_SOCKET_IFNAME names an interface instead). Every call is Gloo's own
// algorithm on unbound buffers: allreduce (ring; f32/f64 up to 4 MiB: a cached
// AllreduceRingChunked over a staging buffer), reduce, broadcast, allgather(v); ReduceScatter
// is one reduce per block; Send/Recv are unbound-buffer sends and receives, a group's posted
// together. Each wait is bounded by INFINICCL_TIMEOUT_S. A failure (a peer's connection closed, a
// timeout) gives the comm up: its connections are closed, so that the other ranks fail at once too,
// and the message names the rank that went first, as the store saw it.
#include "cpu_backend.h"
#include "tcp_store.hpp"

#include <gloo/allgather.h>
#include <gloo/allgatherv.h>
#include <gloo/allreduce.h>
#include <gloo/allreduce_ring_chunked.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/pair.h>
#include <gloo/transport/unbound_buffer.h>
#include <gloo/types.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace infiniccl::cpu {

// A small AllReduce's Gloo algorithm, built once (AllreduceRingChunked: its buffers registered with
// the pairs, so a call is the ring alone) over a staging buffer of the call's size. Ranks make the
// same calls in the same order, so every rank builds and evicts the same entries at the same calls.
struct ChunkedEntry {
    size_t count = 0;
    infiniDtype_t dtype{};
    infinicclReduceOp_t op{};
    uint64_t last_use = 0;
    std::vector<char> staging;
    gloo::Algorithm *algorithm = nullptr; // deleted by dropChunked (its destructor may throw)
};

struct GlooTransport {
    ~GlooTransport();
    std::vector<ChunkedEntry> chunked; // AllReduce of at most kChunkedBytes, at most kChunkedEntries
    uint64_t calls = 0;
    std::shared_ptr<gloo::rendezvous::Context> context; // NULL once the comm was given up
    std::unique_ptr<store::Client> store;               // asked which rank went, after a failure
    std::string scope;
    std::vector<std::string> addresses; // every rank's listening addresses (listeningAddresses)
    std::chrono::milliseconds timeout{0};
    uint32_t tag = 0;
    std::string broken; // why the comm was given up
};

namespace {

// Up to 4 MiB AllreduceRingChunked beat Gloo's ring on unbound buffers here (2 and 4 namespace
// hosts), beyond it the ring wins. The cache holds at most 8 entries and 16 MiB of staging.
constexpr size_t kChunkedBytes = size_t{4} << 20;
constexpr size_t kChunkedEntries = 8;
constexpr size_t kChunkedTotalBytes = size_t{16} << 20;

void dropChunked(ChunkedEntry &e) {
    try {
        delete e.algorithm;
    } catch (...) { // a pair already failed: nothing more to release
    }
    e.algorithm = nullptr;
}

} // namespace

GlooTransport::~GlooTransport() {
    for (ChunkedEntry &e : chunked) dropChunked(e);
}

namespace {

// Gloo's rendezvous over our store, under the comm's keys.
class StoreAdapter final : public gloo::rendezvous::Store {
public:
    StoreAdapter(store::Client &client, std::string prefix, std::chrono::milliseconds timeout)
        : client_(client), prefix_(std::move(prefix)), timeout_(timeout) {}
    void set(const std::string &key, const std::vector<char> &data) override {
        std::string error;
        if (!client_.set(prefix_ + key, std::string(data.begin(), data.end()), &error)) throw std::runtime_error(error);
    }
    std::vector<char> get(const std::string &key) override {
        std::string value, error;
        if (!client_.get(prefix_ + key, store::Clock::now() + timeout_, &value, &error)) {
            throw std::runtime_error(error);
        }
        return std::vector<char>(value.begin(), value.end());
    }
    void wait(const std::vector<std::string> &keys) override { wait(keys, timeout_); }
    void wait(const std::vector<std::string> &keys, const std::chrono::milliseconds &timeout) override {
        const auto deadline = store::Clock::now() + timeout;
        for (const std::string &key : keys) {
            std::string value, error;
            if (!client_.get(prefix_ + key, deadline, &value, &error)) throw std::runtime_error(error);
        }
    }

private:
    store::Client &client_;
    std::string prefix_;
    std::chrono::milliseconds timeout_;
};

const char *kindName(OpKind k) {
    static const char *const names[] = {"AllReduce",     "Reduce",         "Broadcast", "AllGather", "AllGatherV",
                                        "ReduceScatter", "ReduceScatterV", "Send",      "Recv"};
    return names[static_cast<int>(k)];
}

// Calls fn(T{}) with the unsigned type of `esize` bytes: Gloo's options are typed by element size.
template <typename Fn>
void withElement(size_t esize, Fn &&fn) {
    switch (esize) {
    case 1: fn(uint8_t{}); break;
    case 2: fn(uint16_t{}); break;
    case 4: fn(uint32_t{}); break;
    default: fn(uint64_t{}); break;
    }
}

// Gloo's reduction function for `dtype` and `op` (AVG sums; the caller divides).
gloo::AllreduceOptions::Func reducer(infiniDtype_t dtype, infinicclReduceOp_t op) {
    const infinicclReduceOp_t combine = op == INFINICCL_AVG ? INFINICCL_SUM : op;
    return [dtype, combine](void *out, const void *a, const void *b, size_t n) {
        const void *in[2] = {a, b};
        void *o[1] = {out};
        reduceInto(o, 1, in, 2, n, dtype, combine);
    };
}

// Reduce `count` elements of every rank's `send` into root's `recv` (scratch on the others).
void glooReduce(GlooTransport &t, const void *send, void *recv, size_t count, size_t esize, infiniDtype_t dtype,
                infinicclReduceOp_t op, int root, std::vector<char> &scratch) {
    if (count == 0) return;
    const int rank = t.context->rank;
    if (rank != root) {
        scratch.resize(count * esize);
        recv = scratch.data();
    }
    gloo::ReduceOptions opts(t.context);
    withElement(esize, [&](auto e) {
        using T = decltype(e);
        if (send != recv) opts.setInput(static_cast<T *>(const_cast<void *>(send)), count);
        opts.setOutput(static_cast<T *>(recv), count);
    });
    opts.setRoot(root);
    opts.setReduceFunction(reducer(dtype, op));
    opts.setTag(t.tag++);
    opts.setTimeout(t.timeout);
    gloo::reduce(opts);
    if (op == INFINICCL_AVG && rank == root) divideBy(recv, count, dtype, t.context->size);
}

template <typename T>
gloo::Algorithm *makeChunked(GlooTransport &t, ChunkedEntry &e, infinicclReduceOp_t combine) {
    const gloo::ReductionFunction<T> *fn = combine == INFINICCL_PROD  ? gloo::ReductionFunction<T>::product
                                           : combine == INFINICCL_MAX ? gloo::ReductionFunction<T>::max
                                           : combine == INFINICCL_MIN ? gloo::ReductionFunction<T>::min
                                                                      : gloo::ReductionFunction<T>::sum;
    std::vector<T *> ptrs{reinterpret_cast<T *>(e.staging.data())};
    return new gloo::AllreduceRingChunked<T>(t.context, ptrs, static_cast<int>(e.count), fn);
}

// An f32/f64 AllReduce of up to 4 MiB through a cached AllreduceRingChunked: false where it does not
// apply. Costs two copies of the data (in and out of the staging buffer).
bool chunkedAllReduce(GlooTransport &t, const Op &op) {
    const size_t esize = elementSize(op.dtype);
    if ((op.dtype != INFINI_DTYPE_F32 && op.dtype != INFINI_DTYPE_F64) || op.count * esize > kChunkedBytes ||
        op.count > static_cast<size_t>(INT32_MAX)) {
        return false;
    }
    const infinicclReduceOp_t combine = op.op == INFINICCL_AVG ? INFINICCL_SUM : op.op;
    ++t.calls;
    ChunkedEntry *entry = nullptr;
    for (ChunkedEntry &e : t.chunked) {
        if (e.count == op.count && e.dtype == op.dtype && e.op == combine) entry = &e;
    }
    if (entry == nullptr) {
        // The least recently used go, until this one fits.
        for (;;) {
            size_t total = op.count * esize;
            for (const ChunkedEntry &e : t.chunked) total += e.staging.size();
            if (t.chunked.empty() || (t.chunked.size() < kChunkedEntries && total <= kChunkedTotalBytes)) break;
            auto oldest = std::min_element(t.chunked.begin(), t.chunked.end(), [](const auto &a, const auto &b) {
                return a.last_use < b.last_use;
            });
            dropChunked(*oldest);
            t.chunked.erase(oldest);
        }
        t.chunked.emplace_back();
        entry = &t.chunked.back();
        entry->count = op.count;
        entry->dtype = op.dtype;
        entry->op = combine;
        entry->staging.resize(op.count * esize);
        entry->algorithm = op.dtype == INFINI_DTYPE_F32 ? makeChunked<float>(t, *entry, combine)
                                                        : makeChunked<double>(t, *entry, combine);
    }
    entry->last_use = t.calls;
    std::memcpy(entry->staging.data(), op.send, op.count * esize);
    entry->algorithm->run();
    std::memcpy(op.recv, entry->staging.data(), op.count * esize);
    if (op.op == INFINICCL_AVG) divideBy(op.recv, op.count, op.dtype, t.context->size);
    return true;
}

void glooCall(GlooTransport &t, const Op &op) {
    const auto &ctx = t.context;
    const size_t esize = elementSize(op.dtype);
    const int n = ctx->size, rank = ctx->rank;
    std::vector<char> scratch;
    switch (op.kind) {
    case OpKind::AllReduce: {
        if (op.count == 0 || chunkedAllReduce(t, op)) return;
        gloo::AllreduceOptions opts(ctx);
        withElement(esize, [&](auto e) {
            using T = decltype(e);
            if (op.send != op.recv) opts.setInput(static_cast<T *>(const_cast<void *>(op.send)), op.count);
            opts.setOutput(static_cast<T *>(op.recv), op.count);
        });
        opts.setAlgorithm(gloo::AllreduceOptions::Algorithm::RING);
        opts.setReduceFunction(reducer(op.dtype, op.op));
        opts.setTag(t.tag++);
        opts.setTimeout(t.timeout);
        gloo::allreduce(opts);
        if (op.op == INFINICCL_AVG) divideBy(op.recv, op.count, op.dtype, n);
        return;
    }
    case OpKind::Reduce:
        glooReduce(t, op.send, op.recv, op.count, esize, op.dtype, op.op, op.root, scratch);
        return;
    case OpKind::Broadcast: {
        if (op.count == 0) return;
        gloo::BroadcastOptions opts(ctx);
        withElement(esize, [&](auto e) {
            using T = decltype(e);
            if (rank == op.root && op.send != op.recv) {
                opts.setInput(static_cast<T *>(const_cast<void *>(op.send)), op.count);
            }
            opts.setOutput(static_cast<T *>(op.recv), op.count);
        });
        opts.setRoot(op.root);
        opts.setTag(t.tag++);
        opts.setTimeout(t.timeout);
        gloo::broadcast(opts);
        return;
    }
    case OpKind::AllGather: {
        if (op.count == 0) return;
        gloo::AllgatherOptions opts(ctx);
        const bool in_place = op.send == static_cast<char *>(op.recv) + static_cast<size_t>(rank) * op.count * esize;
        withElement(esize, [&](auto e) {
            using T = decltype(e);
            if (!in_place) opts.setInput(static_cast<T *>(const_cast<void *>(op.send)), op.count);
            opts.setOutput(static_cast<T *>(op.recv), op.count * static_cast<size_t>(n));
        });
        opts.setTag(t.tag++);
        opts.setTimeout(t.timeout);
        gloo::allgather(opts);
        return;
    }
    case OpKind::AllGatherV: {
        size_t total = 0, displ = 0;
        for (int r = 0; r < n; ++r) {
            if (r == rank) displ = total;
            total += op.counts[r];
        }
        if (total == 0) return;
        gloo::AllgathervOptions opts(ctx);
        const bool in_place = op.send == static_cast<char *>(op.recv) + displ * esize;
        withElement(esize, [&](auto e) {
            using T = decltype(e);
            if (!in_place) opts.setInput(static_cast<T *>(const_cast<void *>(op.send)), op.counts[rank]);
            opts.setOutput(static_cast<T *>(op.recv), op.counts);
        });
        opts.setTag(t.tag++);
        opts.setTimeout(t.timeout);
        gloo::allgatherv(opts);
        return;
    }
    case OpKind::ReduceScatter:
    case OpKind::ReduceScatterV: {
        size_t displ = 0;
        for (int b = 0; b < n; ++b) {
            const size_t count = op.kind == OpKind::ReduceScatter ? op.count : op.counts[b];
            glooReduce(t, static_cast<const char *>(op.send) + displ * esize, b == rank ? op.recv : nullptr, count,
                       esize, op.dtype, op.op, b, scratch);
            displ += count;
        }
        return;
    }
    case OpKind::Send:
    case OpKind::Recv:
        break; // glooTransfers
    }
}

// Consecutive Send/Recv of one group: every one posted, then each waited for.
constexpr uint64_t kP2PSlot = uint64_t{0x1cc1} << 32;

void glooTransfers(GlooTransport &t, const std::vector<const Op *> &ops) {
    std::vector<std::unique_ptr<gloo::transport::UnboundBuffer>> buffers;
    std::vector<bool> sending;
    for (const Op *op : ops) {
        const size_t bytes = op->count * elementSize(op->dtype);
        if (bytes == 0) continue;
        const bool s = op->kind == OpKind::Send;
        void *ptr = s ? const_cast<void *>(op->send) : op->recv;
        buffers.push_back(t.context->createUnboundBuffer(ptr, bytes));
        sending.push_back(s);
        if (s) {
            buffers.back()->send(op->root, kP2PSlot);
        } else {
            buffers.back()->recv(op->root, kP2PSlot);
        }
    }
    for (size_t i = 0; i < buffers.size(); ++i) {
        const bool ok = sending[i] ? buffers[i]->waitSend(t.timeout) : buffers[i]->waitRecv(t.timeout);
        if (!ok) throw std::runtime_error("a send or receive was aborted");
    }
}

// The rank whose address ("[10.77.0.3]:20661") Gloo's message names, else -1.
int rankInMessage(const GlooTransport &t, const std::string &detail) {
    for (size_t at = detail.find('['); at != std::string::npos; at = detail.find('[', at + 1)) {
        const size_t close = detail.find("]:", at);
        if (close == std::string::npos) break;
        size_t end = close + 2;
        while (end < detail.size() && detail[end] >= '0' && detail[end] <= '9') ++end;
        const std::string address = detail.substr(at, end - at) + ";";
        for (size_t r = 0; r < t.addresses.size(); ++r) {
            const size_t found = t.addresses[r].find(address);
            if (found != std::string::npos && (found == 0 || t.addresses[r][found - 1] == ';')) {
                return static_cast<int>(r);
            }
        }
    }
    return -1;
}

// Gives the comm up after `what` failed with Gloo's `detail`, naming the rank that went first: as
// the store saw it (asked before this rank closes its own connections, which the other ranks would
// see next), else the peer whose connection Gloo saw close.
infiniStatus_t giveUp(Comm &c, const char *what, const std::string &detail) {
    GlooTransport &t = *c.gloo;
    std::vector<int> gone;
    std::string error;
    const auto wait = std::min<std::chrono::milliseconds>(t.timeout, std::chrono::seconds(2));
    const bool asked = t.store->gone(t.scope, store::Clock::now() + wait, &gone, &error);
    for (ChunkedEntry &e : t.chunked) dropChunked(e);
    t.chunked.clear();
    t.context.reset(); // closes every connection: the peers fail at once rather than wait
    const int peer = rankInMessage(t, detail);
    char message[1024];
    if (!asked && peer > 0) {
        std::snprintf(message, sizeof message,
                      "rank %d of %d in %s: rank %d is gone (its connection closed; rank 0's rendezvous store does "
                      "not answer either: %s); the comm can no longer be used (gloo: %s)",
                      c.rank, c.nranks, what, peer, error.c_str(), detail.c_str());
    } else if (!asked) {
        std::snprintf(message, sizeof message,
                      "rank %d of %d in %s: rank 0 is gone (the rendezvous store it served does not answer: %s); "
                      "the comm can no longer be used (gloo: %s)",
                      c.rank, c.nranks, what, error.c_str(), detail.c_str());
    } else if (!gone.empty()) {
        std::snprintf(message, sizeof message,
                      "rank %d of %d in %s: rank %d is gone (its process ended or lost its connection without "
                      "destroying the comm); the comm can no longer be used (gloo: %s)",
                      c.rank, c.nranks, what, gone.front(), detail.c_str());
    } else {
        std::snprintf(message, sizeof message,
                      "rank %d of %d in %s failed and no rank is gone: a rank did not make the matching call within "
                      "%.0f s (INFINICCL_TIMEOUT_S), or the network failed; the comm can no longer be used (gloo: %s)",
                      c.rank, c.nranks, what, static_cast<double>(t.timeout.count()) / 1000.0, detail.c_str());
    }
    t.broken = message;
    return fail(INFINI_STATUS_DRIVER_ERROR, "%s", message);
}

// This rank's listening addresses as Gloo prints a peer's ("[10.77.0.3]:20661"), one per pair (each
// pair listens on a port of its own), each followed by ';'.
std::string listeningAddresses(gloo::Context &context) {
    std::string all;
    for (int r = 0; r < context.size; ++r) {
        if (r == context.rank || context.getPair(r) == nullptr) continue;
        const std::string a = context.getPair(r)->address().str();
        all += a.substr(0, a.find('$')) + ";";
    }
    return all;
}

} // namespace

infiniStatus_t glooCommInit(Comm &c, const infinicclPluginRendezvous_t &r) {
    auto t = std::make_shared<GlooTransport>();
    t->scope = r.scope;
    t->timeout = std::chrono::milliseconds(static_cast<long long>(r.timeout_s * 1000));
    const auto deadline = store::Clock::now() + t->timeout;
    std::string error;
    t->store = store::Client::connect(r.store_host, r.store_port, deadline, &error);
    if (t->store == nullptr) {
        return fail(INFINI_STATUS_DRIVER_ERROR, "rank %d of %d: the rendezvous store at %s:%d: %s", c.rank, c.nranks,
                    r.store_host, r.store_port, error.c_str());
    }
    gloo::transport::tcp::attr attr;
    const char *iface = std::getenv("INFINICCL_SOCKET_IFNAME");
    if (iface != nullptr && *iface != '\0') {
        attr.iface = iface;
    } else {
        attr.hostname = t->store->localAddress();
    }
    try {
        auto device = gloo::transport::tcp::CreateDevice(attr);
        auto context = std::make_shared<gloo::rendezvous::Context>(c.rank, c.nranks);
        context->setTimeout(t->timeout);
        StoreAdapter adapter(*t->store, t->scope + "gloo/", t->timeout);
        context->connectFullMesh(adapter, device);
        // Every rank's address, to name a peer from Gloo's messages (all have published theirs).
        const std::string mine = listeningAddresses(*context);
        adapter.set("addr/" + std::to_string(c.rank), std::vector<char>(mine.begin(), mine.end()));
        for (int r = 0; r < c.nranks; ++r) {
            const std::vector<char> a = adapter.get("addr/" + std::to_string(r));
            t->addresses.emplace_back(a.begin(), a.end());
        }
        t->context = std::move(context);
    } catch (const std::exception &e) {
        return fail(INFINI_STATUS_DRIVER_ERROR,
                    "rank %d of %d: connecting to the other ranks over Gloo's TCP transport (%s%s): %s", c.rank,
                    c.nranks, iface != nullptr && *iface != '\0' ? "INFINICCL_SOCKET_IFNAME=" : "address ",
                    iface != nullptr && *iface != '\0' ? iface : attr.hostname.c_str(), e.what());
    }
    c.gloo = std::move(t);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t glooRunOps(Comm &c, const std::vector<const Op *> &ops) {
    GlooTransport &t = *c.gloo;
    for (size_t i = 0; i < ops.size();) {
        const char *what = kindName(ops[i]->kind);
        if (t.context == nullptr) {
            return fail(INFINI_STATUS_DRIVER_ERROR, "rank %d of %d in %s: the comm was given up earlier: %s", c.rank,
                        c.nranks, what, t.broken.c_str());
        }
        try {
            if (ops[i]->kind == OpKind::Send || ops[i]->kind == OpKind::Recv) {
                std::vector<const Op *> transfers;
                for (; i < ops.size() && (ops[i]->kind == OpKind::Send || ops[i]->kind == OpKind::Recv); ++i) {
                    transfers.push_back(ops[i]);
                }
                glooTransfers(t, transfers);
            } else {
                glooCall(t, *ops[i]);
                ++i;
            }
        } catch (const std::exception &e) {
            return giveUp(c, what, e.what());
        }
    }
    return INFINI_STATUS_SUCCESS;
}

} // namespace infiniccl::cpu
