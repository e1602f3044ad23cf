// Ranks on several hosts: the cpu backend's collectives over Gloo's TCP transport (Debian's
// libgloo-dev). The ranks meet through the loader's rendezvous store (tcp_store.hpp; Gloo's own
// rendezvous runs over it, under the comm's keys); each rank listens on the address it reaches the
// store from (INFINICCL_SOCKET_IFNAME names an interface instead). AllReduce up to 128 KiB is a
// direct exchange (DirectExchange: every rank's input sent to every other rank, each rank reducing
// all of them in rank order); above, the chunked ring of Gloo's AllreduceRingChunked on the
// caller's buffers (ChunkedRing); both cached per count and element size; Gloo's ring on unbound
// buffers where a ring's inboxes would pass the cache's bound, and with two ranks above 16 MiB. The
// other calls are Gloo's own algorithms on unbound buffers: reduce, broadcast, allgather(v);
// ReduceScatter is one reduce per block; Send/Recv are unbound-buffer sends and receives, a group's
// posted together. Each wait is bounded by INFINICCL_TIMEOUT_S. A failure (a peer's connection
// closed, a timeout) gives the comm up: its connections are closed, so that the other ranks fail at
// once too, and the message names the rank that went first, as the store saw it.
#include "cpu_backend.h"
#include "tcp_store.hpp"

#include <gloo/allgather.h>
#include <gloo/allgatherv.h>
#include <gloo/allreduce.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/buffer.h>
#include <gloo/transport/pair.h>
#include <gloo/transport/unbound_buffer.h>
#include <gloo/types.h>

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <new>
#include <stdexcept>
#include <thread>

namespace infiniccl::cpu {

// Memory on pages of its own (mmap), unmapped with it.
class Pages {
public:
    Pages() = default;
    Pages(const Pages &) = delete;
    Pages &operator=(const Pages &) = delete;
    ~Pages() {
        if (data_ != nullptr) munmap(data_, bytes_);
    }
    char *get() const { return data_; }
    void map(size_t size) {
        const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        bytes_ = (size + page - 1) / page * page;
        void *p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        data_ = static_cast<char *>(p);
    }

private:
    char *data_ = nullptr;
    size_t bytes_ = 0;
};

// AllReduce's chunked ring on the caller's buffer: AllreduceRingChunked's schedule (two chunks per
// rank, two inboxes written by the left neighbour in turn, a notification to the left before each
// write into the right neighbour's inbox, a last notification that ends the call), with the side
// that sends from the caller's buffer kept apart from the side that receives, so that the buffer
// can change without the other ranks.
//
// What registering a buffer is in Gloo's TCP transport (tcp/pair.cc, the only transport made
// here): a receive buffer enters its pair's table of slots, and the pair's device thread writes
// the payload of every message for that slot into it as it comes; a send buffer is a record (slot,
// address, size) that no table holds: its memory is read only while one of its send()s is being
// written. Nothing is exchanged with the peer and nothing is pinned; freeing a buffer of either
// kind erases its slot from its pair's table. Hence:
// - The receive side (the two inboxes and a notification word, owned here) is registered for the
//   ring's life under slots drawn from the context's counter, which must match the neighbours':
//   every rank builds a ring at the same call. After a rank's run() returned, no message for the
//   ring's slots is on its way to or from that rank (below), so a rank frees a ring at a call where
//   every rank frees it, each on its own time.
// - The send side is bound to the caller's buffer (bind()) and rebound, a record per data slot,
//   when the buffer moved: no slot is drawn and no message sent, so a rank rebinds alone and no
//   rank depends on another's addresses. Data goes on the slots of its sender's rank parity, so a
//   rank's data send slots are never its data receive slots: with two ranks (left and right one
//   pair) freeing an old record cannot erase a receive registration.
// - The caller's memory is touched only inside run(), which returns once every message of the call
//   was received (the right neighbour's last notification comes after its last receive of ours)
//   and every send of it was written (a waitSend per send). A binding to memory since freed is
//   inert, and a binding to a new buffer at the same address, of the same count, reads and writes
//   that buffer: the binding is the address and the size, nothing more.
class ChunkedRing {
public:
    // Registers the receive side: collective in that every rank must build it at the same call.
    ChunkedRing(gloo::Context &context, size_t count, size_t esize);
    ChunkedRing(const ChunkedRing &) = delete;
    ChunkedRing &operator=(const ChunkedRing &) = delete;

