// bench_latency.h - infinirt-bench's latencies, in ns per call: event record and query, stream
// synchronize, small copies, and the empty kernel's launch (alone and with a synchronize). Each is
// timed in batches of calls, paired in ABBA rounds with the anchor's call where it has one
// (bench/kernels/kernel_bench.h, paired()); a stream is drained untimed between batches where a
// latency's description says so.
#pragma once

#include "bench_progress.h"
#include "bench_results.h"
#include "bench_session.h"

namespace infinirt_bench_tool {

// How many latencies measureLatencies gives (measured or skipped): one progress step each.
constexpr int kLatencies = 8;

// Appends the latencies to r->latency; a kernel launch that cannot be measured (no empty kernel
// for the device) goes to r->skipped with the reason. Every call is checked once before it is
// timed; false when that fails (message on stderr, g_failed set).
bool measureLatencies(const Session &s, bool quick, Progress &progress, Results *r);

} // namespace infinirt_bench_tool
