// The region ranks meet in: heap memory for the comms of one CommInitAll, POSIX shared memory
// named by the unique id for CommInitRank (threads or processes of one host); the barrier and
// the pacing of waits, with their timeout.
#include "cpu_backend.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace infiniccl::cpu {

Layout::Layout(int nranks) {
    const size_t pairs = static_cast<size_t>(nranks) * static_cast<size_t>(nranks);
    rings = (sizeof(Header) + 4095) / 4096 * 4096;
    slots = rings + (pairs * sizeof(Ring) + 4095) / 4096 * 4096;
    ring_data = slots + static_cast<size_t>(nranks) * kSlotBytes;
    total = ring_data + pairs * kRingBytes;
}

Region::~Region() {
    if (base == nullptr) return;
    if (shared) {
        munmap(base, bytes);
    } else {
        std::free(base);
    }
}

double timeoutSeconds() {
    static const double seconds = [] {
        const char *v = std::getenv("INFINICCL_CPU_TIMEOUT");
        const double s = v != nullptr ? std::atof(v) : 0.0;
        return s > 0.0 ? s : 120.0;
    }();
    return seconds;
}

namespace {

using Clock = std::chrono::steady_clock;

// How long a wait polls, then how long it yields, before it sleeps.
constexpr double kPollSeconds = 20e-6;
constexpr double kYieldSeconds = 1e-3;

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

// Records the cpu `rank` runs on (a store only when it moved, so the line stays shared).
void noteCpu(Header &h, int rank, WaitStats *stats) {
    const int cpu = sched_getcpu();
    if (cpu >= 0 && h.cpus[rank].load(std::memory_order_relaxed) != cpu + 1) {
        h.cpus[rank].store(cpu + 1, std::memory_order_relaxed);
    }
    if (stats != nullptr) {
        stats->moves += stats->cpu >= 0 && cpu != stats->cpu ? 1 : 0;
        stats->cpu = cpu;
    }
}

// Counts one passed wait of `backoff` in `stats` (none: the join, before the comm exists).
void count(WaitStats *stats, const Backoff *backoff) {
    if (stats == nullptr) return;
    ++stats->waits;
    if (backoff == nullptr) {
        ++stats->at_once;
        return;
    }
    stats->unpolled += backoff->polls() ? 0 : 1;
    switch (backoff->phase()) {
    case Backoff::Phase::None:
    case Backoff::Phase::Poll: ++stats->polled; break;
    case Backoff::Phase::Yield: ++stats->yielded; break;
    case Backoff::Phase::Sleep: ++stats->slept; break;
    }
}

// Whether another rank was last seen on the cpu this one runs on: then polling would only keep
// that rank from the cpu. A process confined to one cpu shows here too, once every rank arrived
// once. (The calling thread's own affinity says nothing of the others': a rank pinned to one cpu
// may well wait for a rank on another.)
bool sharesCpu(const Header &h, int rank, int nranks) {
    const int mine = h.cpus[rank].load(std::memory_order_relaxed);
    for (int r = 0; mine != 0 && r < nranks; ++r) {
        if (r != rank && h.cpus[r].load(std::memory_order_relaxed) == mine) return true;
    }
    return false;
}

enum class Arrival { Passed, TimedOut, Abandoned };

// Counts `rank` in at the region's barrier and waits until the count reaches `target`. Bounded:
// fails at once on an abandoned comm, and after the timeout abandons it (unless the last rank
// came meanwhile). Otherwise (a drain) it waits for the count alone, however long that takes.
// A passed wait is counted in `stats` (if not NULL).
Arrival arriveAndWait(Header &h, int rank, int nranks, uint64_t target, bool bounded, WaitStats *stats) {
    noteCpu(h, rank, stats);
    std::atomic<uint64_t> &counter = h.barrier;
    uint64_t seen = counter.fetch_add(1, std::memory_order_acq_rel) + 1;
    if ((seen & kAbandoned) == 0 && seen >= target) {
        count(stats, nullptr);
        return Arrival::Passed;
    }
    Backoff backoff(!sharesCpu(h, rank, nranks));
    for (;;) {
        if (bounded && (seen & kAbandoned) != 0) return Arrival::Abandoned;
        if ((seen & ~kAbandoned) >= target) {
            count(stats, &backoff);
            return Arrival::Passed;
        }
        if (backoff.pause() || !bounded) {
            seen = counter.load(std::memory_order_acquire);
        } else if (counter.compare_exchange_strong(seen, seen | kAbandoned, std::memory_order_acq_rel,
                                                   std::memory_order_acquire)) {
            return Arrival::TimedOut;
        }
    }
}

const char *const kGaveUp = "another rank gave up on this comm (it timed out, or the ranks called different "
                            "collectives); the comm can no longer be used";

} // namespace