    // The inbox bytes a ring of `count` elements of `esize` bytes among `nranks` ranks holds.
    static size_t inboxBytes(int nranks, size_t count, size_t esize) {
        return 2 * chunkElements(nranks, count, esize) * esize;
    }
    // data[i] = `combine` over the ranks of their data[i], in place; this rank's part only.
    void run(void *data, infiniDtype_t dtype, infinicclReduceOp_t combine);

private:
    // Chunks of at least 1 KiB (AllreduceRingChunked's 256 floats), 2 per rank.
    static size_t chunkElements(int nranks, size_t count, size_t esize) {
        const size_t chunks = 2 * static_cast<size_t>(nranks);
        return std::max(std::max<size_t>(1024 / esize, 1), (count + chunks - 1) / chunks);
    }
    void bind(void *data);
    // The elements of chunk c (its first and how many; none past the end).
    void chunkRange(size_t c, size_t *first, size_t *length) const {
        *first = (c % chunks_) * chunk_;
        *length = *first >= count_ ? 0 : std::min(chunk_, count_ - *first);
    }
    // Writes chunk c of the bound buffer into the right neighbour's inbox c % 2. A chunk past the
    // end sends one element all the same: the neighbour waits for a message per chunk.
    void sendChunk(size_t c) {
        size_t first, length;
        chunkRange(c, &first, &length);
        if (length == 0) {
            first = 0;
            length = 1;
        }
        send_[c & 1]->send(first * esize_, length * esize_);
        ++sent_[c & 1];
    }
    void notifyLeft() {
        notify_send_->send();
        ++notified_;
    }
    // The chunk this rank handles at `round` (AllreduceRingChunked's order).
    size_t chunkAt(size_t round) const {
        return (2 * static_cast<size_t>(rank_) + chunks_ - (round & ~size_t{1}) + (round & 1)) % chunks_;
    }

