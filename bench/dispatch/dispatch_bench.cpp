// Dispatch overhead of the loader: each hot call made through infinirt* against the same call
// made directly on the plugin's own table (the plugin the loader loaded, same process, same
// objects kind), printed side by side with the difference and the ratio.
//
// Backend: INFINIRT_BENCH_BACKEND=<name> (default: cpu). Target: under 10 ns added per call.
#include "infinirt_plugin.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <vector>

namespace {

struct Setup {
    const infinirtPluginTable_t *table = nullptr;
    infiniDevice_t type = INFINI_DEVICE_CPU;
    std::string name;
    // Through infinirt
    infinirtStream_t stream = nullptr;
    infinirtEvent_t event = nullptr;
    void *dev = nullptr;
    void *host = nullptr;
    // Directly on the plugin
    void *native_stream = nullptr;
    void *native_event = nullptr;
};

Setup g;

[[noreturn]] void die(const char *what, infiniStatus_t st) {
    std::fprintf(stderr, "dispatch_bench: %s: %s: %s\n", what, infinirtGetErrorName(st), infinirtGetLastErrorMessage());
    std::exit(1);
}

void check(const char *what, infiniStatus_t st) {
    if (st != INFINI_STATUS_SUCCESS) {
        die(what, st);
    }
}

void setUp() {
    const char *want = std::getenv("INFINIRT_BENCH_BACKEND");
    g.name = want != nullptr ? want : "cpu";
    check("infinirtInit", infinirtInit());
    int n = 0;
    check("infinirtGetBackendCount", infinirtGetBackendCount(&n));
    std::string path;
    for (int i = 0; i < n; ++i) {
        infinirtBackendInfo_t info{};
        info.struct_size = sizeof info;
        check("infinirtGetBackendInfo", infinirtGetBackendInfo(i, &info));
        if (g.name == info.name && info.state == INFINIRT_BACKEND_LOADED) {
            path = info.path;
            g.type = info.device_type;
        }
    }
    if (path.empty()) {
        std::fprintf(stderr, "dispatch_bench: backend %s is not loaded (see infinirt-info)\n", g.name.c_str());
        std::exit(1);
    }
    // The loader already loaded and initialised this file; dlopen returns the same instance.
    void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    auto query = lib != nullptr ? reinterpret_cast<infinirtPluginQueryFn>(dlsym(lib, INFINIRT_PLUGIN_ENTRY_NAME)) : nullptr;
    uint32_t version = 0;
    if (query == nullptr || query(INFINIRT_PLUGIN_INTERFACE_VERSION, nullptr, &version, &g.table) != INFINI_STATUS_SUCCESS) {
        std::fprintf(stderr, "dispatch_bench: cannot reach the plugin table of %s\n", path.c_str());
        std::exit(1);
    }
    check("infinirtSetDevice", infinirtSetDevice(g.type, 0));
    check("infinirtStreamCreate", infinirtStreamCreate(&g.stream));
    check("infinirtEventCreate", infinirtEventCreateWithFlags(&g.event, INFINIRT_EVENT_DISABLE_TIMING));
    check("infinirtMalloc", infinirtMalloc(&g.dev, 64));
    check("infinirtMallocHost", infinirtMallocHost(&g.host, 64));
    check("stream_create", g.table->stream_create(0, &g.native_stream));
    check("event_create", g.table->event_create(0, INFINIRT_EVENT_DISABLE_TIMING, &g.native_event));
}

void drain() {
    infinirtStreamSynchronize(g.stream);
    g.table->stream_synchronize(0, g.native_stream);
}

// Measures the call through infinirt (A) and directly on the plugin (B) in alternating batches
// inside one benchmark, so both see the same machine state (plugin worker threads share the
// cores), and reports the median per-call time of each as counters.
template <typename A, typename B> void pairBenchmark(benchmark::State &state, A through_infinirt, B direct) {
    constexpr int kBatch = 64;
    std::vector<double> a_ns;
    std::vector<double> b_ns;
    bool a_first = true;
    for (auto _ : state) {
        // Alternate which side goes first, so neither always meets the other's leftovers.
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < kBatch; ++i) {
            benchmark::DoNotOptimize(a_first ? through_infinirt() : direct());
        }
        const auto t1 = std::chrono::steady_clock::now();
        for (int i = 0; i < kBatch; ++i) {
            benchmark::DoNotOptimize(a_first ? direct() : through_infinirt());
        }
        const auto t2 = std::chrono::steady_clock::now();
        const double first = std::chrono::duration<double, std::nano>(t1 - t0).count() / kBatch;
        const double second = std::chrono::duration<double, std::nano>(t2 - t1).count() / kBatch;
        a_ns.push_back(a_first ? first : second);
        b_ns.push_back(a_first ? second : first);
        a_first = !a_first;
    }
    drain();
    auto median = [](std::vector<double> &v) {
        std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
        return v.empty() ? 0.0 : v[v.size() / 2];
    };
    const double a = median(a_ns);
    const double b = median(b_ns);
    state.counters["infinirt_ns"] = a;
    state.counters["plugin_ns"] = b;
    state.counters["added_ns"] = a - b;
}

