// Keeping a MemoryStat (include/infinicore/memory_stats.hpp) up to date inside an allocator: the
// peak follows the current value. For statistics guarded by the allocator's mutex; counters that
// threads update without a lock use SharedPeak (thread_counters.hpp) or atomics instead.
#ifndef INFINICORE_CORE_MEMORY_STAT_OPS_HPP
#define INFINICORE_CORE_MEMORY_STAT_OPS_HPP

#include "infinicore/memory_stats.hpp"

#include <algorithm>
#include <cstdint>

namespace infinicore::detail {

// Moves `stat` by `delta` (either sign), raising its peak if it went above it.
inline void add(MemoryStat &stat, int64_t delta) {
    stat.current += delta;
    stat.peak = std::max(stat.peak, stat.current);
}

// Forgets the peak: from now on it is the highest value seen from the current one on.
inline void resetPeak(MemoryStat &stat) {
    stat.peak = stat.current;
}

} // namespace infinicore::detail

#endif // INFINICORE_CORE_MEMORY_STAT_OPS_HPP
