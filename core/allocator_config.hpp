// Configuration of the device caching allocator, from INFINICORE_ALLOC_CONF.
//
// Syntax: comma-separated key:value pairs, e.g. "max_split_size_mb:256,thread_cache_mb:0".
//   max_split_size_mb   blocks larger than this are never split, and requests below it never
//                       take them (limits fragmentation from huge blocks); default: no limit.
//   thread_cache_mb     bytes of freed blocks each thread keeps for itself; 0 turns the per-thread
//                       caches off (every request then goes to the shared pool); default 64.
//   thread_cache_depth  freed blocks of one size each thread keeps; default 16.
//   release_before_growth  1: before a new segment raises the peak reservation, release unused
//                       segments (smallest first) so that it does not; 0: keep every cached
//                       segment until trim or out-of-memory (fewer device calls, higher peak);
//                       default 1.
//   expandable_segments true: each stream's pools grow by mapping pages into one reserved address
//                       range (ExpandableSegment) instead of allocating segments of their own,
//                       so that a block can grow into the pages after it; backends without
//                       virtual memory fall back to segments with one warning; default false.
//                       Also spelled True/False or 1/0.
// Unknown keys and malformed values are errors (Error with BAD_PARAM), never silently ignored.
#ifndef INFINICORE_CORE_ALLOCATOR_CONFIG_HPP
#define INFINICORE_CORE_ALLOCATOR_CONFIG_HPP

#include <cstddef>
#include <cstdint>
#include <string>

namespace infinicore::detail {

struct AllocatorConfig {
    size_t max_split_size = SIZE_MAX;
    size_t thread_cache_bytes = size_t(64) << 20;
    size_t thread_cache_depth = 16;
    bool release_before_growth = true;
    bool expandable_segments = false;

    // Throws Error(INFINI_STATUS_BAD_PARAM) naming the offending entry.
    static AllocatorConfig parse(const std::string &text);
    // parse(INFINICORE_ALLOC_CONF), or the defaults when it is unset or empty.
    static AllocatorConfig fromEnvironment();
};

} // namespace infinicore::detail

#endif // INFINICORE_CORE_ALLOCATOR_CONFIG_HPP
