/*
 * peer_bench - copies between devices, infinirt against the driver, side by side in one run:
 *  - nvidia:0 -> nvidia:1, 256 MiB: infinirtMemcpyPeerAsync against cuMemcpyPeerAsync on the same
 *    CUstream, with peer access off and on (target: ratio >= 0.98 of the native bandwidth), and
 *    the link's GB/s;
 *  - every pair of backends found (nvidia <-> cpu, nvidia <-> opencl, cpu <-> opencl), 256 MiB,
 *    infinirtMemcpyPeer (staged by the loader, or host-direct where one end is cpu): GB/s against
 *    the slower of the two legs measured in the same run (leg 1: the source's D2H, leg 2: the
 *    destination's H2D, each from/to its own pinned memory: cuda with cuMemcpyAsync from
 *    cuMemHostAlloc memory, the others with infinirtMemcpy, the plugin's native call; cpu: a
 *    memmove) (target: >= 0.8 of the slower leg).
 * Each figure is the median of `reps` copies; ours and native alternate (ABBA). Prints tables;
 * never fails on timing. Skips what the machine lacks (no CUDA, one GPU, no opencl device) with
 * the reason (without CUDA the cpu <-> opencl row still runs).
 * Usage: peer_bench [--quick]   (--quick: a smoke run with 8 MiB copies)
 */
#include <infinirt.h>

#include "cuda_native_api.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

namespace {

using infinirt::cuda::nativeApi;
using Clock = std::chrono::steady_clock;

bool g_failed = false;
int reps_ = 9;

bool ok(infiniStatus_t s, const char *what) {
    if (s != INFINI_STATUS_SUCCESS) {
        std::fprintf(stderr, "%s failed: %s: %s\n", what, infinirtGetErrorName(s), infinirtGetLastErrorMessage());
        g_failed = true;
    }
    return s == INFINI_STATUS_SUCCESS;
}
bool ok(CUresult rc, const char *what) {
    if (rc != CUDA_SUCCESS) {
        std::fprintf(stderr, "%s failed: CUresult %d\n", what, static_cast<int>(rc));
        g_failed = true;
    }
    return rc == CUDA_SUCCESS;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

double seconds(const std::function<void()> &copy) {
    const auto t0 = Clock::now();
    copy();
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

/* Median seconds of `a` and of `b` (each a complete copy), alternating ABBA, after one warm-up each. */
std::pair<double, double> pair(int reps, const std::function<void()> &a, const std::function<void()> &b) {
    a();
    b();
    std::vector<double> ta, tb;
    for (int i = 0; i < reps; ++i) {
        if (i % 2 == 0) {
            ta.push_back(seconds(a));
            tb.push_back(seconds(b));
        } else {
            tb.push_back(seconds(b));
            ta.push_back(seconds(a));
        }
    }
    return {median(ta), median(tb)};
}

double gbps(size_t bytes, double s) { return s > 0 ? bytes / s / 1e9 : 0.0; }

CUdeviceptr dptr(const void *p) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)); }

void *mallocOn(infiniDevice_t type, int id, size_t size, bool host) {
    void *p = nullptr;
    if (!ok(infinirtSetDevice(type, id), "infinirtSetDevice")) {
        return nullptr;
    }
    ok(host ? infinirtMallocHost(&p, size) : infinirtMalloc(&p, size), host ? "infinirtMallocHost" : "infinirtMalloc");
    return p;
}

