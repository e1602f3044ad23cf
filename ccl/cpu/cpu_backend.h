// cpu_backend.h - the cpu collective backend: ranks are threads of one process or processes of
// one host; they meet in a region (heap for CommInitAll, POSIX shared memory named by the unique
// id for CommInitRank) holding a barrier, one post per rank, one staging slot per rank and one
// ring per ordered pair of ranks. Collectives run on the calling thread. AllReduce on a heap
// region is direct: every rank posts its buffers, a barrier, each rank reduces its slice of every
// rank's send buffer into every rank's recv buffer, a drain (a last barrier). The other
// collectives, and AllReduce across processes, go through the slots in chunks of one slot:
// stage, barrier, combine, barrier.
#pragma once

#include "../common/ccl_plugin_support.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace infiniccl::cpu {

using common::fail;

constexpr int kMaxRanks = 64;
constexpr size_t kSlotBytes = size_t{1} << 20; // staging per rank
constexpr size_t kRingBytes = size_t{256} << 10; // per ordered pair of ranks

struct alignas(64) Ring {
    std::atomic<uint64_t> head; // bytes written, ever
    char pad0[56];
    std::atomic<uint64_t> tail; // bytes read, ever
    char pad1[56];
};

// A rank's part of a direct call, written before the call's first barrier and read by the other
// ranks after it. `epoch` is the number of that barrier (from 1), so that a post left by an
// earlier call never passes for one of this call.
struct alignas(64) Post {
    uint64_t epoch;
    const void *send;
    void *recv;
    size_t count;
    int32_t dtype;
    int32_t op;
};

// The barrier counter's top bit: set once a rank gave up on the comm (a timeout, or ranks that
// called different collectives); every barrier fails from then on.
constexpr uint64_t kAbandoned = uint64_t{1} << 63;

struct alignas(64) Header {
    std::atomic<int32_t> nranks;
    std::atomic<int32_t> joined;
    std::atomic<uint32_t> present[kMaxRanks];
    alignas(64) std::atomic<uint64_t> barrier; // arrivals, ever, and kAbandoned
    alignas(64) std::atomic<int32_t> cpus[kMaxRanks]; // 1 + the cpu each rank last arrived on (0: unknown)
    Post posts[kMaxRanks];
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "shared-memory atomics must be lock-free");

// Where the parts of a region of `nranks` ranks lie (offsets from its start).
struct Layout {
    size_t rings, slots, ring_data, total;
    explicit Layout(int nranks);
};

// A region mapped or allocated by this process; freed when its last comm goes.
struct Region {
    char *base = nullptr;
    size_t bytes = 0;
    bool shared = false; // mmap'ed shared memory (else heap)
    ~Region();
    Header *header() const { return reinterpret_cast<Header *>(base); }
};

// What one rank's waits at the barriers did. INFINICCL_CPU_STATS=1 prints it when the comm is
// destroyed (commDestroy).
struct WaitStats {
    uint64_t waits = 0; // barriers and drains passed
    uint64_t at_once = 0; // passed on arrival: this rank came last
    uint64_t polled = 0; // passed while polling
    uint64_t yielded = 0; // passed while yielding the cpu
    uint64_t slept = 0; // passed after sleeping
    uint64_t unpolled = 0; // waits that did not poll: another rank was last seen on this cpu
    uint64_t moves = 0; // arrivals on another cpu than this rank's previous one
    int cpu = -1; // the cpu of the last arrival
};

// A comm whose ranks talk over Gloo's TCP transport (cpu_gloo.cpp): ranks on several hosts.
struct GlooTransport;

struct Comm {
    std::shared_ptr<Region> region; // NULL for a comm over Gloo
    std::shared_ptr<GlooTransport> gloo; // ranks on several hosts (else NULL)
    int rank = 0;
    int nranks = 1;
    int device = 0;
    uint64_t barriers = 0; // barriers this rank has passed
    WaitStats stats;
    Layout layout{1};
    // Every rank is a thread of this process (the region is on the heap): ranks may read and
    // write each other's buffers.
    bool direct() const { return !region->shared; }
    char *slot(int r) const { return region->base + layout.slots + static_cast<size_t>(r) * kSlotBytes; }
    Ring *ring(int from, int to) const {
        return reinterpret_cast<Ring *>(region->base + layout.rings) + (from * nranks + to);
    }
    char *ringData(int from, int to) const {
        return region->base + layout.ring_data + static_cast<size_t>(from * nranks + to) * kRingBytes;
    }
};