bool Backoff::pause() {
    if (steps_++ == 0) {
        start_ = Clock::now();
        polling_ = poll_;
    }
    if (polling_) {
        phase_ = Phase::Poll;
        // The clock is read every 32 polls only.
        if ((steps_ & 31) != 0 || std::chrono::duration<double>(Clock::now() - start_).count() < kPollSeconds) {
            cpuRelax();
            return true;
        }
        polling_ = false;
    }
    const double waited = std::chrono::duration<double>(Clock::now() - start_).count();
    if (waited < kYieldSeconds) {
        phase_ = Phase::Yield;
        sched_yield();
    } else {
        phase_ = Phase::Sleep;
        std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    return waited < timeoutSeconds();
}

infiniStatus_t barrier(Comm &c, const char *what) {
    const uint64_t target = (c.barriers + 1) * static_cast<uint64_t>(c.nranks);
    switch (arriveAndWait(*c.region->header(), c.rank, c.nranks, target, true, &c.stats)) {
    case Arrival::Passed:
        ++c.barriers;
        return INFINI_STATUS_SUCCESS;
    case Arrival::TimedOut:
        return fail(INFINI_STATUS_DRIVER_ERROR,
                    "rank %d of %d waited %.0f s for the other ranks in %s (INFINICCL_CPU_TIMEOUT): a rank exited, or "
                    "the ranks called different collectives; the comm can no longer be used",
                    c.rank, c.nranks, timeoutSeconds(), what);
    case Arrival::Abandoned:
        break;
    }
    return fail(INFINI_STATUS_DRIVER_ERROR, "rank %d of %d in %s: %s", c.rank, c.nranks, what, kGaveUp);
}

void drain(Comm &c) {
    const uint64_t target = (c.barriers + 1) * static_cast<uint64_t>(c.nranks);
    arriveAndWait(*c.region->header(), c.rank, c.nranks, target, false, &c.stats);
    ++c.barriers;
}

infiniStatus_t usable(const Comm &c, const char *what) {
    if ((c.region->header()->barrier.load(std::memory_order_acquire) & kAbandoned) == 0) return INFINI_STATUS_SUCCESS;
    return fail(INFINI_STATUS_DRIVER_ERROR, "rank %d of %d in %s: %s", c.rank, c.nranks, what, kGaveUp);
}

void abandon(Comm &c) { c.region->header()->barrier.fetch_or(kAbandoned, std::memory_order_acq_rel); }

void reportStats(const Comm &c) {
    static const bool wanted = [] {
        const char *v = std::getenv("INFINICCL_CPU_STATS");
        return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
    }();
    if (!wanted) return;
    if (c.gloo != nullptr) {
        std::fprintf(stderr, "infiniccl cpu: rank %d of %d (cpu:%d): over gloo (ranks on several hosts)\n", c.rank,
                     c.nranks, c.device);
        return;
    }
    const WaitStats &s = c.stats;
    std::fprintf(stderr,
                 "infiniccl cpu: rank %d of %d (cpu:%d): %llu waits: %llu at once, %llu polled, %llu yielded, %llu "
                 "slept; %llu without polling; last on cpu %d, %llu moves\n",
                 c.rank, c.nranks, c.device, static_cast<unsigned long long>(s.waits),
                 static_cast<unsigned long long>(s.at_once), static_cast<unsigned long long>(s.polled),
                 static_cast<unsigned long long>(s.yielded), static_cast<unsigned long long>(s.slept),
                 static_cast<unsigned long long>(s.unpolled), s.cpu, static_cast<unsigned long long>(s.moves));
}

infiniStatus_t createHeapRegion(int nranks, std::shared_ptr<Region> *out) {
    const Layout layout(nranks);
    auto region = std::make_shared<Region>();
    region->base = static_cast<char *>(std::aligned_alloc(4096, layout.total));
    if (region->base == nullptr) {
        return fail(INFINI_STATUS_OUT_OF_MEMORY, "allocating the %zu-byte region of %d ranks", layout.total, nranks);
    }
    std::memset(region->base, 0, layout.total);
    region->bytes = layout.total;
    region->header()->nranks.store(nranks);
    *out = std::move(region);
    return INFINI_STATUS_SUCCESS;
}

namespace {

// The segment's name: the id's 16 random bytes in hex.
void segmentName(const unsigned char *id, char name[64]) {
    int n = std::snprintf(name, 64, "/infiniccl-");
    for (int i = 0; i < 16; ++i) n += std::snprintf(name + n, static_cast<size_t>(64 - n), "%02x", id[4 + i]);
}

} // namespace

infiniStatus_t joinSharedRegion(const unsigned char *id, int nranks, int rank, std::shared_ptr<Region> *out) {
    if (std::memcmp(id, "cpu", 4) != 0) {
        return fail(INFINI_STATUS_BAD_PARAM, "the unique id was not made by the cpu backend");
    }
    if (nranks > kMaxRanks) {
        return fail(INFINI_STATUS_BAD_PARAM, "%d ranks: the cpu backend joins at most %d", nranks, kMaxRanks);
    }
    char name[64];
    segmentName(id, name);
    const Layout layout(nranks);
    const int fd = shm_open(name, O_CREAT | O_RDWR, 0600);
    if (fd < 0) return fail(INFINI_STATUS_DRIVER_ERROR, "shm_open(%s): %s", name, std::strerror(errno));
    struct stat st {};
    if (fstat(fd, &st) != 0 ||
        (st.st_size == 0 && ftruncate(fd, static_cast<off_t>(layout.total)) != 0)) {
        const int e = errno;
        close(fd);
        return fail(INFINI_STATUS_DRIVER_ERROR, "sizing shared memory %s to %zu bytes: %s", name, layout.total,
                    std::strerror(e));
    }
    if (st.st_size != 0 && static_cast<size_t>(st.st_size) != layout.total) {
        close(fd);
        return fail(INFINI_STATUS_BAD_PARAM, "rank %d joins with %d ranks, another rank of this id gave a different nranks",
                    rank, nranks);
    }
    void *base = mmap(nullptr, layout.total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    const int map_errno = errno;
    close(fd);
    if (base == MAP_FAILED) {
        return fail(INFINI_STATUS_DRIVER_ERROR, "mmap of %zu bytes of %s: %s", layout.total, name,
                    std::strerror(map_errno));
    }
    auto region = std::make_shared<Region>();
    region->base = static_cast<char *>(base);
    region->bytes = layout.total;
    region->shared = true;
    Header *h = region->header();
    int32_t expected = 0;
    if (!h->nranks.compare_exchange_strong(expected, nranks) && expected != nranks) {
        return fail(INFINI_STATUS_BAD_PARAM, "rank %d joins with %d ranks, another rank of this id gave %d", rank, nranks,
                    expected);
    }
    uint32_t absent = 0;
    if (!h->present[rank].compare_exchange_strong(absent, 1u)) {
        return fail(INFINI_STATUS_BAD_PARAM, "rank %d of this id has joined already", rank);
    }
    h->joined.fetch_add(1);
    // Wait for every rank: the join is the region's first barrier.
    const Arrival arrival = arriveAndWait(*h, rank, nranks, static_cast<uint64_t>(nranks), true, nullptr);
    if (arrival != Arrival::Passed) {
        shm_unlink(name);
        return fail(INFINI_STATUS_DRIVER_ERROR,
                    "rank %d: %d of %d ranks joined within %.0f s (INFINICCL_CPU_TIMEOUT)%s", rank, h->joined.load(),
                    nranks, timeoutSeconds(), arrival == Arrival::Abandoned ? ": another rank gave up waiting" : "");
    }
    shm_unlink(name); // every rank has it mapped: the name is no longer needed (ENOENT after the first)
    *out = std::move(region);
    return INFINI_STATUS_SUCCESS;
}

} // namespace infiniccl::cpu
