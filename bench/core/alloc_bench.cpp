// Allocator benchmarks: ours against PyTorch's caching allocator, cudaMallocAsync and the
// uncached driver calls, measured side by side in one run, then summarised with ratios.
//
//   1. cache-hit allocate+free pair on one thread, 512 B .. 64 MiB (ns per pair);
//   2. 16 threads allocating and freeing 4 KiB concurrently (pairs per second, aggregate);
//   3. a mixed-size workload with many live blocks: peak reserved / peak requested bytes;
//   4. a batch that grows by one step at a time (the N/N+1 pattern): the same ratio;
//   5. pinned host memory: cache-hit allocate+free of 1 MiB (ns per pair).
// Ours runs with and without expandable_segments (the rest of INFINICORE_ALLOC_CONF applies to
// both); PyTorch as the environment configures it and, where it runs at all, once more in a child
// process with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (its configuration is read once
// per process).
//
// "ours" runs on the first non-cpu device infinirt finds (cpu:0 when there is none: the smoke
// run in CI). The references run only where they exist (PyTorch: when built against libtorch;
// CUDA: when built with the toolkit and a CUDA device is present).
#include "device_caching_allocator.hpp"
#include "device_pinned_host_allocator.hpp"
#include "infinicore/context/context.hpp"
#include "reference.hpp"
#include "../common/console.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <unistd.h>
#include <vector>

