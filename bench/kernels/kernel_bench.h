// Shared pieces of the kernel benchmarks (bench/kernels): paired timing in ABBA rounds, the
// result table (what, ours, anchor, ratio, limit, PASS/FAIL) and small helpers. Header-only; no
// Google Benchmark (the programs are plain, like bench/cuda).
//
// Timing is never a test: the programs print PASS/FAIL against the limits of issue 9 and exit 0
// whatever the figures (1 only when an API call fails).
#pragma once

#include <infinirt.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace infinirt_bench {

using Clock = std::chrono::steady_clock;

// The empty kernel `empty()` as PTX for sm_52 and newer (the driver JIT-compiles it for any GPU):
// the cuda benchmarks' image when nvcc is absent, and infinirt-bench's on both of its sides.
inline const char kEmptyKernelPtx[] = ".version 7.0\n"
                                      ".target sm_52\n"
                                      ".address_size 64\n"
                                      ".visible .entry empty()\n"
                                      "{\n"
                                      "\tret;\n"
                                      "}\n";

inline bool hasFlag(int argc, char **argv, const char *flag) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], flag) == 0) {
            return true;
        }
    }
    return false;
}

inline bool quickMode(int argc, char **argv) { return hasFlag(argc, argv, "--quick"); }

// The value of "--name=N" on the command line, else `fallback`.
inline int intOption(int argc, char **argv, const char *name, int fallback) {
    const size_t len = std::strlen(name);
    for (int i = 1; i < argc; ++i) {
        if (std::strncmp(argv[i], name, len) == 0 && argv[i][len] == '=' && std::atoi(argv[i] + len + 1) > 0) {
            return std::atoi(argv[i] + len + 1);
        }
    }
    return fallback;
}

