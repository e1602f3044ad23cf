// cpu_backend.h - the cpu collective backend: ranks are threads of one process or processes of
// one host; they meet in a region (heap for CommInitAll, POSIX shared memory named by the unique
// id for CommInitRank) holding a barrier, one staging slot per rank and one ring per ordered
// pair of ranks. Collectives run on the calling thread, in chunks of one slot: stage, barrier,
// combine, barrier.
#pragma once

#include "../common/ccl_plugin_support.hpp"

#include <atomic>
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

struct alignas(64) Header {
    std::atomic<int32_t> nranks;
    std::atomic<int32_t> joined;
    std::atomic<uint32_t> present[kMaxRanks];
    alignas(64) std::atomic<uint64_t> barrier;
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

struct Comm {
    std::shared_ptr<Region> region;
    int rank = 0;
    int nranks = 1;
    int device = 0;
    uint64_t barriers = 0; // barriers this rank has passed
    Layout layout{1};
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
// Waits until value >= target; false after the timeout (INFINICCL_CPU_TIMEOUT seconds, default 120).
bool waitUntil(const std::atomic<uint64_t> &value, uint64_t target);
double timeoutSeconds();
infiniStatus_t barrier(Comm &c, const char *what);

// cpu_reduce.cpp: out[i] = op over r < n of in[r][i] (AVG: divided by n).
void reduceInto(void *out, const void *const *in, int n, size_t count, infiniDtype_t dtype, infinicclReduceOp_t op);
bool dtypeSupported(infiniDtype_t dtype, int reduction);
size_t elementSize(infiniDtype_t dtype);

// cpu_collective.cpp: one rank's part of one call, on the calling thread.
infiniStatus_t runCollective(const Op &op);
// Runs one comm's queued calls in order; consecutive Send/Recv make progress together.
infiniStatus_t runOps(const std::vector<const Op *> &ops);

// cpu_group.cpp: runs `op` now, or queues it inside a group.
infiniStatus_t submit(Op op);

// The entries (cpu_plugin.cpp builds the table from them).
INFINICCL_DECLARE_ENTRIES()

} // namespace infiniccl::cpu
