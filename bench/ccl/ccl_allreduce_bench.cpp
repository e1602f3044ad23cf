/*
 * ccl_allreduce_bench - what infiniccl costs over the engine underneath, measured side by side in
 * one run:
 *  - nvidia (two GPUs): AllReduce f32 and bf16, 8 KiB .. 1 GiB, through infiniccl against NCCL
 *    called directly (the same libnccl, its own comms) on the same native streams; both ranks
 *    driven from one thread in a group. Targets: bus bandwidth ratio >= 0.98 at >= 64 MiB, added
 *    latency <= 1 us at 8 KiB.
 *  - cpu (two cpu devices): AllReduce f32, 8 KiB .. 32 MiB, infiniccl's cpu backend against a
 *    plain threaded reduction (each thread sums both inputs straight from the other's memory; no
 *    staging; compiled at -O3 whatever the build type, so the compiler vectorises it), one thread
 *    per rank; the same two threads run every batch of both. Goals: bandwidth ratio >= 0.8 at
 *    >= 512 KiB, <= 5 us at 8 KiB. For diagnosis it prints the host (cpu model, cpus, caches, NUMA
 *    nodes), the compiler, the buffers' offsets in a cache line, under each row the cpus each rank
 *    ran on in either side's batches, and (INFINICCL_CPU_STATS, set unless given) the plugin's
 *    count of how each rank's waits ended: at once, polling, yielding or sleeping (one comm per row).
 * Batches alternate ours and the reference (ABBA); each figure is the median over batches. Prints
 * a table; never fails on timing. Without NCCL or two GPUs the nvidia part says why and is
 * skipped. Usage: ccl_allreduce_bench [--quick] [--pin A,B]  (--quick: cpu only, tiny sizes: a CI
 * smoke run; --pin: the cpu part's rank 0 thread runs on cpu A only, rank 1 on cpu B)
 */
#include "infiniccl.h"

#include "../../ccl/nccl/nccl_native_api.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
namespace nccl = infiniccl::nccl;

bool g_failed = false;