    const size_t count_, esize_;
    const int rank_;
    const size_t chunks_, chunk_;
    gloo::transport::Pair *const left_, *const right_;
    int send_slot_ = 0;
    // The inboxes: pages of their own, as a large malloc gives them: from the heap, beside other
    // data, receiving into them measured slower at mid-size chunks (docs/collectives.md).
    Pages inbox_[2];
    int notice_out_ = 0, notice_in_ = 0;
    void *bound_ = nullptr;
    uint64_t sent_[2] = {0, 0};
    uint64_t notified_ = 0;
    // Declared after the memory they point at: freed before it.
    std::unique_ptr<gloo::transport::Buffer> recv_[2], notify_send_, notify_recv_, send_[2];
};

ChunkedRing::ChunkedRing(gloo::Context &context, size_t count, size_t esize)
    : count_(count), esize_(esize), rank_(context.rank), chunks_(2 * static_cast<size_t>(context.size)),
      chunk_(chunkElements(context.size, count, esize)),
      left_(context.getPair((context.rank + context.size - 1) % context.size).get()),
      right_(context.getPair((context.rank + 1) % context.size).get()) {
    // Slots base..base+3: data from a rank of even (base, base+1) or odd (base+2, base+3) rank, one per
    // inbox; base+4: the notifications.
    const int base = context.nextSlot(5);
    const int left_rank = (context.rank + context.size - 1) % context.size;
    send_slot_ = base + 2 * (context.rank % 2);
    for (int i = 0; i < 2; ++i) {
        inbox_[i].map(chunk_ * esize_);
        recv_[i] = left_->createRecvBuffer(base + 2 * (left_rank % 2) + i, inbox_[i].get(), chunk_ * esize_);
    }
    notify_send_ = left_->createSendBuffer(base + 4, &notice_out_, sizeof notice_out_);
    notify_recv_ = right_->createRecvBuffer(base + 4, &notice_in_, sizeof notice_in_);
}

void ChunkedRing::bind(void *data) {
    if (data == bound_ && send_[0] != nullptr) return;
    for (int i = 0; i < 2; ++i) {
        send_[i].reset(); // its sends were all written (run)
        send_[i] = right_->createSendBuffer(send_slot_ + i, data, count_ * esize_);
    }
    bound_ = data;
}

void ChunkedRing::run(void *data, infiniDtype_t dtype, infinicclReduceOp_t combine) {
    bind(data);
    char *base = static_cast<char *>(data);
    // Prime both of the right neighbour's inboxes.
    sendChunk(2 * static_cast<size_t>(rank_));
    sendChunk(2 * static_cast<size_t>(rank_) + 1);
    // Reduce-scatter: each chunk that comes is added to ours and passed on, after the right
    // neighbour said its inbox is free.
    for (size_t round = 2; round < chunks_; ++round) {
        const size_t c = chunkAt(round);
        size_t first, length;
        chunkRange(c, &first, &length);
        recv_[c & 1]->waitRecv();
        if (length > 0) {
            char *acc = base + first * esize_;
            const void *in[2] = {acc, inbox_[c & 1].get()};
            void *out[1] = {acc};
            reduceInto(out, 1, in, 2, length, dtype, combine);
        }
        notifyLeft();
        notify_recv_->waitRecv();
        sendChunk(c);
    }
    // All-gather: each reduced chunk that comes is copied in and passed on, but for the last two.
    for (size_t round = 0; round + 2 < chunks_; ++round) {
        const size_t c = chunkAt(round);
        size_t first, length;
        chunkRange(c, &first, &length);
        recv_[c & 1]->waitRecv();
        if (length > 0) std::memcpy(base + first * esize_, inbox_[c & 1].get(), length * esize_);
        if (round + 4 < chunks_) {
            notifyLeft();
            notify_recv_->waitRecv();
            sendChunk(c);
        }
    }
    // The right neighbour's last notification: it has received all of ours, and will write into
    // our slots only at its next run.
    notifyLeft();
    notify_recv_->waitRecv();
    for (int i = 0; i < 2; ++i) {
        for (; sent_[i] > 0; --sent_[i]) send_[i]->waitSend();
    }
    for (; notified_ > 0; --notified_) notify_send_->waitSend();
}

// A small AllReduce as one exchange, on buffers of its own: every rank copies its input into its
// send buffer, sends that to every other rank, receives every other rank's input, and reduces the
// n inputs in rank order 0..n-1 into the caller's recv buffer. Every rank runs the same reduction
// over the same inputs in the same order, so every rank's result is the same, bit for bit. Each
// message goes out at the start of the call and none waits for another: the call's latency is one
// message (and the reduction), where the chunked ring makes about 4n dependent hops (a data message
// after each notification, 2n - 2 rounds each way); the price is bandwidth, (n - 1) times the
// buffer sent and received by each rank where the ring sends and receives 2 (n - 1) / n of it, and
// n inputs reduced by every rank: hence only while (n - 1) times the buffer is at most
// kDirectReceivedBytes.
//
// With Gloo's TCP transport as ChunkedRing's comment describes it (a receive buffer is a slot in
// its pair's table, written by the pair's device thread as each message for it comes, whether or
// not waitRecv was called yet: the message is counted and the next waitRecv takes it; a send
// buffer is a record, read while a send of it is being written):
// - Slots: base + 2r + p carries rank r's input of a call of parity p. This rank receives from
//   peer j on base + 2j + p and sends on base + 2 rank + p, so on any pair its send slots are
//   never its receive slots: freeing a send buffer (which erases its slot from the pair's table,
//   as any buffer's destructor does) cannot erase a receive registration. The slots are drawn
//   (nextSlot) where the exchange is built: every rank builds it at the same call. A peer's first
//   message may come before this rank built it: the pair's device thread leaves the message in the
//   socket until the slot is registered (getBuffer), as for a ChunkedRing's first.
// - No notification: the inboxes are two per peer, used by call parity (the count of this
//   exchange's calls, the same on every rank: every rank makes the same calls). A peer's message of
//   call k + 2 would overwrite our parity-k inbox; the peer starts call k + 2 only after finishing
//   call k + 1, which needs our call-(k + 1) message, which we send only after our call k returned,
//   every parity-k inbox read. The parity-(k + 1) inbox may meanwhile receive the peer's call
//   k + 1, while we still read call k's: the other inbox. Each receive buffer thus holds at most
//   one message that no waitRecv took yet.
// - The send buffer is written at the start of each call; every send of it was waitSend'ed
//   before the previous call returned (hence before it is written again or the exchange freed).
// - After a rank's run() returned, no message for the exchange's slots is on its way to or from
//   it: every peer's message of every call up to this one was received, and a peer sends again only
//   at the exchange's next call, which every rank makes (or evicts the exchange at the same call).
//   So every rank frees it at the same call, each on its own time, as ChunkedRing.
// Every wait is bounded by the pairs' timeout: the comm's (INFINICCL_TIMEOUT_S), which the context
// passed to its pairs (glooCommInit sets it before connecting). A failure throws Gloo's exception,
// naming the peer, as ChunkedRing's waits do.
class DirectExchange {
public:
    // Registers the inboxes: collective in that every rank must build it at the same call.
    DirectExchange(gloo::Context &context, size_t count, size_t esize);
    DirectExchange(const DirectExchange &) = delete;
    DirectExchange &operator=(const DirectExchange &) = delete;