void gpuToGpu(size_t size, int reps) {
    std::printf("\nnvidia:0 -> nvidia:1, %zu MiB, median of %d copies per side (ABBA)\n", size >> 20, reps);
    void *a = mallocOn(INFINI_DEVICE_NVIDIA, 0, size, false);
    void *b = mallocOn(INFINI_DEVICE_NVIDIA, 1, size, false);
    infinirtStream_t stream = nullptr;
    void *ns = nullptr, *ctx0 = nullptr, *ctx1 = nullptr;
    ok(infinirtSetDevice(INFINI_DEVICE_NVIDIA, 0), "infinirtSetDevice");
    ok(infinirtStreamCreate(&stream), "infinirtStreamCreate");
    ok(infinirtStreamGetNativeHandle(stream, &ns), "infinirtStreamGetNativeHandle");
    ok(infinirtDeviceGetNativeContext(INFINI_DEVICE_NVIDIA, 0, &ctx0), "infinirtDeviceGetNativeContext");
    ok(infinirtDeviceGetNativeContext(INFINI_DEVICE_NVIDIA, 1, &ctx1), "infinirtDeviceGetNativeContext");
    if (g_failed || a == nullptr || b == nullptr) {
        return;
    }
    CUstream cs = static_cast<CUstream>(ns);
    int can01 = 0, can10 = 0, rank = 0;
    ok(infinirtDeviceCanAccessPeer(&can01, INFINI_DEVICE_NVIDIA, 0, INFINI_DEVICE_NVIDIA, 1), "CanAccessPeer");
    ok(infinirtDeviceCanAccessPeer(&can10, INFINI_DEVICE_NVIDIA, 1, INFINI_DEVICE_NVIDIA, 0), "CanAccessPeer");
    ok(infinirtDeviceGetPeerAttribute(&rank, INFINIRT_PEER_ATTR_PERFORMANCE_RANK, INFINI_DEVICE_NVIDIA, 0,
                                      INFINI_DEVICE_NVIDIA, 1),
       "GetPeerAttribute");
    std::printf("peer access supported: 0->1 %d, 1->0 %d; performance rank %d\n", can01, can10, rank);
    std::printf("%-12s %14s %14s %8s  %s\n", "peer access", "infinirt GB/s", "native GB/s", "ratio", "target (>= 0.98)");
    for (int on = 0; on < 2; ++on) {
        if (on) {
            if (!can01 || !can10) {
                std::printf("%-12s skipped: the driver reports no peer access between the two GPUs\n", "on");
                break;
            }
            ok(infinirtDeviceEnablePeerAccess(INFINI_DEVICE_NVIDIA, 0, INFINI_DEVICE_NVIDIA, 1, 0), "EnablePeerAccess");
            ok(infinirtDeviceEnablePeerAccess(INFINI_DEVICE_NVIDIA, 1, INFINI_DEVICE_NVIDIA, 0, 0), "EnablePeerAccess");
        }
        auto [ours, native] = pair(
            reps,
            [&] {
                ok(infinirtMemcpyPeerAsync(b, INFINI_DEVICE_NVIDIA, 1, a, INFINI_DEVICE_NVIDIA, 0, size, stream),
                   "infinirtMemcpyPeerAsync");
                ok(infinirtStreamSynchronize(stream), "infinirtStreamSynchronize");
            },
            [&] {
                ok(nativeApi().cuMemcpyPeerAsync(dptr(b), static_cast<CUcontext>(ctx1), dptr(a),
                                              static_cast<CUcontext>(ctx0), size, cs),
                   "cuMemcpyPeerAsync");
                ok(nativeApi().cuStreamSynchronize(cs), "cuStreamSynchronize");
            });
        const double ratio = ours > 0 ? native / ours : 0.0;
        std::printf("%-12s %14.2f %14.2f %8.3f  %s\n", on ? "on" : "off", gbps(size, ours), gbps(size, native), ratio,
                    ratio >= 0.98 ? "met" : "MISSED");
        if (on) {
            ok(infinirtDeviceDisablePeerAccess(INFINI_DEVICE_NVIDIA, 0, INFINI_DEVICE_NVIDIA, 1), "DisablePeerAccess");
            ok(infinirtDeviceDisablePeerAccess(INFINI_DEVICE_NVIDIA, 1, INFINI_DEVICE_NVIDIA, 0), "DisablePeerAccess");
        }
    }
    infinirtStreamDestroy(stream);
    infinirtFree(a);
    infinirtFree(b);
}

/* One device's native leg to/from pinned host memory: cuda with cuMemcpyAsync from cuMemHostAlloc
 * memory on a stream of its own, the other backends with infinirtMemcpy from their own
 * infinirtMallocHost memory (the plugin's native call; cpu: a memmove). */
struct Leg {
    infiniDevice_t type = INFINI_DEVICE_CPU;
    const char *name = "";
    size_t size = 0;
    void *dev = nullptr;  /* size bytes on type:0 */
    void *host = nullptr; /* size bytes of its pinned host memory */
    CUstream cs = nullptr;

