/*
 * kernels_cpu_bench - the cpu backend's kernels, measured in one run beside what a program would
 * do without infinirt:
 *  - launch + synchronise latency of an empty kernel (1 block of 1 thread): limit 5 us; printed
 *    beside the cheapest stream round trip through infinirt (a 4-byte MemcpyAsync + sync);
 *  - saxpy over 256 MiB of floats (y = a*x + y, 12 bytes per element) through the kernel pool
 *    against the same loop with OpenMP (saxpy_openmp.c, same compiler flags, as many threads as
 *    the pool has workers), in GB/s: limit >= 0.9x OpenMP's. Runs alternate (ABBA), each after
 *    50 ms idle; the limit row takes the median of each side, an info row the best;
 *  - graph replay: one infinirtGraphLaunch of 100 captured empty launches + sync against the
 *    same 100 launches issued directly + sync.
 * The pool size is INFINIRT_CPU_WORKERS (default: the hardware threads). Prints a table and
 * PASS/FAIL per limit; exits 0 whatever the timings (1 when a call fails).
 * Usage: infinirt-kernels-cpu-bench [--quick]   (--quick: a smoke run with tiny counts)
 */
#include "kernel_bench.h"

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

extern "C" void benchSaxpyOpenmp(float *y, const float *x, float a, int64_t n, int threads);

namespace {

using namespace infinirt_bench;

infinirtKernelArg_t pointerArg(void *const *p) {
    return {INFINIRT_KERNEL_ARG_POINTER, sizeof(void *), p};
}
template <typename T> infinirtKernelArg_t valueArg(const T *v) {
    return {INFINIRT_KERNEL_ARG_VALUE, sizeof(T), v};
}

} // namespace

