// HostAllocator: aligned pageable host memory, the allocator of cpu devices and of
// context::allocateHostMemory. No caching: the C library's allocator already caches host memory.
//
// Thread safety: every method may be called from any thread; statistics are atomic counters.
#ifndef INFINICORE_CORE_HOST_ALLOCATOR_HPP
#define INFINICORE_CORE_HOST_ALLOCATOR_HPP

#include "infinicore/error.hpp"
#include "infinicore/memory_stats.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace infinicore::detail {

class HostAllocator {
public:
    // Wide enough for any vector unit and a cache line.
    static constexpr size_t kAlignment = 64;

    // Throws OutOfMemoryError. size 0 gives a distinct minimal block.
    void *allocate(size_t size);
    // `size` as given to allocate. Never throws.
    void deallocate(void *ptr, size_t size) noexcept;

    MemoryStats stats() const;
    void resetPeakStats();

private:
    struct Counter {
        std::atomic<int64_t> current{0};
        std::atomic<int64_t> peak{0};
        void add(int64_t delta);
    };
    Counter bytes_;
    Counter blocks_;
    std::atomic<uint64_t> allocs_{0};
    std::atomic<uint64_t> frees_{0};
    std::atomic<uint64_t> ooms_{0};
};

} // namespace infinicore::detail

#endif // INFINICORE_CORE_HOST_ALLOCATOR_HPP
