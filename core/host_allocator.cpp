#include "host_allocator.hpp"

#include "infinicore/error.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace infinicore::detail {

void HostAllocator::Counter::add(int64_t delta) {
    int64_t now = current.fetch_add(delta, std::memory_order_relaxed) + delta;
    int64_t seen = peak.load(std::memory_order_relaxed);
    while (now > seen && !peak.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
    }
}

namespace {

// Requests above physical memory are refused up front: with overcommit they could "succeed" and
// fault later.
size_t physicalMemory() {
    static const size_t bytes = [] {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : SIZE_MAX;
    }();
    return bytes;
}

} // namespace

void *HostAllocator::allocate(size_t size) {
    void *ptr = nullptr;
    const bool too_big = size > physicalMemory();
    int err = too_big ? ENOMEM : posix_memalign(&ptr, kAlignment, size == 0 ? 1 : size);
    if (err != 0) {
        ooms_.fetch_add(1, std::memory_order_relaxed);
        int64_t allocated = bytes_.current.load(std::memory_order_relaxed);
        std::string why = too_big ? "larger than the " + std::to_string(physicalMemory()) + " bytes of physical memory"
                                  : "posix_memalign failed: " + std::string(err == ENOMEM ? "ENOMEM" : "EINVAL") +
                                        " (" + std::to_string(err) + ")";
        throw OutOfMemoryError("HostAllocator::allocate",
                               "cannot allocate " + std::to_string(size) + " bytes of host memory: " + why + "; " +
                                   std::to_string(allocated) + " bytes allocated",
                               size, static_cast<size_t>(allocated), 0, 0);
    }
    allocs_.fetch_add(1, std::memory_order_relaxed);
    bytes_.add(static_cast<int64_t>(size));
    blocks_.add(1);
    return ptr;
}

void HostAllocator::deallocate(void *ptr, size_t size) noexcept {
    std::free(ptr);
    frees_.fetch_add(1, std::memory_order_relaxed);
    bytes_.add(-static_cast<int64_t>(size));
    blocks_.add(-1);
}

MemoryStats HostAllocator::stats() const {
    MemoryStats s;
    s.allocated_bytes = {bytes_.current.load(), bytes_.peak.load()};
    // Host memory is reserved exactly when it is allocated.
    s.reserved_bytes = s.allocated_bytes;
    s.active_bytes = s.allocated_bytes;
    s.allocations = {blocks_.current.load(), blocks_.peak.load()};
    s.segments = s.allocations;
    s.num_allocs = allocs_.load();
    s.num_frees = frees_.load();
    s.num_device_allocs = s.num_allocs;
    s.num_device_frees = s.num_frees;
    s.num_ooms = ooms_.load();
    return s;
}

void HostAllocator::resetPeakStats() {
    bytes_.peak.store(bytes_.current.load());
    blocks_.peak.store(blocks_.current.load());
}

} // namespace infinicore::detail
