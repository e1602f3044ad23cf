// Side-by-side measurement for the benchmarks: our call (through infinirt) and the reference
// call (the plugin's table, the vendor API) timed in alternating batches inside one Google
// Benchmark, so that both see the same machine and queue state, then printed as pairs with the
// difference and the ratio. Header-only; used by bench/dispatch and bench/opencl.
#pragma once

#include "console.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace infinirt_bench {

inline double median(std::vector<double> &v) {
    if (v.empty()) {
        return 0.0;
    }
    std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
    return v[v.size() / 2];
}

// Each iteration times a batch of `ours` and a batch of `reference`, alternating which goes
// first so neither always meets the other's leftovers; `between` runs untimed after each batch
// (e.g. draining a queue, so that neither side pays for a long one). Reports the medians as the
// counters "ours_ns" and "reference_ns".
template <int kBatch = 64, typename Ours, typename Reference, typename Between>
void pairBenchmark(benchmark::State &state, Ours ours, Reference reference, Between between) {
    using Clock = std::chrono::steady_clock;
    std::vector<double> a_ns;
    std::vector<double> b_ns;
    bool ours_first = true;
    auto batch = [&](bool run_ours) {
        const auto t0 = Clock::now();
        for (int i = 0; i < kBatch; ++i) {
            if (run_ours) {
                benchmark::DoNotOptimize(ours());
            } else {
                benchmark::DoNotOptimize(reference());
            }
        }
        const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / kBatch;
        between();
        (run_ours ? a_ns : b_ns).push_back(ns);
    };
    for (auto _ : state) {
        batch(ours_first);
        batch(!ours_first);
        ours_first = !ours_first;
    }
    state.counters["ours_ns"] = median(a_ns);
    state.counters["reference_ns"] = median(b_ns);
}

// Collects the pairs as they run and prints them side by side at the end.
class PairReporter : public benchmark::ConsoleReporter {
public:
    // `options`: consoleOptions(argc, argv), so that pipes get no colour codes.
    explicit PairReporter(OutputOptions options) : benchmark::ConsoleReporter(options) {}

    struct Row {
        std::string call; // the benchmark's function name without its "BM_" prefix
        double ours;
        double reference;
    };

    void ReportRuns(const std::vector<Run> &runs) override {
        for (const Run &r : runs) {
            auto a = r.counters.find("ours_ns");
            auto b = r.counters.find("reference_ns");
            if (r.run_type == Run::RT_Iteration && a != r.counters.end() && b != r.counters.end()) {
                const std::string &name = r.run_name.function_name;
                rows_.push_back({name.compare(0, 3, "BM_") == 0 ? name.substr(3) : name, a->second.value,
                                 b->second.value});
            }
        }
        ConsoleReporter::ReportRuns(runs);
    }

    // Prints one line per pair; `note` may add text to a row (e.g. a bandwidth). Returns how many
    // rows added more than `target_ns` (negative: no target).
    int print(const std::string &title, const char *reference_label, double target_ns = -1.0,
              const std::function<std::string(const Row &)> &note = nullptr) const {
        std::printf("\n%s\n", title.c_str());
        std::printf("%-24s %14s %14s %12s %8s\n", "call", "infinirt (ns)", reference_label, "added (ns)", "ratio");
        int over = 0;
        for (const Row &r : rows_) {
            const double added = r.ours - r.reference;
            over += target_ns >= 0 && added > target_ns;
            std::printf("%-24s %14.2f %14.2f %12.2f %8.3f%s\n", r.call.c_str(), r.ours, r.reference, added,
                        r.reference > 0 ? r.ours / r.reference : 0.0, note ? note(r).c_str() : "");
        }
        return over;
    }

private:
    std::vector<Row> rows_;
};

} // namespace infinirt_bench