namespace {

using infinicore::Device;
using infinicore::detail::AllocatorConfig;
using infinicore::detail::DeviceCachingAllocator;
using infinicore::detail::DevicePinnedHostAllocator;

constexpr size_t KiB = 1024, MiB = 1024 * 1024;

struct Subject {
    std::string name;
    std::function<void *(size_t)> alloc;
    std::function<void(void *)> free;
};

Device g_device;
bool g_gpu = false;
infinirtStream_t g_stream = nullptr;
DeviceCachingAllocator *g_ours = nullptr;
DeviceCachingAllocator *g_ours_expandable = nullptr;
DevicePinnedHostAllocator *g_pinned = nullptr;
bool g_torch = false, g_cuda = false;

Device pickDevice() {
    int counts[INFINI_DEVICE_TYPE_COUNT] = {};
    if (infinirtGetAllDeviceCountSized(counts, INFINI_DEVICE_TYPE_COUNT) == INFINI_STATUS_SUCCESS) {
        for (int t = 1; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
            if (counts[t] > 0) {
                return Device(static_cast<Device::Type>(t), 0);
            }
        }
    }
    return Device(Device::Type::CPU, 0);
}

// INFINICORE_ALLOC_CONF with expandable_segments set as given.
AllocatorConfig oursConfig(bool expandable) {
    AllocatorConfig config = AllocatorConfig::fromEnvironment();
    config.expandable_segments = expandable;
    return config;
}

// Ours hands out blocks; the pair benchmarks time exactly allocate + deallocate.
void cacheHitOurs(benchmark::State &state, DeviceCachingAllocator *ours, size_t size) {
    auto *warm = ours->allocate(size, g_stream);
    ours->deallocate(warm);
    for (auto _ : state) {
        auto *block = ours->allocate(size, g_stream);
        benchmark::DoNotOptimize(block);
        ours->deallocate(block);
    }
    state.SetItemsProcessed(state.iterations());
}

// Through the public API: make_shared<Memory> and its deleter included.
void cacheHitContext(benchmark::State &state, size_t size) {
    (void)infinicore::context::allocateMemory(size);
    for (auto _ : state) {
        auto memory = infinicore::context::allocateMemory(size);
        benchmark::DoNotOptimize(memory.get());
    }
    state.SetItemsProcessed(state.iterations());
}

void cacheHitRef(benchmark::State &state, const Subject &subject, size_t size) {
    subject.free(subject.alloc(size));
    for (auto _ : state) {
        void *p = subject.alloc(size);
        benchmark::DoNotOptimize(p);
        subject.free(p);
    }
    state.SetItemsProcessed(state.iterations());
}

// A reproducible mixed workload: sizes log-uniform over [512 B, max], up to `live` blocks at
// once, 55% allocations while below that. Returns the peak of requested live bytes.
size_t mixedWorkload(unsigned seed, const std::function<void *(size_t)> &alloc, const std::function<void(void *)> &free) {
    const size_t max_size = g_gpu ? 64 * MiB : MiB;
    const size_t live_cap = g_gpu ? 400 : 64;
    const int ops = g_gpu ? 20000 : 2000;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> log_size(std::log(512.0), std::log(double(max_size)));
    std::vector<std::pair<void *, size_t>> live;
    size_t live_bytes = 0, peak = 0;
    for (int i = 0; i < ops; ++i) {
        if (live.size() < live_cap && (live.empty() || rng() % 100 < 55)) {
            size_t size = static_cast<size_t>(std::exp(log_size(rng))) / 8 * 8;
            live.emplace_back(alloc(size), size);
            live_bytes += size;
            peak = std::max(peak, live_bytes);
        } else {
            size_t k = rng() % live.size();
            free(live[k].first);
            live_bytes -= live[k].second;
            live[k] = live.back();
            live.pop_back();
        }
    }
    for (auto &[p, size] : live) {
        free(p);
    }
    return peak;
}

// A batch that grows by one step at a time, as a serving engine's does when one more request
// joins (the N/N+1 pattern behind PyTorch's expandable segments): each step allocates the batch
// buffer one step larger, frees the old one after it (both live for a moment, as in a copy), and
// allocates and frees the step's temporaries, of sizes proportional to the batch. Returns the
// peak of requested live bytes. `seed` is unused: the trace is always the same.
size_t growWorkload(unsigned, const std::function<void *(size_t)> &alloc, const std::function<void(void *)> &free) {
    const size_t unit = g_gpu ? 3 * MiB + 128 * KiB : 96 * KiB;
    const size_t steps = g_gpu ? 48 : 12;
    void *batch = nullptr;
    size_t batch_bytes = 0, live_bytes = 0, peak = 0;
    for (size_t n = 1; n <= steps; ++n) {
        const size_t grown = 4 * n * unit;
        void *next = alloc(grown);
        live_bytes += grown;
        peak = std::max(peak, live_bytes);
        if (batch != nullptr) {
            free(batch);
            live_bytes -= batch_bytes;
        }
        batch = next;
        batch_bytes = grown;
        void *a = alloc(n * unit);
        void *b = alloc(2 * n * unit);
        peak = std::max(peak, live_bytes + 3 * n * unit);
        free(a);
        free(b);
    }
    free(batch);
    return peak;
}

// A trace of allocations and the number of its sequences to average: where blocks land depends
// on addresses and on the order of frees, so one mixed sequence can favour any allocator by a few
// percent; the growing batch is one fixed sequence.
struct Trace {
    const char *name;
    size_t (*run)(unsigned seed, const std::function<void *(size_t)> &alloc, const std::function<void(void *)> &free);
    unsigned seeds;
};
constexpr Trace kMixed{"Fragmentation", mixedWorkload, 8};
constexpr Trace kGrow{"Grow", growWorkload, 1};

// Peak reserved / peak requested of `who` on `trace`, the mean over its sequences and the worst.
std::pair<double, double> peakRatio(const std::string &who, const Trace &trace) {
    double sum = 0, worst = 0;
    for (unsigned seed = 1; seed <= trace.seeds; ++seed) {
        size_t requested = 0, reserved = 0;
        if (who == "ours" || who == "ours_expandable") {
            DeviceCachingAllocator fresh(infinicore::detail::makeInfinirtDevice(g_device),
                                         oursConfig(who == "ours_expandable"));
            requested = trace.run(
                seed, [&](size_t n) { return static_cast<void *>(fresh.allocate(n, g_stream)); },
                [&](void *b) { fresh.deallocate(static_cast<DeviceCachingAllocator::Block *>(b)); });
            reserved = static_cast<size_t>(fresh.stats().reserved_bytes.peak);
        }
#ifdef INFINICORE_BENCH_WITH_TORCH
        if (who == "torch") {
            bench_ref::torchEmptyCache();
            bench_ref::torchResetPeak();
            requested = trace.run(seed, bench_ref::torchAlloc, bench_ref::torchFree);
            reserved = bench_ref::torchPeakReserved();
            bench_ref::torchEmptyCache();
        }
#endif
#ifdef INFINICORE_BENCH_WITH_CUDA
        if (who == "cudaMallocAsync") {
            bench_ref::cudaAsyncTrim();
            bench_ref::cudaAsyncResetPeak();
            requested = trace.run(seed, bench_ref::cudaAsyncAlloc, bench_ref::cudaAsyncFree);
            reserved = bench_ref::cudaAsyncPeakReserved();
            bench_ref::cudaAsyncTrim();
        }
#endif
        const double ratio = double(reserved) / double(requested);
        sum += ratio;
        worst = std::max(worst, ratio);
    }
    return {sum / trace.seeds, worst};
}

void fragmentation(benchmark::State &state, const std::string &who, const Trace &trace) {
    for (auto _ : state) {
        const auto [mean, worst] = peakRatio(who, trace);
        state.counters["reserved_per_requested"] = mean;
        state.counters["worst"] = worst;
    }
}

#ifdef INFINICORE_BENCH_WITH_TORCH
// The child's side of torchExpandable: PyTorch configured by the environment the parent set.
constexpr const char *kTorchChildFlag = "--torch-expandable-child";

int torchChild(bool gpu) {
    g_gpu = gpu;
    const char *why = "";
    if (!bench_ref::torchInit(&why)) {
        std::printf("torch_expandable unavailable: %s\n", why);
        return 1;
    }
    std::printf("torch_expandable mixed=%.6f grow=%.6f\n", peakRatio("torch", kMixed).first,
                peakRatio("torch", kGrow).first);
    return 0;
}

// PyTorch's ratios on both traces with expandable segments, from a child process (this program
// again) run with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True; 0 where it failed.
std::pair<double, double> torchExpandable() {
    char self[4096] = {};
    const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        return {0, 0};
    }
    const std::string command = "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True '" + std::string(self, size_t(n)) +
                                "' " + kTorchChildFlag + "=" + (g_gpu ? "1" : "0");
    FILE *child = popen(command.c_str(), "r");
    if (child == nullptr) {
        return {0, 0};
    }
    double mixed = 0, grow = 0;
    char line[512];
    while (std::fgets(line, sizeof(line), child) != nullptr) {
        if (std::sscanf(line, "torch_expandable mixed=%lf grow=%lf", &mixed, &grow) != 2) {
            std::fputs(line, stdout);
        }
    }
    return pclose(child) == 0 ? std::make_pair(mixed, grow) : std::make_pair(0.0, 0.0);
}
#endif