bool ok(infiniStatus_t s, const char *what) {
    if (s != INFINI_STATUS_SUCCESS) {
        std::fprintf(stderr, "%s failed: %s: %s\n", what, infinirtGetErrorName(s), infinirtGetLastErrorMessage());
        g_failed = true;
    }
    return s == INFINI_STATUS_SUCCESS;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

// Seconds per operation of `ours` and `reference` (each runs a batch of `iters` and waits for it),
// alternating which goes first; medians over `rounds` pairs.
void paired(int rounds, int iters, const std::function<void(int)> &ours, const std::function<void(int)> &reference,
            double *ours_s, double *ref_s) {
    std::vector<double> a, b;
    ours(1);
    reference(1); // warm-up
    for (int r = 0; r < rounds; ++r) {
        for (int k = 0; k < 2; ++k) {
            const bool run_ours = (k == 0) == (r % 2 == 0);
            const auto t0 = Clock::now();
            (run_ours ? ours : reference)(iters);
            const double s = std::chrono::duration<double>(Clock::now() - t0).count() / iters;
            (run_ours ? a : b).push_back(s);
        }
    }
    *ours_s = median(a);
    *ref_s = median(b);
}

std::string sizeText(size_t bytes) {
    char buf[32];
    if (bytes >= (size_t{1} << 30)) std::snprintf(buf, sizeof buf, "%zu GiB", bytes >> 30);
    else if (bytes >= (size_t{1} << 20)) std::snprintf(buf, sizeof buf, "%zu MiB", bytes >> 20);
    else std::snprintf(buf, sizeof buf, "%zu KiB", bytes >> 10);
    return buf;
}

void header(const char *ref_name) {
    std::printf("%-5s %8s %12s %12s %11s %11s %8s %10s\n", "dtype", "size", "infiniccl us", (std::string(ref_name) + " us").c_str(),
                "ours GB/s", "ref GB/s", "bw ratio", "added us");
}

// Bus bandwidth of an AllReduce of `bytes` over n ranks taking `s` seconds (NCCL's definition).
double busBw(size_t bytes, int n, double s) { return s > 0 ? 2.0 * (n - 1) / n * static_cast<double>(bytes) / s / 1e9 : 0; }

void row(const char *dtype, size_t bytes, int n, double ours, double ref, const char *note) {
    const double ratio = ours > 0 ? ref / ours : 0;
    std::printf("%-5s %8s %12.2f %12.2f %11.2f %11.2f %8.3f %10.2f %s\n", dtype, sizeText(bytes).c_str(), ours * 1e6,
                ref * 1e6, busBw(bytes, n, ours), busBw(bytes, n, ref), ratio, (ours - ref) * 1e6, note);
}

// ---- nvidia: infiniccl vs NCCL on the same streams ------------------------------------------
void benchNvidia() {
    std::printf("\n== AllReduce on 2 nvidia GPUs: infiniccl (nccl plugin) vs NCCL called directly ==\n");
    int count = 0;
    if (infinirtGetDeviceCount(INFINI_DEVICE_NVIDIA, &count) != INFINI_STATUS_SUCCESS || count < 2) {
        std::printf("skipped: %d nvidia device(s), need 2\n", count);
        return;
    }
    nccl::Api api;
    std::string why;
    if (!nccl::loadApi(&api, &why)) {
        std::printf("skipped: %s\n", why.c_str());
        return;
    }
    infinicclComm_t comms[2];
    if (!ok(infinicclCommInitAll(INFINI_DEVICE_NVIDIA, comms, 2, nullptr), "infinicclCommInitAll")) return;
    const int devs[2] = {0, 1};
    nccl::ncclComm_t direct[2];
    if (api.CommInitAll(direct, 2, devs) != nccl::ncclSuccess) {
        std::printf("skipped: ncclCommInitAll failed\n");
        return;
    }
    const size_t max_bytes = size_t{1} << 30;
    infinirtStream_t streams[2];
    void *send[2], *recv[2], *native[2];
    for (int r = 0; r < 2; ++r) {
        ok(infinirtSetDevice(INFINI_DEVICE_NVIDIA, r), "infinirtSetDevice");
        ok(infinirtStreamCreate(&streams[r]), "infinirtStreamCreate");
        ok(infinirtStreamGetNativeHandle(streams[r], &native[r]), "infinirtStreamGetNativeHandle");
        ok(infinirtMalloc(&send[r], max_bytes), "infinirtMalloc");
        ok(infinirtMalloc(&recv[r], max_bytes), "infinirtMalloc");
        ok(infinirtMemset(send[r], 0, max_bytes), "infinirtMemset");
    }
    if (g_failed) return;
    auto sync = [&] {
        for (int r = 0; r < 2; ++r) infinirtStreamSynchronize(streams[r]);
    };
    header("NCCL");
    const struct {
        infiniDtype_t dtype;
        nccl::ncclDataType_t native;
        const char *name;
        size_t es;
    } types[] = {{INFINI_DTYPE_F32, nccl::ncclFloat32, "f32", 4}, {INFINI_DTYPE_BF16, nccl::ncclBfloat16, "bf16", 2}};
    for (const auto &t : types) {
        for (size_t bytes = 8 << 10; bytes <= max_bytes; bytes *= 4) {
            for (size_t b : {bytes, bytes == (size_t{32} << 20) ? size_t{64} << 20 : size_t{0}}) {
                if (b == 0) continue;
                const size_t n = b / t.es;
                const int iters = static_cast<int>(std::clamp<size_t>((size_t{512} << 20) / b, 4, 200));
                auto ours = [&](int k) {
                    for (int i = 0; i < k; ++i) {
                        infinicclGroupStart(comms[0]);
                        for (int r = 0; r < 2; ++r)
                            infinicclAllReduce(send[r], recv[r], n, t.dtype, INFINICCL_SUM, comms[r], streams[r]);
                        infinicclGroupEnd(comms[0]);
                    }
                    sync();
                };
                auto reference = [&](int k) {
                    for (int i = 0; i < k; ++i) {
                        api.GroupStart();
                        for (int r = 0; r < 2; ++r)
                            api.AllReduce(send[r], recv[r], n, t.native, nccl::ncclSum, direct[r], native[r]);
                        api.GroupEnd();
                    }
                    sync();
                };
                double o = 0, rf = 0;
                paired(b >= (size_t{256} << 20) ? 5 : 9, iters, ours, reference, &o, &rf);
                const char *note = "";
                if (b >= (size_t{64} << 20)) note = rf / o >= 0.98 ? "(target bw ratio >= 0.98: met)" : "(target bw ratio >= 0.98: NOT met)";
                if (b == (size_t{8} << 10)) note = (o - rf) * 1e6 <= 1.0 ? "(target added <= 1 us: met)" : "(target added <= 1 us: NOT met)";
                row(t.name, b, 2, o, rf, note);
            }
        }
    }
    for (int r = 0; r < 2; ++r) {
        infinirtFree(send[r]);
        infinirtFree(recv[r]);
        infinirtStreamDestroy(streams[r]);
        infinicclCommDestroy(comms[r]);
        api.CommDestroy(direct[r]);
    }
}

// ---- cpu: infiniccl vs a plain threaded reduction -------------------------------------------
// Waits as the cpu plugin's barriers do: polls for 20 us, then yields the cpu. (Yielding at once
// hands the cpu to any other runnable process, for a time slice, on a busy host.)
class SpinBarrier {
public:
    explicit SpinBarrier(int n) : n_(n) {}
    void wait() {
        const unsigned gen = gen_.load();
        if (count_.fetch_add(1) + 1 == n_) {
            count_.store(0);
            gen_.fetch_add(1);
            return;
        }
        const auto start = Clock::now();
        bool poll = true;
        for (unsigned spins = 1; gen_.load() == gen; ++spins) {
            if (poll && (spins % 32 != 0 || Clock::now() - start < std::chrono::microseconds(20))) {
#if defined(__x86_64__) || defined(__i386__)
                __builtin_ia32_pause();
#endif
                continue;
            }
            poll = false;
            std::this_thread::yield();
        }
    }

private:
    const int n_;
    std::atomic<int> count_{0};
    std::atomic<unsigned> gen_{0};
};

// The two ranks of the cpu part: rank 0 is the calling thread, rank 1 a thread that lives as long
// as the pair. Starting threads for every batch would add their start to every figure, and
// threads just started often share one cpu until the scheduler spreads them.
class RankPair {
public:
    // pin[r] >= 0: rank r's thread runs on that cpu only.
    explicit RankPair(const int pin[2]) : helper_([this, cpu = pin[1]] {
        pinTo(cpu);
        serve();
    }) {
        pinTo(pin[0]);
    }
    ~RankPair() {
        task_ = nullptr;
        barrier_.wait();
        helper_.join();
    }
    // Runs fn(0) on this thread and fn(1) on the other; returns when both returned. Each rank adds
    // the cpus it was on at the start and at the end to cpus[rank].
    void run(const std::function<void(int)> &fn, std::set<int> cpus[2]) {
        task_ = &fn;
        cpus_ = cpus;
        barrier_.wait();
        runOne(0);
        barrier_.wait();
    }

private:
    static void pinTo(int cpu) {
        if (cpu < 0) return;
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0) std::fprintf(stderr, "cannot pin a rank to cpu %d\n", cpu);
    }
    void runOne(int rank) {
        cpus_[rank].insert(sched_getcpu());
        (*task_)(rank);
        cpus_[rank].insert(sched_getcpu());
    }
    void serve() {
        for (;;) {
            barrier_.wait();
            if (task_ == nullptr) return;
            runOne(1);
            barrier_.wait();
        }
    }
    SpinBarrier barrier_{2};
    const std::function<void(int)> *task_ = nullptr;
    std::set<int> *cpus_ = nullptr;
    std::thread helper_;
};