// One call, as queued inside a group or run at once.
enum class OpKind { AllReduce, Reduce, Broadcast, AllGather, AllGatherV, ReduceScatter, ReduceScatterV, Send, Recv };
struct Op {
    OpKind kind;
    Comm *comm;
    const void *send;
    void *recv;
    size_t count; // elements (per rank where the call says so)
    std::vector<size_t> counts; // V variants
    infiniDtype_t dtype;
    infinicclReduceOp_t op;
    int root; // root or peer
    infinirtStream_t stream;
};

// cpu_region.cpp
infiniStatus_t createHeapRegion(int nranks, std::shared_ptr<Region> *out);
infiniStatus_t joinSharedRegion(const unsigned char *id, int nranks, int rank, std::shared_ptr<Region> *out);
double timeoutSeconds(); // INFINICCL_CPU_TIMEOUT seconds, default 120

// Paces one wait for another rank: polls first, then yields the cpu, then sleeps in short steps.
// It polls only if `poll`: the caller passes false where the rank waited for may need this very
// cpu, which polling would only keep from it. pause() returns false once the wait has lasted
// timeoutSeconds() (and still paces the steps after that).
class Backoff {
public:
    // How far a wait went: not at all, polling, yielding, sleeping.
    enum class Phase { None, Poll, Yield, Sleep };
    explicit Backoff(bool poll) : poll_(poll) {}
    bool pause();
    Phase phase() const { return phase_; }
    bool polls() const { return poll_; }

private:
    bool poll_;
    unsigned steps_ = 0;
    bool polling_ = false;
    Phase phase_ = Phase::None;
    std::chrono::steady_clock::time_point start_{};
};

// Waits until every rank of the comm has entered this barrier. Fails (DRIVER_ERROR) at once on a
// comm a rank gave up on, and after timeoutSeconds(), when this rank gives up on it itself (unless
// the last rank came meanwhile). Once a rank gave up, every barrier of every rank fails, so no
// rank passes a barrier that another gave up on. `what` names the call in the message.
infiniStatus_t barrier(Comm &c, const char *what);
// The last barrier of a call whose ranks all passed its previous barrier and then only work (no
// wait): every rank will come, so it waits for them however long that takes, even on a comm
// given up on. A rank leaves a direct call through it: none returns while another may still
// touch its buffers.
void drain(Comm &c);
// Writes the comm's WaitStats to stderr if INFINICCL_CPU_STATS is set to a value other than 0.
void reportStats(const Comm &c);
// Fails (DRIVER_ERROR) if a rank gave up on the comm.
infiniStatus_t usable(const Comm &c, const char *what);
// Gives up on the comm: every rank's next barrier fails, and so does every later one.
void abandon(Comm &c);

// cpu_reduce.cpp: out[o][i] = op over r < n of in[r][i] for every o < nout (AVG: divided by n).
// out[0] is written by the reduction, the other outputs are copied from it. An output may be one
// of the inputs (the same elements: in place); no other overlap.
void reduceInto(void *const *out, int nout, const void *const *in, int n, size_t count, infiniDtype_t dtype,
                infinicclReduceOp_t op);
bool dtypeSupported(infiniDtype_t dtype, int reduction);
// AVG's last step where the sum was made elsewhere: buf[i] = buf[i] / n, as reduceInto's AVG divides.
void divideBy(void *buf, size_t count, infiniDtype_t dtype, int n);
size_t elementSize(infiniDtype_t dtype);

// cpu_collective.cpp: one rank's part of one call, on the calling thread.
infiniStatus_t runCollective(const Op &op);
// Runs one comm's queued calls in order; consecutive Send/Recv make progress together.
infiniStatus_t runOps(const std::vector<const Op *> &ops);

// cpu_gloo.cpp (cpu_gloo_absent.cpp where Gloo was not found): ranks on several hosts.
// INFINICCL_CPU_TRANSPORT: "gloo" or "shm" forces the transport of a comm from the environment.
infiniStatus_t glooCommInit(Comm &c, const infinicclPluginRendezvous_t &rendezvous);
// One comm's queued calls (one call outside a group), over Gloo.
infiniStatus_t glooRunOps(Comm &c, const std::vector<const Op *> &ops);

// cpu_group.cpp: runs `op` now, or queues it inside a group.
infiniStatus_t submit(Op op);

// The entries (cpu_plugin.cpp builds the table from them).
INFINICCL_DECLARE_ENTRIES()

} // namespace infiniccl::cpu