void pinnedOurs(benchmark::State &state) {
    g_pinned->deallocate(g_pinned->allocate(MiB));
    for (auto _ : state) {
        auto *block = g_pinned->allocate(MiB);
        benchmark::DoNotOptimize(block);
        g_pinned->deallocate(block);
    }
    state.SetItemsProcessed(state.iterations());
}

// Google Benchmark renamed Run::error_occurred to Run::skipped (1.8); accept either.
template <typename R>
auto failed(const R &run, int) -> decltype(run.error_occurred, bool()) {
    return run.error_occurred;
}
template <typename R>
auto failed(const R &run, long) -> decltype(run.skipped, bool()) {
    return static_cast<bool>(run.skipped);
}

// Collects every run for the summary while printing as usual.
class Collector : public benchmark::ConsoleReporter {
public:
    // `options`: consoleOptions(argc, argv), so that pipes get no colour codes.
    explicit Collector(OutputOptions options) : benchmark::ConsoleReporter(options) {}
    struct Result {
        double ns_per_iteration = 0;
        double items_per_second = 0;
        std::map<std::string, double> counters;
    };
    std::map<std::string, Result> results;

    void ReportRuns(const std::vector<Run> &runs) override {
        for (const Run &run : runs) {
            if (failed(run, 0) || run.run_type != Run::RT_Iteration) {
                continue;
            }
            Result r;
            r.ns_per_iteration = run.GetAdjustedRealTime();
            for (const auto &[name, counter] : run.counters) {
                r.counters[name] = counter.value;
            }
            r.items_per_second = r.counters.count("items_per_second") ? r.counters["items_per_second"] : 0;
            results[run.run_name.function_name] = r;
        }
        ConsoleReporter::ReportRuns(runs);
    }
};

std::string sizeName(size_t size) {
    return size >= MiB ? std::to_string(size / MiB) + "MiB" : size >= KiB ? std::to_string(size / KiB) + "KiB"
                                                                          : std::to_string(size) + "B";
}