std::string firstLine(const char *path, const char *key) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        if (key == nullptr) return line;
        if (line.rfind(key, 0) == 0) return line.substr(line.find(':') + 2);
    }
    return "?";
}

// The host, for reading the figures: cpu model, the cpus this process may use, cache sizes, NUMA
// nodes, the compiler.
void describeHost() {
    cpu_set_t set;
    const int allowed = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
    std::printf("host: %s; %d cpus allowed of %ld online; L2 %ld KiB, L3 %ld KiB; NUMA nodes %s; built with %s\n",
                firstLine("/proc/cpuinfo", "model name").c_str(), allowed, sysconf(_SC_NPROCESSORS_ONLN),
                sysconf(_SC_LEVEL2_CACHE_SIZE) >> 10, sysconf(_SC_LEVEL3_CACHE_SIZE) >> 10,
                firstLine("/sys/devices/system/node/online", nullptr).c_str(), __VERSION__);
}

std::string cpuText(const std::set<int> &cpus) {
    std::string s;
    for (int c : cpus) s += (s.empty() ? "" : ",") + std::to_string(c);
    return "{" + s + "}";
}

void benchCpu(bool quick, const int pin[2]) {
    std::printf("\n== AllReduce f32 on 2 cpu devices: infiniccl (cpu plugin) vs a plain threaded reduction ==\n");
    int count = 0;
    if (infinirtGetDeviceCount(INFINI_DEVICE_CPU, &count) != INFINI_STATUS_SUCCESS || count < 2) {
        std::printf("skipped: %d cpu device(s), need 2 (INFINIRT_CPU_DEVICE_COUNT=2)\n", count);
        return;
    }
    describeHost();
    const size_t max_bytes = quick ? size_t{256} << 10 : size_t{32} << 20;
    std::vector<float> in[2], out[2];
    for (int r = 0; r < 2; ++r) {
        in[r].assign(max_bytes / 4, static_cast<float>(r + 1));
        out[r].assign(max_bytes / 4, 0.0f);
    }
    auto lineOffset = [](const std::vector<float> &v) { return reinterpret_cast<uintptr_t>(v.data()) % 64; };
    std::printf("buffers' offsets in a 64-byte line: send %zu %zu, recv %zu %zu\n", lineOffset(in[0]),
                lineOffset(in[1]), lineOffset(out[0]), lineOffset(out[1]));
    if (pin[0] >= 0) std::printf("ranks pinned: rank 0 to cpu %d, rank 1 to cpu %d\n", pin[0], pin[1]);
    header("threads");
    RankPair ranks(pin);
    for (size_t bytes = 8 << 10; bytes <= max_bytes; bytes *= quick ? 32 : 8) {
        infinicclComm_t comms[2];
        if (!ok(infinicclCommInitAll(INFINI_DEVICE_CPU, comms, 2, nullptr), "infinicclCommInitAll")) return;
        const size_t n = bytes / 4;
        const int iters = quick ? 2 : static_cast<int>(std::clamp<size_t>((size_t{64} << 20) / bytes, 2, 200));
        std::set<int> ours_cpus[2], ref_cpus[2];
        auto ours = [&](int k) {
            ranks.run(
                [&](int r) {
                    infinirtSetDevice(INFINI_DEVICE_CPU, r);
                    for (int i = 0; i < k; ++i)
                        infinicclAllReduce(in[r].data(), out[r].data(), n, INFINI_DTYPE_F32, INFINICCL_SUM, comms[r],
                                           nullptr);
                },
                ours_cpus);
        };
        auto reference = [&](int k) {
            SpinBarrier barrier(2);
            ranks.run(
                [&](int r) {
                    for (int i = 0; i < k; ++i) {
                        barrier.wait(); // inputs ready
                        const float *a = in[0].data(), *b = in[1].data();
                        float *o = out[r].data();
                        for (size_t j = 0; j < n; ++j) o[j] = a[j] + b[j];
                        barrier.wait(); // inputs free again
                    }
                },
                ref_cpus);
        };
        double o = 0, rf = 0;
        paired(quick ? 1 : 5, iters, ours, reference, &o, &rf);
        const char *note = "";
        if (!quick && bytes >= (size_t{512} << 10))
            note = rf / o >= 0.8 ? "(goal bw ratio >= 0.8: met)" : "(goal bw ratio >= 0.8: MISSED)";
        if (!quick && bytes == (size_t{8} << 10))
            note = o * 1e6 <= 5.0 ? "(goal <= 5 us: met)" : "(goal <= 5 us: MISSED)";
        row("f32", bytes, 2, o, rf, note);
        std::printf("      cpus: infiniccl rank 0 %s, rank 1 %s; threads rank 0 %s, rank 1 %s\n",
                    cpuText(ours_cpus[0]).c_str(), cpuText(ours_cpus[1]).c_str(), cpuText(ref_cpus[0]).c_str(),
                    cpuText(ref_cpus[1]).c_str());
        for (std::vector<float> &v : out) std::fill(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n), 0.0f);
        ours(1); // the last batch may have been the reference's
        if (out[0][n - 1] != 3.0f || out[1][0] != 3.0f) {
            std::fprintf(stderr, "wrong AllReduce result %g\n", static_cast<double>(out[0][n - 1]));
            g_failed = true;
        }
        std::fflush(stdout); // the plugin writes its wait counts to stderr as the comms go
        for (int r = 0; r < 2; ++r) infinicclCommDestroy(comms[r]);
    }
}

} // namespace

int main(int argc, char **argv) {
    bool quick = false;
    int pin[2] = {-1, -1};
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (std::strcmp(argv[i], "--pin") == 0 && i + 1 < argc &&
                   std::sscanf(argv[i + 1], "%d,%d", &pin[0], &pin[1]) == 2 && pin[0] >= 0 && pin[1] >= 0) {
            ++i;
        } else {
            std::fprintf(stderr, "usage: %s [--quick] [--pin A,B]\n", argv[0]);
            return 2;
        }
    }
    setenv("INFINIRT_CPU_DEVICE_COUNT", "2", 0); // before infinirt loads its plugins
    setenv("INFINICCL_CPU_STATS", "1", 0);
    if (!quick) benchNvidia();
    benchCpu(quick, pin);
    return g_failed ? 1 : 0;
}