void BM_EventQuery(benchmark::State &s) {
    infinirtEventStatus_t st;
    pairBenchmark(
        s, [&] { return infinirtEventQuery(g.event, &st); },
        [&] { return g.table->event_query(0, g.native_event, &st); });
}
void BM_StreamQuery(benchmark::State &s) {
    drain();
    pairBenchmark(
        s, [] { return infinirtStreamQuery(g.stream); }, [] { return g.table->stream_query(0, g.native_stream); });
}
void BM_EventRecord(benchmark::State &s) {
    pairBenchmark(
        s, [] { return infinirtEventRecord(g.event, g.stream); },
        [] { return g.table->event_record(0, g.native_event, g.native_stream); });
}
void BM_MemcpyAsync64B(benchmark::State &s) {
    pairBenchmark(
        s, [] { return infinirtMemcpyAsync(g.dev, g.host, 64, INFINIRT_MEMCPY_H2D, g.stream); },
        [] { return g.table->memcpy_async(0, g.dev, g.host, 64, INFINIRT_MEMCPY_H2D, g.native_stream); });
}
void BM_SetDevice(benchmark::State &s) {
    pairBenchmark(
        s, [] { return infinirtSetDevice(g.type, 0); },
        [] { return g.table->set_device != nullptr ? g.table->set_device(0) : INFINI_STATUS_SUCCESS; });
}

// Prints every pair side by side at the end, with the difference and the ratio.
class PairReporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run> &runs) override {
        for (const Run &r : runs) {
            if (r.run_type == Run::RT_Iteration) {
                rows_.push_back({r.run_name.function_name.substr(3), r.counters.at("infinirt_ns").value,
                                 r.counters.at("plugin_ns").value});
            }
        }
        ConsoleReporter::ReportRuns(runs);
    }
    void printPairs() const {
        std::printf("\nDispatch overhead, backend %s (target: under 10 ns added per call)\n", g.name.c_str());
        std::printf("%-16s %14s %14s %12s %8s\n", "call", "infinirt (ns)", "plugin (ns)", "added (ns)", "ratio");
        int over = 0;
        for (const Row &r : rows_) {
            const double added = r.infinirt - r.plugin;
            over += added > 10.0;
            std::printf("%-16s %14.2f %14.2f %12.2f %8.3f\n", r.call.c_str(), r.infinirt, r.plugin, added,
                        r.plugin > 0 ? r.infinirt / r.plugin : 0.0);
        }
        std::printf("%s\n", over == 0 ? "all calls within target" : "some calls above target");
    }

private:
    struct Row {
        std::string call;
        double infinirt;
        double plugin;
    };
    std::vector<Row> rows_;
};

} // namespace

BENCHMARK(BM_EventQuery);
BENCHMARK(BM_StreamQuery);
BENCHMARK(BM_EventRecord);
BENCHMARK(BM_MemcpyAsync64B);
BENCHMARK(BM_SetDevice);

int main(int argc, char **argv) {
    benchmark::Initialize(&argc, argv);
    setUp();
    PairReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    reporter.printPairs();
    benchmark::Shutdown();
    return 0;
}
