// bench_bandwidth.h - infinirt-bench's bandwidth sweeps: each direction (bench_buffers.h) at each
// size, infinirtMemcpy paired in ABBA rounds with the anchor's copy (bench/kernels/kernel_bench.h,
// paired()); GB/s is bytes over each side's median time of one synchronous copy.
#pragma once

#include "bench_progress.h"
#include "bench_results.h"
#include "bench_session.h"

#include <cstddef>
#include <vector>

namespace infinirt_bench_tool {

// Appends one Sweep per direction to r->bandwidth, over `sizes`. Every copy is checked once at the
// largest size before it is timed; false when that fails (message on stderr, g_failed set).
bool measureBandwidth(const Session &s, const std::vector<size_t> &sizes, bool quick, Progress &progress, Results *r);

} // namespace infinirt_bench_tool