    // The memory an exchange of `count` elements of `esize` bytes among `nranks` ranks holds: its
    // send buffer and two inboxes per peer.
    static size_t memoryBytes(int nranks, size_t count, size_t esize) {
        return (2 * static_cast<size_t>(nranks) - 1) * partBytes(count * esize);
    }
    // recv[i] = `combine` over the ranks r = 0..n-1 of their send[i]; send may be recv.
    void run(const void *send, void *recv, infiniDtype_t dtype, infinicclReduceOp_t combine);

private:
    // Each part starts on a cache line of its own.
    static size_t partBytes(size_t bytes) { return (bytes + 63) / 64 * 64; }

    const size_t count_, esize_;
    const int rank_;
    uint64_t calls_ = 0; // run()s so far: call k uses the inboxes and slots of parity k % 2
    // The send buffer (this rank's input), then two inboxes per peer.
    Pages memory_;
    char *mine_ = nullptr;
    struct Peer {
        char *inbox[2] = {nullptr, nullptr};
        // Declared after `memory_`, which they point at: freed before it.
        std::unique_ptr<gloo::transport::Buffer> recv[2], send[2];
    };
    std::vector<Peer> peers_; // by rank; this rank's own is empty
    std::vector<const void *> inputs_; // the reduction's, by rank
};

DirectExchange::DirectExchange(gloo::Context &context, size_t count, size_t esize)
    : count_(count), esize_(esize), rank_(context.rank), peers_(static_cast<size_t>(context.size)),
      inputs_(static_cast<size_t>(context.size)) {
    const size_t bytes = count * esize, part = partBytes(bytes);
    memory_.map(memoryBytes(context.size, count, esize));
    mine_ = memory_.get();
    char *next = mine_ + part;
    const int base = context.nextSlot(2 * context.size);
    for (int j = 0; j < context.size; ++j) {
        if (j == rank_) continue;
        Peer &peer = peers_[static_cast<size_t>(j)];
        gloo::transport::Pair *pair = context.getPair(j).get();
        for (int p = 0; p < 2; ++p) {
            peer.inbox[p] = next;
            next += part;
            peer.recv[p] = pair->createRecvBuffer(base + 2 * j + p, peer.inbox[p], bytes);
            peer.send[p] = pair->createSendBuffer(base + 2 * rank_ + p, mine_, bytes);
        }
    }
}

void DirectExchange::run(const void *send, void *recv, infiniDtype_t dtype, infinicclReduceOp_t combine) {
    const int parity = static_cast<int>(calls_++ & 1);
    const int n = static_cast<int>(peers_.size());
    std::memcpy(mine_, send, count_ * esize_);
    // The next rank first: each rank's messages go out in a different order.
    for (int d = 1; d < n; ++d) peers_[static_cast<size_t>((rank_ + d) % n)].send[parity]->send();
    for (int r = 0; r < n; ++r) {
        if (r == rank_) {
            inputs_[static_cast<size_t>(r)] = mine_;
            continue;
        }
        Peer &peer = peers_[static_cast<size_t>(r)];
        peer.recv[parity]->waitRecv();
        inputs_[static_cast<size_t>(r)] = peer.inbox[parity];
    }
    void *out[1] = {recv};
    reduceInto(out, 1, inputs_.data(), n, count_, dtype, combine);
    for (int r = 0; r < n; ++r) {
        if (r != rank_) peers_[static_cast<size_t>(r)].send[parity]->waitSend();
    }
}

// An AllReduce's schedule, built at the first call of its count and element size: a DirectExchange
// where directExchange() says so, else a ChunkedRing.
struct AllReduceEntry {
    size_t count = 0, esize = 0;
    size_t bytes = 0; // the memory it holds
    uint64_t last_use = 0;
    std::unique_ptr<DirectExchange> direct;
    std::unique_ptr<ChunkedRing> ring;
};

struct GlooTransport {
    uint64_t calls = 0; // AllReduce calls through the cached entries
    std::shared_ptr<gloo::rendezvous::Context> context; // NULL once the comm was given up
    std::unique_ptr<store::Client> store;               // asked which rank went, after a failure
    std::string scope;
    std::vector<std::string> addresses; // every rank's listening addresses (listeningAddresses)
    std::chrono::milliseconds timeout{0};
    uint32_t tag = 0;
    std::string broken; // why the comm was given up
    // At most kCachedEntries, of kCachedTotalBytes of memory in all. Declared after `context`:
    // freed before the pairs they are registered with.
    std::vector<AllReduceEntry> cached;
};

namespace {

// The cache of AllReduce entries: a ring holds inboxes of about its count's bytes over the number of
// ranks, a direct exchange 2n - 1 times its count's bytes. An AllReduce whose ring alone would pass
// kCachedTotalBytes runs Gloo's ring on unbound buffers.
constexpr size_t kCachedEntries = 8;
constexpr size_t kCachedTotalBytes = size_t{256} << 20;
// An AllReduce runs a DirectExchange while each rank receives at most this many bytes in it
// ((n - 1) times the buffer: 1.5 MiB with 2 ranks, 512 KiB with 4, 219 KiB with 8), the chunked
// ring beyond. Small AllReduces are latency-bound: the exchange's one message each way against the
// ring's ~4n dependent hops. The exchange sends n - 1 times the buffer from each rank, where the
// ring sends 2 (n - 1) / n of it (as much with two ranks, n / 2 times less with n), and every rank
// reduces n whole inputs: it loses once those bytes cost more than the hops it saves, sooner the
// more ranks. On a machine with a core per rank (16 cores, 2 and 4 namespace hosts) the ring met
// Gloo's best algorithm (BCUBE) at 512 KiB in one of two runs with 4 ranks (0.84 and 1.09), while
// the exchange's times doubled with each doubling of its bytes, under BCUBE's (docs/collectives.md).
constexpr size_t kDirectReceivedBytes = size_t{1536} << 10;

// Whether an AllReduce of `bytes` among `n` ranks runs a DirectExchange.
bool directExchange(int n, size_t bytes) {
    return bytes <= kDirectReceivedBytes / static_cast<size_t>(n - 1);
}

// With two ranks Gloo's ring on unbound buffers is the faster above this size (docs/collectives.md).
constexpr size_t kTwoRanksRingBytes = size_t{16} << 20;

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

// The cached entry of `count` elements of `esize` bytes, which holds `bytes` of memory; `build` makes
// its schedule at its first call, after the least recently used entries went until it fits.
//
// How the ranks agree without a message: whether an entry serves a call, which entry, which entries
// are built and which evicted depend only on the count, the element size and the sequence of such
// calls, which every rank shares (the ranks of a collective make the same calls in the same order,
// with the same count and dtype). So every rank builds an entry, drawing the same slots, and frees
// one at the same call. The addresses of the buffers are this rank's alone: they decide only the
// binding of a ring's send side, which ChunkedRing::run rebinds by itself, with no slot and no
// message (a DirectExchange copies from and into the caller's buffers and binds none). A rank whose
// buffer moved rebinds while the others reuse theirs, and no call can find one rank building and
// another not.
template <typename Build>
AllReduceEntry &cachedEntry(GlooTransport &t, size_t count, size_t esize, size_t bytes, Build &&build) {
    ++t.calls;
    AllReduceEntry *entry = nullptr;
    for (AllReduceEntry &e : t.cached) {
        if (e.count == count && e.esize == esize) entry = &e;
    }
    if (entry == nullptr) {
        // The least recently used go, until this one fits.
        for (;;) {
            size_t total = bytes;
            for (const AllReduceEntry &e : t.cached) total += e.bytes;
            if (t.cached.size() < kCachedEntries && total <= kCachedTotalBytes) break;
            auto oldest = std::min_element(t.cached.begin(), t.cached.end(), [](const auto &a, const auto &b) {
                return a.last_use < b.last_use;
            });
            t.cached.erase(oldest);
        }
        AllReduceEntry made;
        made.count = count;
        made.esize = esize;
        made.bytes = bytes;
        build(made);
        t.cached.push_back(std::move(made));
        entry = &t.cached.back();
    }
    entry->last_use = t.calls;
    return *entry;
}

// An AllReduce through a cached entry, on the caller's buffers: a DirectExchange where
// directExchange() says so, else a ChunkedRing (out of place: send copied into recv, then the ring
// on recv). False where the ring's inboxes alone would pass kCachedTotalBytes, or with two ranks
// above kTwoRanksRingBytes (then Gloo's ring on unbound buffers serves it).
bool cachedAllReduce(GlooTransport &t, const Op &op) {
    const size_t esize = elementSize(op.dtype);
    const int n = t.context->size;
    if (n == 1) {
        if (op.send != op.recv) std::memcpy(op.recv, op.send, op.count * esize);
        return true;
    }
    const infinicclReduceOp_t combine = op.op == INFINICCL_AVG ? INFINICCL_SUM : op.op;
    const size_t direct_bytes = DirectExchange::memoryBytes(n, op.count, esize);
    if (directExchange(n, op.count * esize) && direct_bytes <= kCachedTotalBytes) {
        AllReduceEntry &entry = cachedEntry(t, op.count, esize, direct_bytes, [&](AllReduceEntry &e) {
            e.direct = std::make_unique<DirectExchange>(*t.context, op.count, esize);
        });
        entry.direct->run(op.send, op.recv, op.dtype, combine);
    } else {
        const size_t bytes = ChunkedRing::inboxBytes(n, op.count, esize);
        if (bytes > kCachedTotalBytes || (n == 2 && op.count * esize > kTwoRanksRingBytes)) return false;
        AllReduceEntry &entry = cachedEntry(t, op.count, esize, bytes, [&](AllReduceEntry &e) {
            e.ring = std::make_unique<ChunkedRing>(*t.context, op.count, esize);
        });
        if (op.send != op.recv) std::memcpy(op.recv, op.send, op.count * esize);
        entry.ring->run(op.recv, op.dtype, combine);
    }
    if (op.op == INFINICCL_AVG) divideBy(op.recv, op.count, op.dtype, n);
    return true;
}

void glooCall(GlooTransport &t, const Op &op) {
    const auto &ctx = t.context;
    const size_t esize = elementSize(op.dtype);
    const int n = ctx->size, rank = ctx->rank;
    std::vector<char> scratch;
    switch (op.kind) {
    case OpKind::AllReduce: {
        if (op.count == 0 || cachedAllReduce(t, op)) return;
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

// The store's counter that `rank` sets once the store told it which rank is gone (giveUp).
std::string answeredKey(const GlooTransport &t, int rank) { return t.scope + "answered/" + std::to_string(rank); }

// Under giveUp on rank 0, whose process serves the store: waits until every other rank has had the
// store's answer (its answeredKey counter) or is gone, at most until `until`. Without it a
// survivor that asks after rank 0's process ended finds no store, and can name only the peer whose
// connection it saw close: rank 0 itself, when rank 0 gave up and closed its connections first.
void keepTheStoreForTheOthers(const Comm &c, const GlooTransport &t, store::Clock::time_point until) {
    std::string error;
    std::vector<int> gone;
    for (;;) {
        if (!t.store->gone(t.scope, store::Clock::now(), &gone, &error)) return;
        bool all = true;
        for (int r = 1; r < c.nranks && all; ++r) {
            int64_t answered = 0;
            if (std::find(gone.begin(), gone.end(), r) != gone.end()) continue;
            if (!t.store->add(answeredKey(t, r), 0, &answered, &error)) return;
            all = answered > 0;
        }
        if (all || store::Clock::now() >= until) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
}

// Gives the comm up after `what` failed with Gloo's `detail`, naming the rank that went first: as
// the store saw it (asked before this rank closes its own connections, which the other ranks would
// see next; rank 0 keeps the store until the others have asked too), else the peer whose
// connection Gloo saw close.
infiniStatus_t giveUp(Comm &c, const char *what, const std::string &detail) {
    GlooTransport &t = *c.gloo;
    std::vector<int> gone;
    std::string error;
    const auto wait = std::min<std::chrono::milliseconds>(t.timeout, std::chrono::seconds(2));
    const auto until = store::Clock::now() + wait;
    const bool asked = t.store->gone(t.scope, until, &gone, &error);
    if (asked) {
        int64_t answers = 0;
        std::string ignored;
        t.store->add(answeredKey(t, c.rank), 1, &answers, &ignored);
    }
    // Closed first: no send still queued writes from the caller's buffers or the cached entries'
    // records once this returns, and the peers fail at once rather than wait.
    t.context->closeConnections();
    t.cached.clear();
    t.context.reset();
    if (asked && c.rank == 0) {
        keepTheStoreForTheOthers(c, t, until); // they fail now (the connections closed) and ask
    }
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

// SIGPIPE blocked on the calling thread while one lives: Gloo writes to its sockets with writev,
// which raises SIGPIPE where the peer is gone, and its default action would end the process rather
// than fail the call. A SIGPIPE raised meanwhile is discarded; a thread that blocked SIGPIPE itself
// is left as it was. Gloo's device thread, started while one lives (glooCommInit), inherits the
// mask and keeps SIGPIPE blocked.
class SigpipeBlocked {
public:
    SigpipeBlocked() {
        sigemptyset(&pipe_);
        sigaddset(&pipe_, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
    }
    ~SigpipeBlocked() {
        if (sigismember(&old_, SIGPIPE)) return;
        sigset_t pending;
        if (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE)) {
            const timespec zero{};
            sigtimedwait(&pipe_, nullptr, &zero);
        }
        pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }
    SigpipeBlocked(const SigpipeBlocked &) = delete;
    SigpipeBlocked &operator=(const SigpipeBlocked &) = delete;

private:
    sigset_t pipe_, old_;
};

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
    const SigpipeBlocked blocked;
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
    const SigpipeBlocked blocked;
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