inline double median(std::vector<double> v) {
    if (v.empty()) {
        return 0.0;
    }
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// printf into a std::string (titles holding device names of any length).
__attribute__((format(printf, 1, 2))) inline std::string format(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    va_list again;
    va_copy(again, ap);
    const int n = std::vsnprintf(nullptr, 0, fmt, ap);
    va_end(ap);
    std::string text(n > 0 ? static_cast<size_t>(n) : 0, '\0');
    if (n > 0) {
        std::vsnprintf(&text[0], text.size() + 1, fmt, again);
    }
    va_end(again);
    return text;
}

// The whole file, or "" (and a message) when it cannot be read.
inline std::string readFile(const char *path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", path);
        return std::string();
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Records an infinirt failure (with the last-error message); the programs exit 1 after one.
inline bool g_failed = false;
inline bool check(infiniStatus_t s, const char *what) {
    if (s != INFINI_STATUS_SUCCESS) {
        std::fprintf(stderr, "%s failed: %s: %s\n", what, infinirtGetErrorName(s), infinirtGetLastErrorMessage());
        g_failed = true;
        return false;
    }
    return true;
}

// Loads `bytes`, one image of `format`, onto (device, device_id); prints the failure and the
// build log when it fails (leaving g_failed to the caller: a failure may have a fallback).
inline bool loadModule(infinirtModule_t *module, infiniDevice_t device, int device_id, infinirtModuleFormat_t format,
                       const std::string &bytes, const char *options = nullptr) {
    infinirtModuleImage_t image{};
    image.struct_size = sizeof image;
    image.format = format;
    image.data = bytes.data();
    image.size = bytes.size();
    image.options = options;
    char log[4096] = "";
    const infiniStatus_t s = infinirtModuleLoad(module, device, device_id, &image, 1, log, sizeof log);
    if (s != INFINI_STATUS_SUCCESS) {
        std::fprintf(stderr, "infinirtModuleLoad failed: %s: %s\n%s\n", infinirtGetErrorName(s),
                     infinirtGetLastErrorMessage(), log);
        return false;
    }
    return true;
}

// ns per call: `iters` calls of `call` timed, then `after` untimed (e.g. draining the stream so
// that the next batch starts on an empty queue). With `warm`, one more call before the clock
// starts (untimed), so that the batch does not pay for what the other side left behind (a GPU
// switching back from another context).
template <typename Call, typename After> double timeBatch(Call &&call, int iters, After &&after, bool warm = false) {
    if (warm) {
        call();
    }
    const auto t0 = Clock::now();
    for (int i = 0; i < iters; ++i) {
        call();
    }
    const auto t1 = Clock::now();
    after();
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / iters;
}

// `ours` and `anchor`: each side's median; `added`: the median over rounds of what ours added in
// that round (its two batches against the anchor's two), which cancels drift that the two
// separate medians keep (clocks, other tenants, a queue that grows over the run).
struct Pair {
    double ours;
    double anchor;
    double added;
};

// The shortest of `runs` timings of `call` (ns), each followed by `after`, untimed (e.g. waiting
// for what the call enqueued).
template <typename Call, typename After> double bestOf(int runs, Call &&call, After &&after) {
    double best = 0;
    for (int r = 0; r < runs; ++r) {
        const auto t0 = Clock::now();
        call();
        const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
        after();
        best = r == 0 ? ns : std::min(best, ns);
    }
    return best;
}

// Two figures not measured in paired rounds (e.g. the best of each side): added is their difference.
inline Pair unpaired(double ours, double anchor) { return {ours, anchor, ours - anchor}; }

// Rounds in ABBA order (ours, anchor, anchor, ours) after a short warm-up, so that neither side
// always runs first or right after a drain; each figure is the median over its 2 * rounds
// batches of `iters` calls. `warm`: each batch starts with an untimed call (timeBatch).
template <typename Ours, typename Anchor, typename After>
Pair paired(int rounds, int iters, Ours &&ours, Anchor &&anchor, After &&after, bool warm = false) {
    std::vector<double> a;
    std::vector<double> b;
    std::vector<double> added;
    for (int i = 0; i < 2; ++i) {
        timeBatch(ours, iters, after);
        timeBatch(anchor, iters, after);
    }
    for (int r = 0; r < rounds; ++r) {
        const double a1 = timeBatch(ours, iters, after, warm);
        const double b1 = timeBatch(anchor, iters, after, warm);
        const double b2 = timeBatch(anchor, iters, after, warm);
        const double a2 = timeBatch(ours, iters, after, warm);
        a.insert(a.end(), {a1, a2});
        b.insert(b.end(), {b1, b2});
        added.push_back((a1 + a2 - b1 - b2) / 2.0);
    }
    return {median(a), median(b), median(added)};
}

// Call by call: in each batch of `pairs` pairs, ours and the anchor alternate (ours first in even
// pairs, the anchor first in odd ones), each call timed alone with the clock read between them, so
// the two calls of a pair meet the same queue depth and the same state of the caches. `ours` and
// `anchor` are medians over every call of that side, `added` the median over every pair of ours
// minus anchor. The clock read (tens of ns) is in both sides alike.
template <typename Ours, typename Anchor, typename After>
Pair interleaved(int rounds, int pairs, Ours &&ours, Anchor &&anchor, After &&after) {
    std::vector<double> a;
    std::vector<double> b;
    std::vector<double> added;
    a.reserve(static_cast<size_t>(rounds) * pairs);
    b.reserve(static_cast<size_t>(rounds) * pairs);
    added.reserve(static_cast<size_t>(rounds) * pairs);
    for (int r = -2; r < rounds; ++r) { // two rounds of warm-up
        for (int j = 0; j < pairs; ++j) {
            const bool ours_first = (j & 1) == 0;
            const auto t0 = Clock::now();
            if (ours_first) {
                ours();
            } else {
                anchor();
            }
            const auto t1 = Clock::now();
            if (ours_first) {
                anchor();
            } else {
                ours();
            }
            const auto t2 = Clock::now();
            const double first = std::chrono::duration<double, std::nano>(t1 - t0).count();
            const double second = std::chrono::duration<double, std::nano>(t2 - t1).count();
            const double o = ours_first ? first : second;
            const double n = ours_first ? second : first;
            if (r >= 0) {
                a.push_back(o);
                b.push_back(n);
                added.push_back(o - n);
            }
        }
        after();
    }
    return {median(a), median(b), median(added)};
}

// One row of the table. `verdict`: +1 PASS, 0 FAIL, -1 no limit stated (information only).
// `added`: Pair::added, in the row's unit.
struct Row {
    std::string what;
    std::string unit;
    double ours;
    double anchor;
    std::string limit;
    int verdict;
    double added;
};

// Limit "added <= max(pct, floor_ns)" over the anchor (launch overhead), judged on the paired
// figure (Pair::added).
inline Row addedAtMost(const std::string &what, Pair p, double pct, double floor_ns) {
    char limit[64];
    std::snprintf(limit, sizeof limit, "added <= max(%g%%, %g ns)", pct, floor_ns);
    const double allowed = std::max(p.anchor * pct / 100.0, floor_ns);
    return {what, "ns", p.ours, p.anchor, limit, p.added <= allowed ? 1 : 0, p.added};
}

// Limit "added <= limit_ns" over the anchor, absolute (the enqueue goal of the hot paths),
// judged on the paired figure (Pair::added).
inline Row addedAtMostNs(const std::string &what, Pair p, double limit_ns) {
    char limit[64];
    std::snprintf(limit, sizeof limit, "added <= %g ns", limit_ns);
    return {what, "ns", p.ours, p.anchor, limit, p.added <= limit_ns ? 1 : 0, p.added};
}

// Limit "ours <= limit_ns" (an absolute latency; the anchor is for reference).
inline Row atMost(const std::string &what, Pair p, double limit_ns) {
    char limit[64];
    std::snprintf(limit, sizeof limit, "ours <= %g us", limit_ns / 1000.0);
    return {what, "ns", p.ours, p.anchor, limit, p.ours <= limit_ns ? 1 : 0, p.added};
}

// Limit "ours >= ratio x anchor" (a throughput).
inline Row ratioAtLeast(const std::string &what, const std::string &unit, Pair p, double ratio) {
    char limit[64];
    std::snprintf(limit, sizeof limit, "ratio >= %g", ratio);
    return {what, unit, p.ours, p.anchor, limit, p.anchor > 0 && p.ours / p.anchor >= ratio ? 1 : 0, p.added};
}

// Limit "ours <= ratio x anchor" (a latency).
inline Row ratioAtMost(const std::string &what, Pair p, double ratio) {
    char limit[64];
    std::snprintf(limit, sizeof limit, "ratio <= %g", ratio);
    return {what, "ns", p.ours, p.anchor, limit, p.anchor > 0 && p.ours / p.anchor <= ratio ? 1 : 0, p.added};
}

inline Row info(const std::string &what, const std::string &unit, Pair p) {
    return {what, unit, p.ours, p.anchor, "-", -1, p.added};
}

// Prints the table and one PASS/FAIL line per limit; returns how many limits were missed.
inline int printTable(const std::string &title, const char *anchor_name, const std::vector<Row> &rows) {
    std::printf("\n%s\n  anchor: %s\n", title.c_str(), anchor_name);
    std::printf("  ours, anchor: medians over each side's batches; added: median over rounds of ours minus "
                "anchor in the same round (what the limits judge)\n");
    std::printf("%-44s %5s %12s %12s %8s %10s  %-26s %s\n", "what", "unit", "ours", "anchor", "ratio", "added",
                "limit", "verdict");
    int missed = 0;
    for (const Row &r : rows) {
        const char *verdict = r.verdict < 0 ? "info" : (r.verdict ? "PASS" : "FAIL");
        missed += r.verdict == 0;
        std::printf("%-44s %5s %12.1f %12.1f %8.3f %10.1f  %-26s %s\n", r.what.c_str(), r.unit.c_str(), r.ours,
                    r.anchor, r.anchor > 0 ? r.ours / r.anchor : 0.0, r.added, r.limit.c_str(), verdict);
    }
    for (const Row &r : rows) {
        if (r.verdict >= 0) {
            std::printf("%s: %s (%s)\n", r.verdict ? "PASS" : "FAIL", r.what.c_str(), r.limit.c_str());
        }
    }
    return missed;
}

inline infinirtLaunchConfig_t launchConfig(uint32_t grid, uint32_t block) {
    infinirtLaunchConfig_t c{};
    c.struct_size = sizeof c;
    c.grid[0] = grid;
    c.grid[1] = c.grid[2] = 1;
    c.block[0] = block;
    c.block[1] = c.block[2] = 1;
    return c;
}

// Captures `count` launches of `kernel` (no arguments) on `stream` into *graph and instantiates
// it into *exec; false (with the failure printed) when a call failed.
inline bool captureLaunches(infinirtKernel_t kernel, const infinirtLaunchConfig_t &config, infinirtStream_t stream,
                            int count, infinirtGraph_t *graph, infinirtGraphExec_t *exec) {
    if (!check(infinirtStreamBeginCapture(stream, INFINIRT_STREAM_CAPTURE_MODE_THREAD_LOCAL),
               "infinirtStreamBeginCapture")) {
        return false;
    }
    for (int i = 0; i < count; ++i) {
        check(infinirtLaunchKernel(kernel, &config, nullptr, 0, stream), "infinirtLaunchKernel (capturing)");
    }
    return check(infinirtStreamEndCapture(stream, graph), "infinirtStreamEndCapture") &&
           check(infinirtGraphInstantiate(exec, *graph, nullptr, nullptr, 0), "infinirtGraphInstantiate") && !g_failed;
}

// Launch + synchronise latency, in ns: a launch of `kernel` (no arguments) + StreamSynchronize
// against `anchor` (its own round trip), in batches of `syncs`.
template <typename Anchor>
Pair launchSync(int rounds, int syncs, infinirtKernel_t kernel, const infinirtLaunchConfig_t &config,
                infinirtStream_t stream, Anchor &&anchor) {
    return paired(
        rounds, syncs,
        [&] {
            infinirtLaunchKernel(kernel, &config, nullptr, 0, stream);
            infinirtStreamSynchronize(stream);
        },
        anchor, [] {});
}

// Graph replay, in us: one GraphLaunch of `exec` + StreamSynchronize against the `count` launches
// it holds (of `kernel`, no arguments) made directly + StreamSynchronize.
inline Pair graphVsDirect(int rounds, int replays, infinirtGraphExec_t exec, infinirtKernel_t kernel,
                          const infinirtLaunchConfig_t &config, infinirtStream_t stream, int count) {
    const Pair p = paired(
        rounds, replays,
        [&] {
            infinirtGraphLaunch(exec, stream);
            infinirtStreamSynchronize(stream);
        },
        [&] {
            for (int i = 0; i < count; ++i) {
                infinirtLaunchKernel(kernel, &config, nullptr, 0, stream);
            }
            infinirtStreamSynchronize(stream);
        },
        [] {});
    return {p.ours / 1000.0, p.anchor / 1000.0, p.added / 1000.0};
}

} // namespace infinirt_bench
