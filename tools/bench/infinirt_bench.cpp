// infinirt-bench: bandwidth and latency of one device through infinirt, each figure beside the
// native API's measured in the same run on the same objects (bench_anchor.h), as text tables, a
// JSON document (--json, schema in README.md) and a plot (--plot). Usage: --help.
//
// Timing: each figure pairs infinirt's call with the native one in ABBA rounds of batches
// (bench/kernels/kernel_bench.h, paired()) and reports each side's median; bandwidth is bytes over
// the median time of one synchronous copy. Timing never decides the exit status: 0 when every
// call worked, 1 when one failed (with infinirt's message), 2 for bad arguments.
#include "bench_bandwidth.h"
#include "bench_latency.h"
#include "bench_options.h"
#include "bench_output.h"
#include "bench_plot.h"
#include "bench_progress.h"
#include "bench_session.h"
#include "bench_sizes.h"
#include "kernel_bench.h"

#include <cstdio>
#include <string>
#include <vector>

using namespace infinirt_bench_tool;

int main(int argc, char **argv) {
    Options opt;
    const int parsed = parseOptions(argc, argv, &opt);
    if (parsed >= 0) {
        return parsed;
    }
    std::string python;
    std::string script;
    std::string error;
    if (!opt.plot_file.empty() && !plotReady(opt.plot_file, &python, &script, &error)) {
        std::fprintf(stderr, "infinirt-bench: %s\n", error.c_str());
        return 2;
    }
    Results r;
    Session session;
    if (const int rc = openSession(opt, &r, &session); rc >= 0) {
        return rc;
    }
    {
        const std::vector<size_t> sizes = sweepSizes(r.max_size);
        Progress progress(static_cast<int>(sizes.size() * kDirections) + kLatencies);
        if (!measureBandwidth(session, sizes, opt.quick, progress, &r) ||
            !measureLatencies(session, opt.quick, progress, &r)) {
            return 1;
        }
    }
    if (infinirt_bench::g_failed) {
        return 1;
    }
    return writeOutputs(opt, r, python, script);
}
