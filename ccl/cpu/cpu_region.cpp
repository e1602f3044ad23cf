// The region ranks meet in: heap memory for the comms of one CommInitAll, POSIX shared memory
// named by the unique id for CommInitRank (threads or processes of one host); the barrier and
// the waits with their timeout.
#include "cpu_backend.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
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

bool waitUntil(const std::atomic<uint64_t> &value, uint64_t target) {
    for (int i = 0; i < 64; ++i) {
        if (value.load(std::memory_order_acquire) >= target) return true;
    }
    const auto start = std::chrono::steady_clock::now();
    for (unsigned spins = 0;; ++spins) {
        if (value.load(std::memory_order_acquire) >= target) return true;
        if (spins < 256) {
            sched_yield();
            continue;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(20));
        if ((spins & 255) == 0 &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeoutSeconds()) {
            return value.load(std::memory_order_acquire) >= target;
        }
    }
}

infiniStatus_t barrier(Comm &c, const char *what) {
    std::atomic<uint64_t> &counter = c.region->header()->barrier;
    const uint64_t target = (c.barriers + 1) * static_cast<uint64_t>(c.nranks);
    counter.fetch_add(1, std::memory_order_acq_rel);
    if (!waitUntil(counter, target)) {
        return fail(INFINI_STATUS_DRIVER_ERROR,
                    "rank %d of %d waited %.0f s for the other ranks in %s (INFINICCL_CPU_TIMEOUT): a rank exited, or "
                    "the ranks called different collectives",
                    c.rank, c.nranks, timeoutSeconds(), what);
    }
    ++c.barriers;
    return INFINI_STATUS_SUCCESS;
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
    // Wait for every rank (the barrier counter doubles as the join count's mirror).
    h->barrier.fetch_add(1, std::memory_order_acq_rel);
    if (!waitUntil(h->barrier, static_cast<uint64_t>(nranks))) {
        shm_unlink(name);
        return fail(INFINI_STATUS_DRIVER_ERROR, "rank %d: %d of %d ranks joined within %.0f s (INFINICCL_CPU_TIMEOUT)",
                    rank, h->joined.load(), nranks, timeoutSeconds());
    }
    shm_unlink(name); // every rank has it mapped: the name is no longer needed (ENOENT after the first)
    *out = std::move(region);
    return INFINI_STATUS_SUCCESS;
}

} // namespace infiniccl::cpu
