// Dispatch overhead of the opencl backend: each hot call made through infinirt* (loader + plugin)
// against the raw OpenCL calls that do the same work on the same cl_command_queue, printed side
// by side with the difference and the ratio.
//
// The raw side includes what the plugin's semantics require and OpenCL does not do by itself:
// a clFlush after each enqueue (so work progresses without a synchronising call) and releasing
// the event a marker replaces.
//
// Device: INFINIRT_BENCH_DEVICE=<opencl index> (default 0).
#include <CL/cl.h>

#include "infinirt.h"

#include "../common/paired.h"

#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

#define BENCH_CL_SYMBOLS(X)                                                                                       \
    X(clFlush)                                                                                                    \
    X(clFinish)                                                                                                   \
    X(clEnqueueMarkerWithWaitList)                                                                                \
    X(clEnqueueBarrierWithWaitList)                                                                               \
    X(clGetEventInfo)                                                                                             \
    X(clReleaseEvent)                                                                                             \
    X(clSVMAlloc)                                                                                                 \
    X(clSVMFree)                                                                                                  \
    X(clEnqueueSVMMemcpy)                                                                                         \
    X(clEnqueueSVMMemFill)                                                                                        \
    X(clEnqueueSVMFree)                                                                                           \
    X(clCreateBuffer)                                                                                             \
    X(clEnqueueMapBuffer)

struct Raw {
#define BENCH_CL_DECLARE(name) decltype(&::name) name = nullptr;
    BENCH_CL_SYMBOLS(BENCH_CL_DECLARE)
#undef BENCH_CL_DECLARE
};

struct Setup {
    Raw cl;
    int device = 0;
    std::string device_name;
    // Through infinirt
    infinirtStream_t stream = nullptr;
    infinirtEvent_t event = nullptr;
    void *dev = nullptr;
    void *host = nullptr;
    // Raw, on the same queue
    cl_command_queue queue = nullptr;
    cl_context context = nullptr;
    cl_event marker = nullptr;
    // Bandwidth: infinirt pinned memory against the vendor-recommended pinned buffer (a mapped
    // CL_MEM_ALLOC_HOST_PTR buffer), both copied to the same device allocation.
    void *big_dev = nullptr;
    void *big_pinned = nullptr;
    void *big_raw_pinned = nullptr;
};

constexpr size_t kBigCopy = 64 << 20;

Setup g;

void check(const char *what, infiniStatus_t st) {
    if (st != INFINI_STATUS_SUCCESS) {
        std::fprintf(stderr, "opencl_bench: %s: %s: %s\n", what, infinirtGetErrorName(st), infinirtGetLastErrorMessage());
        std::exit(1);
    }
}

void checkCl(const char *what, cl_int err) {
    if (err != CL_SUCCESS) {
        std::fprintf(stderr, "opencl_bench: %s failed: %d\n", what, err);
        std::exit(1);
    }
}

void setUp() {
    const char *want = std::getenv("INFINIRT_BENCH_DEVICE");
    g.device = want ? std::atoi(want) : 0;
    check("infinirtSetDevice", infinirtSetDevice(INFINI_DEVICE_OPENCL, g.device));
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof(props);
    check("infinirtGetDeviceProperties", infinirtGetDeviceProperties(INFINI_DEVICE_OPENCL, g.device, &props));
    g.device_name = std::string(props.name) + " (" + props.platform + ")";
    // The plugin already loaded the ICD loader; dlopen returns the same instance.
    void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        std::fprintf(stderr, "opencl_bench: dlopen(libOpenCL.so.1): %s\n", dlerror());
        std::exit(1);
    }