int main(int argc, char **argv) {
    const bool quick = quickMode(argc, argv);
    const int rounds = quick ? 2 : 51;
    /* Calls per timed batch: launch + sync, graph replays; ABBA pairs of saxpy runs (2 per side). */
    const int syncs = quick ? 10 : 200;
    const int replays = quick ? 2 : 20;
    const int saxpy_pairs = quick ? 1 : 5;
    const int64_t n = quick ? (int64_t(1) << 20) : (int64_t(256) << 20) / int64_t(sizeof(float));
    constexpr int kGraphLaunches = 100;

    int count = 0;
    if (infinirtGetDeviceCount(INFINI_DEVICE_CPU, &count) != INFINI_STATUS_SUCCESS || count == 0) {
        std::printf("kernels_cpu_bench: no cpu device, nothing measured\n");
        return 0;
    }
    check(infinirtSetDevice(INFINI_DEVICE_CPU, 0), "infinirtSetDevice");
    const std::string so = readFile(INFINIRT_BENCH_KERNELS_CPU);
    if (so.empty()) {
        return 1;
    }
    infinirtModule_t module = nullptr;
    infinirtKernel_t empty = nullptr, saxpy = nullptr, workers = nullptr;
    if (!loadModule(&module, INFINI_DEVICE_CPU, 0, INFINIRT_MODULE_FORMAT_HOST_SO, so)) {
        return 1;
    }
    check(infinirtModuleGetKernel(&empty, module, "empty"), "infinirtModuleGetKernel(empty)");
    check(infinirtModuleGetKernel(&saxpy, module, "saxpy"), "infinirtModuleGetKernel(saxpy)");
    check(infinirtModuleGetKernel(&workers, module, "worker_count"), "infinirtModuleGetKernel(worker_count)");
    infinirtStream_t stream = nullptr;
    check(infinirtStreamCreate(&stream), "infinirtStreamCreate");
    int64_t max_block = 0;
    check(infinirtKernelGetAttribute(&max_block, INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK, saxpy),
          "infinirtKernelGetAttribute(MAX_THREADS_PER_BLOCK)");
    void *word = nullptr; /* a uint32_t for worker_count, then the 4-byte copies of the anchor */
    void *host_word = nullptr;
    check(infinirtMalloc(&word, sizeof(uint32_t)), "infinirtMalloc");
    check(infinirtMallocHost(&host_word, sizeof(uint32_t)), "infinirtMallocHost");
    if (g_failed) {
        return 1;
    }

    /* The pool's worker count, as a kernel sees it: the OpenMP side uses as many threads. */
    const infinirtLaunchConfig_t one = launchConfig(1, 1);
    const infinirtKernelArg_t word_arg = pointerArg(&word);
    check(infinirtLaunchKernel(workers, &one, &word_arg, 1, stream), "infinirtLaunchKernel(worker_count)");
    check(infinirtStreamSynchronize(stream), "infinirtStreamSynchronize");
    check(infinirtMemcpy(host_word, word, sizeof(uint32_t), INFINIRT_MEMCPY_D2H), "infinirtMemcpy");
    const int threads = static_cast<int>(*static_cast<uint32_t *>(host_word));
    if (g_failed || threads <= 0) {
        std::fprintf(stderr, "kernels_cpu_bench: no worker count (%d)\n", threads);
        return 1;
    }

    /* ---- latency and graph replay ---- */
    check(infinirtLaunchKernel(empty, &one, nullptr, 0, stream), "infinirtLaunchKernel(empty)");
    check(infinirtMemcpyAsync(word, host_word, sizeof(uint32_t), INFINIRT_MEMCPY_H2D, stream), "infinirtMemcpyAsync");
    check(infinirtStreamSynchronize(stream), "infinirtStreamSynchronize");
    infinirtGraph_t graph = nullptr;
    infinirtGraphExec_t exec = nullptr;
    captureLaunches(empty, one, stream, kGraphLaunches, &graph, &exec);
    check(infinirtGraphLaunch(exec, stream), "infinirtGraphLaunch");
    check(infinirtStreamSynchronize(stream), "infinirtStreamSynchronize");
    if (g_failed) {
        return 1;
    }

    std::vector<Row> rows;
    rows.push_back(atMost("launch + sync, empty kernel 1x1",
                          launchSync(rounds, syncs, empty, one, stream,
                                     [&] {
                                         infinirtMemcpyAsync(word, host_word, sizeof(uint32_t), INFINIRT_MEMCPY_H2D,
                                                             stream);
                                         infinirtStreamSynchronize(stream);
                                     }),
                          5000.0));
    rows.push_back(info("graph of 100 launches + sync (vs direct)", "us",
                        graphVsDirect(rounds, replays, exec, empty, one, stream, kGraphLaunches)));

    /* ---- saxpy throughput ---- */
    const int64_t block = max_block > 0 && max_block < 1024 ? max_block : 1024;
    const int64_t grid = (n + block - 1) / block;
    void *x = nullptr, *y = nullptr;
    check(infinirtMalloc(&x, size_t(n) * sizeof(float)), "infinirtMalloc(x)");
    check(infinirtMalloc(&y, size_t(n) * sizeof(float)), "infinirtMalloc(y)");
    if (g_failed) {
        return 1;
    }
    /* Touched once by this thread (neither side's partition decides where the pages live). */
    for (int64_t i = 0; i < n; ++i) {
        static_cast<float *>(x)[i] = 1.0f;
        static_cast<float *>(y)[i] = 0.0f;
    }
    const float a = 0.5f;
    const infinirtLaunchConfig_t saxpy_config = launchConfig(static_cast<uint32_t>(grid), static_cast<uint32_t>(block));
    const infinirtKernelArg_t saxpy_args[4] = {pointerArg(&y), pointerArg(&x), valueArg(&a), valueArg(&n)};
    const double bytes = 12.0 * double(n);
    /* Each run starts after a pause, so that neither side's idle threads are still spinning
     * (libgomp spins for milliseconds after a parallel region, as may the pool's workers) while
     * the other side runs: with as many threads as cores, that halves the other's figure. */
    auto pause = [] { std::this_thread::sleep_for(std::chrono::milliseconds(50)); };
    auto oursGbps = [&] {
        pause();
        const auto t0 = Clock::now();
        check(infinirtLaunchKernel(saxpy, &saxpy_config, saxpy_args, 4, stream), "infinirtLaunchKernel(saxpy)");
        check(infinirtStreamSynchronize(stream), "infinirtStreamSynchronize(saxpy)");
        return bytes / std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    };
    auto openmpGbps = [&] {
        pause();
        const auto t0 = Clock::now();
        benchSaxpyOpenmp(static_cast<float *>(y), static_cast<const float *>(x), a, n, threads);
        return bytes / std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    };
    oursGbps(); /* warm-up: pages mapped, pools and OpenMP threads started */
    openmpGbps();
    std::vector<double> ours, openmp;
    for (int r = 0; r < saxpy_pairs; ++r) {
        ours.push_back(oursGbps());
        openmp.push_back(openmpGbps());
        openmp.push_back(openmpGbps());
        ours.push_back(oursGbps());
    }
    /* y = 0.5 * (runs so far), from 0: check the ends, so that a kernel doing nothing is not "fast". */
    const float expect = 0.5f * float(2 + 4 * saxpy_pairs);
    const float got = static_cast<float *>(y)[n - 1];
    if (got != expect || static_cast<float *>(y)[0] != expect) {
        std::fprintf(stderr, "kernels_cpu_bench: saxpy result %g, expected %g\n", double(got), double(expect));
        g_failed = true;
    }
    const long long mib = static_cast<long long>(n * 4 >> 20);
    rows.push_back(
        ratioAtLeast(format("saxpy %lld MiB of floats, median", mib), "GB/s", unpaired(median(ours), median(openmp)), 0.9));
    rows.push_back(
        info(format("saxpy %lld MiB of floats, best", mib), "GB/s",
             unpaired(*std::max_element(ours.begin(), ours.end()), *std::max_element(openmp.begin(), openmp.end()))));

    const char *env_workers = std::getenv("INFINIRT_CPU_WORKERS");
    const std::string title =
        format("cpu kernels: %d workers (INFINIRT_CPU_WORKERS=%s), OpenMP threads %d; saxpy grid %lld x block "
               "%lld, %d runs per side; latency: median of %d batches per side of %d (launch + sync), %d (graph)",
               threads, env_workers ? env_workers : "unset", threads, static_cast<long long>(grid),
               static_cast<long long>(block), 2 * saxpy_pairs, 2 * rounds, syncs, replays);
    printTable(title,
               "latency: MemcpyAsync of 4 bytes + StreamSynchronize on the same stream; graph: the same 100 launches "
               "made directly; saxpy: the same loop with OpenMP (12 bytes per element)",
               rows);

    check(infinirtGraphExecDestroy(exec), "infinirtGraphExecDestroy");
    check(infinirtGraphDestroy(graph), "infinirtGraphDestroy");
    check(infinirtFree(x), "infinirtFree");
    check(infinirtFree(y), "infinirtFree");
    check(infinirtFree(word), "infinirtFree");
    check(infinirtFreeHost(host_word), "infinirtFreeHost");
    check(infinirtModuleUnload(module), "infinirtModuleUnload");
    check(infinirtStreamDestroy(stream), "infinirtStreamDestroy");
    return g_failed ? 1 : 0;
}