    bool open(infiniDevice_t t, const char *n, size_t bytes) {
        type = t;
        name = n;
        size = bytes;
        dev = mallocOn(type, 0, size, false);
        if (type == INFINI_DEVICE_NVIDIA) {
            ok(nativeApi().cuMemHostAlloc(&host, size, CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc");
            ok(nativeApi().cuStreamCreate(&cs, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
        } else {
            host = mallocOn(type, 0, size, true);
        }
        return !g_failed && dev != nullptr && host != nullptr;
    }
    void close() {
        if (type == INFINI_DEVICE_NVIDIA) {
            if (cs != nullptr) {
                nativeApi().cuStreamDestroy(cs);
            }
            if (host != nullptr) {
                nativeApi().cuMemFreeHost(host);
            }
        } else if (host != nullptr) {
            infinirtFreeHost(host);
        }
        if (dev != nullptr) {
            infinirtFree(dev);
        }
    }
    void copy(bool to_device) const {
        void *dst = to_device ? dev : host;
        const void *src = to_device ? host : dev;
        if (type == INFINI_DEVICE_NVIDIA) {
            ok(nativeApi().cuMemcpyAsync(dptr(dst), dptr(src), size, cs), to_device ? "cuMemcpyAsync H2D" : "cuMemcpyAsync D2H");
            ok(nativeApi().cuStreamSynchronize(cs), "cuStreamSynchronize");
        } else {
            ok(infinirtSetDevice(type, 0), "infinirtSetDevice");
            ok(infinirtMemcpy(dst, src, size, to_device ? INFINIRT_MEMCPY_H2D : INFINIRT_MEMCPY_D2H),
               to_device ? "infinirtMemcpy H2D" : "infinirtMemcpy D2H");
        }
    }
};

/* a:0 <-> b:0, staged by the loader (infinirtMemcpyPeer), against the two legs: the source's D2H
 * and the destination's H2D. */
void staged(const Leg &a, const Leg &b) {
    for (int dir = 0; dir < 2; ++dir) {
        const Leg &s = dir == 0 ? a : b;
        const Leg &d = dir == 0 ? b : a;
        char label[64];
        std::snprintf(label, sizeof label, "%s:0 -> %s:0", s.name, d.name);
        auto copy = [&] { ok(infinirtMemcpyPeer(d.dev, d.type, 0, s.dev, s.type, 0, s.size), "infinirtMemcpyPeer"); };
        auto [ours, leg1] = pair(reps_, copy, [&] { s.copy(false); });
        auto [ours2, leg2] = pair(reps_, copy, [&] { d.copy(true); });
        const double our_s = (ours + ours2) / 2; /* the staged copy ran beside each leg: both medians count */
        const double slower = std::max(leg1, leg2);
        const double ratio = our_s > 0 ? slower / our_s : 0.0;
        std::printf("%-22s %12.2f %12.2f %12.2f %8.3f  %s\n", label, gbps(s.size, our_s), gbps(s.size, leg1),
                    gbps(s.size, leg2), ratio, ratio >= 0.8 ? "met" : "MISSED");
    }
}

} // namespace

int main(int argc, char **argv) {
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    const size_t size = quick ? (size_t(8) << 20) : (size_t(256) << 20);
    reps_ = quick ? 1 : 9;

    const char *why = nullptr;
    const bool loaded = infinirt::cuda::load(&why);
    int gpus = 0;
    if (loaded) {
        ok(infinirtGetDeviceCount(INFINI_DEVICE_NVIDIA, &gpus), "infinirtGetDeviceCount");
    }
    if (!loaded || gpus == 0) {
        std::printf("nvidia: no CUDA device, the nvidia copies are not measured (%s)\n", loaded ? "0 devices" : why);
    } else if (gpus >= 2) {
        gpuToGpu(size, reps_);
    } else {
        std::printf("\nnvidia:0 -> nvidia:1: skipped (%d nvidia device)\n", gpus);
    }
    std::printf("\nstaged copies (infinirtMemcpyPeer), %zu MiB, median of %d per side; leg 1: the source's D2H, "
                "leg 2: the destination's H2D, each to/from its own pinned memory; ratio = slower leg's time / ours\n",
                size >> 20, reps_);
    std::printf("%-22s %12s %12s %12s %8s  %s\n", "direction", "staged GB/s", "leg 1 GB/s", "leg 2 GB/s", "ratio",
                "target (>= 0.8)");
    const std::pair<infiniDevice_t, const char *> kinds[] = {
        {INFINI_DEVICE_NVIDIA, "nvidia"}, {INFINI_DEVICE_CPU, "cpu"}, {INFINI_DEVICE_OPENCL, "opencl"}};
    bool present[3] = {gpus > 0, false, false};
    for (int i = 1; i < 3; ++i) {
        int n = 0;
        ok(infinirtGetDeviceCount(kinds[i].first, &n), "infinirtGetDeviceCount");
        present[i] = n > 0;
    }
    /* Every pair of backends found: nvidia <-> cpu, nvidia <-> opencl, cpu <-> opencl. */
    for (int i = 0; i < 3; ++i) {
        for (int j = i + 1; j < 3; ++j) {
            if (!present[i] || !present[j]) {
                std::printf("%s <-> %s: skipped: no %s device\n", kinds[i].second, kinds[j].second,
                            !present[i] ? kinds[i].second : kinds[j].second);
                continue;
            }
            Leg a, b;
            if (a.open(kinds[i].first, kinds[i].second, size) && b.open(kinds[j].first, kinds[j].second, size)) {
                staged(a, b);
            }
            a.close();
            b.close();
        }
    }
    return g_failed ? 1 : 0;
}
