// Dispatch overhead of the loader: each hot call made through infinirt* against the same call
// made directly on the table of the same plugin (a second instance of its file, driven by this
// program), printed side by side with the difference and the ratio.
//
// Backend: INFINIRT_BENCH_BACKEND=<name> (default: cpu). Target: under 10 ns added per call.
#include "infinirt_plugin.h"

#include "../common/paired.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <unistd.h>
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
    // The direct side gets its own instance of the same plugin code: a copy of the file, loaded,
    // negotiated and initialised by this program, so that it never disturbs the instance the
    // loader owns (its host services, its state).
    char copy[] = "/tmp/infinirt-dispatch-bench-XXXXXX";
    const int fd = mkstemp(copy);
    FILE *in = std::fopen(path.c_str(), "rb");
    FILE *out = fd >= 0 ? fdopen(fd, "wb") : nullptr;
    if (in == nullptr || out == nullptr) {
        std::fprintf(stderr, "dispatch_bench: cannot copy %s\n", path.c_str());
        std::exit(1);
    }
    std::vector<char> buf(1 << 16);
    for (size_t n; (n = std::fread(buf.data(), 1, buf.size(), in)) > 0;) {
        std::fwrite(buf.data(), 1, n, out);
    }
    std::fclose(in);
    std::fclose(out);
    void *lib = dlopen(copy, RTLD_NOW | RTLD_LOCAL);
    std::remove(copy);
    auto query = lib != nullptr ? reinterpret_cast<infinirtPluginQueryFn>(dlsym(lib, INFINIRT_PLUGIN_ENTRY_NAME)) : nullptr;
    static const infinirtPluginHost_t host = {sizeof(infinirtPluginHost_t), INFINIRT_PLUGIN_INTERFACE_VERSION,
                                              [](const char *m) { std::fprintf(stderr, "plugin: %s\n", m); },
                                              [](infinirtLogLevel_t, const char *) {}};
    uint32_t version = 0;
    if (query == nullptr || query(INFINIRT_PLUGIN_INTERFACE_VERSION, &host, &version, &g.table) != INFINI_STATUS_SUCCESS ||
        g.table->init() != INFINI_STATUS_SUCCESS) {
        std::fprintf(stderr, "dispatch_bench: cannot load a second instance of %s\n", path.c_str());
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

using infinirt_bench::pairBenchmark;
const auto kNothing = [] {};

void BM_EventQuery(benchmark::State &s) {
    infinirtEventStatus_t st;
    pairBenchmark(
        s, [&] { return infinirtEventQuery(g.event, &st); },
        [&] { return g.table->event_query(0, g.native_event, &st); }, kNothing);
}
void BM_StreamQuery(benchmark::State &s) {
    drain();
    pairBenchmark(
        s, [] { return infinirtStreamQuery(g.stream); }, [] { return g.table->stream_query(0, g.native_stream); },
        kNothing);
}
void BM_EventRecord(benchmark::State &s) {
    pairBenchmark(
        s, [] { return infinirtEventRecord(g.event, g.stream); },
        [] { return g.table->event_record(0, g.native_event, g.native_stream); }, kNothing);
    drain();
}
void BM_MemcpyAsync64B(benchmark::State &s) {
    pairBenchmark(
        s, [] { return infinirtMemcpyAsync(g.dev, g.host, 64, INFINIRT_MEMCPY_H2D, g.stream); },
        [] { return g.table->memcpy_async(0, g.dev, g.host, 64, INFINIRT_MEMCPY_H2D, g.native_stream); }, kNothing);
    drain();
}
void BM_MemsetAsync64B(benchmark::State &s) {
    pairBenchmark(
        s, [] { return infinirtMemsetAsync(g.dev, 0, 64, g.stream); },
        [] { return g.table->memset_async(0, g.dev, 0, 64, g.native_stream); }, kNothing);
    drain();
}
void BM_SetDevice(benchmark::State &s) {
    pairBenchmark(
        s, [] { return infinirtSetDevice(g.type, 0); },
        [] { return g.table->set_device != nullptr ? g.table->set_device(0) : INFINI_STATUS_SUCCESS; }, kNothing);
}
// A push and its pop beside what they replace: infinirtSetDevice there and back.
void BM_PushPopDevice(benchmark::State &s) {
    pairBenchmark(
        s,
        [] {
            const infiniStatus_t st = infinirtPushDevice(g.type, 0);
            return st != INFINI_STATUS_SUCCESS ? st : infinirtPopDevice(nullptr, nullptr);
        },
        [] {
            const infiniStatus_t st = infinirtSetDevice(g.type, 0);
            return st != INFINI_STATUS_SUCCESS ? st : infinirtSetDevice(g.type, 0);
        },
        kNothing);
}

// The plugin's half of a push and its pop beside its half of two SetDevice calls, on the plugin's
// table (registered where the backend saves and switches in one call: set_device_saving): what
// the push and the pop add that the loader does not.
void BM_PushPopPlugin(benchmark::State &s) {
    pairBenchmark(
        s,
        [] {
            void *state = nullptr;
            const infiniStatus_t st = g.table->set_device_saving(0, &state);
            return st != INFINI_STATUS_SUCCESS ? st : g.table->thread_state_restore(0, state);
        },
        [] {
            const infiniStatus_t st = g.table->set_device(0);
            return st != INFINI_STATUS_SUCCESS ? st : g.table->set_device(0);
        },
        kNothing);
}

} // namespace

BENCHMARK(BM_EventQuery);
BENCHMARK(BM_StreamQuery);
BENCHMARK(BM_EventRecord);
BENCHMARK(BM_MemcpyAsync64B);
BENCHMARK(BM_MemsetAsync64B);
BENCHMARK(BM_SetDevice);
BENCHMARK(BM_PushPopDevice);

int main(int argc, char **argv) {
    const auto console = infinirt_bench::consoleOptions(argc, argv);
    benchmark::Initialize(&argc, argv);
    setUp();
    if (g.table->set_device_saving != nullptr && g.table->thread_state_restore != nullptr && g.table->set_device != nullptr) {
        benchmark::RegisterBenchmark("BM_PushPopPlugin", BM_PushPopPlugin);
    }
    infinirt_bench::PairReporter reporter(console);
    benchmark::RunSpecifiedBenchmarks(&reporter);
    const int over = reporter.print("Dispatch overhead, backend " + g.name + " (target: under 10 ns added per call)",
                                    "plugin (ns)", 10.0);
    std::printf("%s\n", over == 0 ? "all calls within target" : "some calls above target");
    benchmark::Shutdown();
    return 0;
}