void printRow(const char *label, const std::vector<std::pair<std::string, double>> &cells, const char *unit,
              bool lower_is_better) {
    std::printf("%-10s", label);
    const double ours = cells.empty() ? 0 : cells[0].second;
    for (size_t i = 0; i < cells.size(); ++i) {
        const auto &[name, value] = cells[i];
        if (value <= 0) {
            std::printf("  %s=n/a", name.c_str());
            continue;
        }
        std::printf("  %s=%.4g%s", name.c_str(), value, unit);
        if (i > 0 && ours > 0) {
            // Written so that > 1 means ours is better.
            std::printf(" (%.2fx)", lower_is_better ? value / ours : ours / value);
        }
    }
    std::printf("\n");
}

} // namespace

int main(int argc, char **argv) {
#ifdef INFINICORE_BENCH_WITH_TORCH
    if (argc == 2 && std::strncmp(argv[1], kTorchChildFlag, std::strlen(kTorchChildFlag)) == 0) {
        return torchChild(std::strcmp(argv[1] + std::strlen(kTorchChildFlag), "=1") == 0);
    }
#endif
    const auto console = infinirt_bench::consoleOptions(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
        return 1;
    }
    g_device = pickDevice();
    g_gpu = g_device.getType() != Device::Type::CPU;
    infinicore::context::setDevice(g_device);
    g_stream = infinicore::context::getStream();
    g_ours = new DeviceCachingAllocator(infinicore::detail::makeInfinirtDevice(g_device), oursConfig(false));
    g_ours_expandable = new DeviceCachingAllocator(infinicore::detail::makeInfinirtDevice(g_device), oursConfig(true));
    g_pinned = new DevicePinnedHostAllocator(infinicore::detail::makeInfinirtDevice(g_device));
    std::printf("ours on %s\n", g_device.toString().c_str());

    std::vector<Subject> refs;
#ifdef INFINICORE_BENCH_WITH_TORCH
    {
        const char *why = "";
        g_torch = bench_ref::torchInit(&why);
        std::printf("PyTorch reference: %s\n", g_torch ? "yes" : why);
        if (g_torch) {
            refs.push_back({"torch", bench_ref::torchAlloc, bench_ref::torchFree});
        }
    }
#else
    std::printf("PyTorch reference: not built (libtorch not found at configure time)\n");
#endif
#ifdef INFINICORE_BENCH_WITH_CUDA
    {
        const char *why = "";
        g_cuda = bench_ref::cudaInit(&why);
        std::printf("CUDA references: %s\n", g_cuda ? "yes" : why);
        if (g_cuda) {
            refs.push_back({"cudaMallocAsync", bench_ref::cudaAsyncAlloc, bench_ref::cudaAsyncFree});
            refs.push_back({"cuMemAlloc", bench_ref::cuAlloc, bench_ref::cuFree});
        }
    }
#else
    std::printf("CUDA references: not built (CUDA toolkit not found at configure time)\n");
#endif

    const std::vector<size_t> sizes = {512, 4 * KiB, 64 * KiB, MiB, 8 * MiB, 64 * MiB};
    for (size_t size : sizes) {
        const std::string s = sizeName(size);
        benchmark::RegisterBenchmark(("CacheHit/ours/" + s).c_str(), cacheHitOurs, g_ours, size);
        benchmark::RegisterBenchmark(("CacheHit/ours_expandable/" + s).c_str(), cacheHitOurs, g_ours_expandable, size);
        benchmark::RegisterBenchmark(("CacheHit/ours_context/" + s).c_str(), cacheHitContext, size);
        for (const Subject &ref : refs) {
            benchmark::RegisterBenchmark(("CacheHit/" + ref.name + "/" + s).c_str(), cacheHitRef, ref, size);
        }
    }
    benchmark::RegisterBenchmark("Threads16x4KiB/ours", cacheHitOurs, g_ours, 4 * KiB)->Threads(16)->UseRealTime();
    for (const Subject &ref : refs) {
        benchmark::RegisterBenchmark(("Threads16x4KiB/" + ref.name).c_str(), cacheHitRef, ref, 4 * KiB)
            ->Threads(16)
            ->UseRealTime();
    }
    std::vector<std::string> frag = {"ours", "ours_expandable"};
    if (g_torch) {
        frag.push_back("torch");
    }
    if (g_cuda) {
        frag.push_back("cudaMallocAsync");
    }
    for (const Trace *trace : {&kMixed, &kGrow}) {
        for (const std::string &who : frag) {
            benchmark::RegisterBenchmark((std::string(trace->name) + "/" + who).c_str(), fragmentation, who, *trace)
                ->Iterations(1);
        }
    }
    benchmark::RegisterBenchmark("Pinned1MiB/ours", pinnedOurs);
#ifdef INFINICORE_BENCH_WITH_CUDA
    if (g_cuda) {
        benchmark::RegisterBenchmark("Pinned1MiB/cuMemHostAlloc", cacheHitRef,
                                     Subject{"cuMemHostAlloc", bench_ref::cuHostAlloc, bench_ref::cuHostFree}, MiB);
    }
#endif

    Collector collector(console);
    benchmark::RunSpecifiedBenchmarks(&collector);
    double torch_expandable_mixed = 0, torch_expandable_grow = 0;
#ifdef INFINICORE_BENCH_WITH_TORCH
    if (g_torch) {
        std::tie(torch_expandable_mixed, torch_expandable_grow) = torchExpandable();
    }
#endif

    // ---- summary: every figure with its ratio (> 1x: ours is better) ----
    auto &r = collector.results;
    auto get = [&](const std::string &name, bool rate) {
        auto it = r.find(name);
        return it == r.end() ? 0.0 : rate ? it->second.items_per_second : it->second.ns_per_iteration;
    };
    std::vector<std::string> names = {"ours", "ours_context", "ours_expandable"};
    for (const Subject &ref : refs) {
        names.push_back(ref.name);
    }
    std::printf("\n== Summary on %s (ratio: reference / ours, > 1x means ours is better) ==\n", g_device.toString().c_str());
    std::printf("-- cache-hit allocate+free pair, one thread (ns per pair; target <= 100 ns)\n");
    for (size_t size : sizes) {
        std::vector<std::pair<std::string, double>> cells;
        for (const std::string &n : names) {
            cells.emplace_back(n, get("CacheHit/" + n + "/" + sizeName(size), false));
        }
        printRow(sizeName(size).c_str(), cells, "ns", true);
    }
    std::printf("-- 16 threads x 4 KiB allocate+free (million pairs per second, aggregate; target >= 30)\n");
    {
        std::vector<std::pair<std::string, double>> cells;
        cells.emplace_back("ours", get("Threads16x4KiB/ours", true) / 1e6);
        for (const Subject &ref : refs) {
            cells.emplace_back(ref.name, get("Threads16x4KiB/" + ref.name, true) / 1e6);
        }
        printRow("16x4KiB", cells, "M/s", false);
    }
    // Two rows per trace: ours against the references as configured, then ours with expandable
    // segments against PyTorch's (ratios against the first cell of each row).
    auto ratioRows = [&](const Trace &trace, const char *label, double torch_expandable) {
        auto figure = [&](const std::string &who) {
            auto it = r.find(std::string(trace.name) + "/" + who);
            return it == r.end() ? 0.0 : it->second.counters["reserved_per_requested"];
        };
        std::vector<std::pair<std::string, double>> plain, expandable;
        for (const std::string &who : frag) {
            if (who != "ours_expandable") {
                plain.emplace_back(who, figure(who));
            }
        }
        printRow(label, plain, "", true);
        expandable.emplace_back("ours_expandable", figure("ours_expandable"));
        if (g_torch) {
            expandable.emplace_back("torch_expandable", torch_expandable);
            expandable.emplace_back("torch", figure("torch"));
        }
        printRow((std::string(label) + "/exp").c_str(), expandable, "", true);
    };
    std::printf("-- mixed sizes, many live blocks: peak reserved / peak requested, mean of %u sequences (lower is "
                "better; goal: ours_expandable <= 1.05)\n",
                kMixed.seeds);
    ratioRows(kMixed, "mixed", torch_expandable_mixed);
    std::printf("-- a batch growing one step at a time (N/N+1): peak reserved / peak requested (lower is better; goal: "
                "ours_expandable <= torch_expandable)\n");
    ratioRows(kGrow, "grow", torch_expandable_grow);
    std::printf("-- pinned host allocate+free of 1 MiB (ns per pair; target <= 1000 ns)\n");
    {
        std::vector<std::pair<std::string, double>> cells;
        cells.emplace_back("ours", get("Pinned1MiB/ours", false));
        if (g_cuda) {
            cells.emplace_back("cuMemHostAlloc", get("Pinned1MiB/cuMemHostAlloc", false));
        }
        printRow("1MiB", cells, "ns", true);
    }
    benchmark::Shutdown();
    return 0;
}