#define BENCH_CL_RESOLVE(name)                                                                                    \
    g.cl.name = reinterpret_cast<decltype(g.cl.name)>(dlsym(lib, #name));                                         \
    if (!g.cl.name) {                                                                                             \
        std::fprintf(stderr, "opencl_bench: libOpenCL.so.1 lacks " #name "\n");                                   \
        std::exit(1);                                                                                             \
    }
    BENCH_CL_SYMBOLS(BENCH_CL_RESOLVE)
#undef BENCH_CL_RESOLVE
    check("infinirtStreamCreate", infinirtStreamCreate(&g.stream));
    check("infinirtEventCreate", infinirtEventCreateWithFlags(&g.event, INFINIRT_EVENT_DISABLE_TIMING));
    check("infinirtMalloc", infinirtMalloc(&g.dev, 64));
    check("infinirtMallocHost", infinirtMallocHost(&g.host, 64));
    void *native = nullptr;
    check("infinirtStreamGetNativeHandle", infinirtStreamGetNativeHandle(g.stream, &native));
    g.queue = static_cast<cl_command_queue>(native);
    check("infinirtDeviceGetNativeContext", infinirtDeviceGetNativeContext(INFINI_DEVICE_OPENCL, g.device, &native));
    g.context = static_cast<cl_context>(native);
    check("infinirtMalloc", infinirtMalloc(&g.big_dev, kBigCopy));
    check("infinirtMallocHost", infinirtMallocHost(&g.big_pinned, kBigCopy));
    cl_int err = CL_SUCCESS;
    cl_mem raw_buffer = g.cl.clCreateBuffer(g.context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, kBigCopy, nullptr, &err);
    checkCl("clCreateBuffer", err);
    g.big_raw_pinned = g.cl.clEnqueueMapBuffer(g.queue, raw_buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, kBigCopy, 0,
                                               nullptr, nullptr, &err);
    checkCl("clEnqueueMapBuffer", err);
    // Both sides start with a completed recording, so queries measure the common case.
    check("infinirtEventRecord", infinirtEventRecord(g.event, g.stream));
    checkCl("clEnqueueMarkerWithWaitList", g.cl.clEnqueueMarkerWithWaitList(g.queue, 0, nullptr, &g.marker));
    checkCl("clFinish", g.cl.clFinish(g.queue));
}

// Both sides run in alternating batches on the same queue, drained between batches outside the
// timed part so that neither side pays for a long queue.
template <int kBatch = 32, typename A, typename B>
void pairBenchmark(benchmark::State &state, A through_infinirt, B raw) {
    infinirt_bench::pairBenchmark<kBatch>(state, through_infinirt, raw, [] { g.cl.clFinish(g.queue); });
}

void BM_EventRecord(benchmark::State &s) {
    pairBenchmark(
        s, [] { return infinirtEventRecord(g.event, g.stream); },
        [] {
            cl_event next = nullptr;
            cl_int err = g.cl.clEnqueueMarkerWithWaitList(g.queue, 0, nullptr, &next);
            g.cl.clFlush(g.queue);
            g.cl.clReleaseEvent(g.marker);
            g.marker = next;
            return err;
        });
}

void BM_EventQuery(benchmark::State &s) {
    pairBenchmark(
        s,
        [] {
            infinirtEventStatus_t st;
            return infinirtEventQuery(g.event, &st);
        },
        [] {
            cl_int st;
            return g.cl.clGetEventInfo(g.marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, nullptr);
        });
}

void BM_StreamWaitEvent(benchmark::State &s) {
    pairBenchmark(
        s, [] { return infinirtStreamWaitEvent(g.stream, g.event); },
        [] {
            cl_int err = g.cl.clEnqueueBarrierWithWaitList(g.queue, 1, &g.marker, nullptr);
            g.cl.clFlush(g.queue);
            return err;
        });
}

void BM_StreamQuery(benchmark::State &s) {
    pairBenchmark(
        s, [] { return infinirtStreamQuery(g.stream); },
        [] {
            cl_event probe = nullptr;
            cl_int st = CL_COMPLETE;
            cl_int err = g.cl.clEnqueueMarkerWithWaitList(g.queue, 0, nullptr, &probe);
            g.cl.clFlush(g.queue);
            g.cl.clGetEventInfo(probe, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, nullptr);
            g.cl.clReleaseEvent(probe);
            return err;
        });
}

void BM_MemcpyAsyncH2D64B(benchmark::State &s) {
    pairBenchmark(
        s, [] { return infinirtMemcpyAsync(g.dev, g.host, 64, INFINIRT_MEMCPY_H2D, g.stream); },
        [] {
            cl_int err = g.cl.clEnqueueSVMMemcpy(g.queue, CL_FALSE, g.dev, g.host, 64, 0, nullptr, nullptr);
            g.cl.clFlush(g.queue);
            return err;
        });
}

void BM_MemsetAsync64B(benchmark::State &s) {
    pairBenchmark(
        s, [] { return infinirtMemsetAsync(g.dev, 0, 64, g.stream); },
        [] {
            const unsigned char zero = 0;
            cl_int err = g.cl.clEnqueueSVMMemFill(g.queue, g.dev, &zero, 1, 64, 0, nullptr, nullptr);
            g.cl.clFlush(g.queue);
            return err;
        });
}

void BM_MemcpySyncD2H64B(benchmark::State &s) {
    // Synchronous copies run on the default stream; the raw side blocks on the same queue kind.
    pairBenchmark(
        s, [] { return infinirtMemcpy(g.host, g.dev, 64, INFINIRT_MEMCPY_D2H); },
        [] { return g.cl.clEnqueueSVMMemcpy(g.queue, CL_TRUE, g.host, g.dev, 64, 0, nullptr, nullptr); });
}

void BM_MallocFreeAsync4K(benchmark::State &s) {
    pairBenchmark(
        s,
        [] {
            void *p = nullptr;
            infiniStatus_t st = infinirtMallocAsync(&p, 4096, g.stream);
            return st == INFINI_STATUS_SUCCESS ? infinirtFreeAsync(p, g.stream) : st;
        },
        [] {
            void *p = g.cl.clSVMAlloc(g.context, CL_MEM_READ_WRITE, 4096, 0);
            cl_int err = g.cl.clEnqueueSVMFree(g.queue, 1, &p, nullptr, nullptr, 0, nullptr, nullptr);
            g.cl.clFlush(g.queue);
            return err;
        });
}

// Copies a 64 MiB block and waits for it: the figure is the time per copy (GB/s in the table).
void BM_MemcpyH2D64MiBPinned(benchmark::State &s) {
    pairBenchmark<2>(
        s,
        [] {
            infiniStatus_t st = infinirtMemcpyAsync(g.big_dev, g.big_pinned, kBigCopy, INFINIRT_MEMCPY_H2D, g.stream);
            return st == INFINI_STATUS_SUCCESS ? infinirtStreamSynchronize(g.stream) : st;
        },
        [] {
            cl_int err = g.cl.clEnqueueSVMMemcpy(g.queue, CL_FALSE, g.big_dev, g.big_raw_pinned, kBigCopy, 0, nullptr,
                                                 nullptr);
            return err == CL_SUCCESS ? g.cl.clFinish(g.queue) : err;
        });
}

void BM_MemcpyD2H64MiBPinned(benchmark::State &s) {
    pairBenchmark<2>(
        s,
        [] {
            infiniStatus_t st = infinirtMemcpyAsync(g.big_pinned, g.big_dev, kBigCopy, INFINIRT_MEMCPY_D2H, g.stream);
            return st == INFINI_STATUS_SUCCESS ? infinirtStreamSynchronize(g.stream) : st;
        },
        [] {
            cl_int err = g.cl.clEnqueueSVMMemcpy(g.queue, CL_FALSE, g.big_raw_pinned, g.big_dev, kBigCopy, 0, nullptr,
                                                 nullptr);
            return err == CL_SUCCESS ? g.cl.clFinish(g.queue) : err;
        });
}

} // namespace

BENCHMARK(BM_EventRecord);
BENCHMARK(BM_EventQuery);
BENCHMARK(BM_StreamWaitEvent);
BENCHMARK(BM_StreamQuery);
BENCHMARK(BM_MemcpyAsyncH2D64B);
BENCHMARK(BM_MemsetAsync64B);
BENCHMARK(BM_MemcpySyncD2H64B);
BENCHMARK(BM_MallocFreeAsync4K);
BENCHMARK(BM_MemcpyH2D64MiBPinned);
BENCHMARK(BM_MemcpyD2H64MiBPinned);

int main(int argc, char **argv) {
    const auto console = infinirt_bench::consoleOptions(argc, argv);
    benchmark::Initialize(&argc, argv);
    setUp();
    infinirt_bench::PairReporter reporter(console);
    benchmark::RunSpecifiedBenchmarks(&reporter);
    reporter.print("opencl backend dispatch, device opencl:" + std::to_string(g.device) + " " + g.device_name,
                   "raw cl (ns)", -1.0, [](const infinirt_bench::PairReporter::Row &r) {
                       if (r.call.find("64MiB") == std::string::npos || r.ours <= 0 || r.reference <= 0) {
                           return std::string();
                       }
                       char text[64];
                       std::snprintf(text, sizeof text, "   %.1f vs %.1f GB/s", kBigCopy / r.ours, kBigCopy / r.reference);
                       return std::string(text);
                   });
    benchmark::Shutdown();
    return 0;
}
