// cpu AllReduce across hosts: infiniccl (infinicclCommInitFromEnv, over Gloo's TCP transport)
// beside Gloo called directly with the same transport in the same run: Gloo's ring allreduce on
// unbound buffers (gloo::allreduce, what the plugin calls above its cache's bound), its
// AllreduceRingChunked algorithm (buffers registered once, before the timing) and its BCUBE
// allreduce (gloo::allreduce on unbound buffers: recursive halving and doubling, its
// latency-oriented algorithm). One rank of the job; tests/ccl/netns_hosts.py's bench-2 and bench-4
// cases start it in 2 and 4 network-namespace hosts (bench/ccl/hosts_bench.sh). f32 sum in place,
// 8 KiB to 64 MiB; batches in rotating order, the median of each side's per-call time; rank 0
// prints the table: each ratio is Gloo's time over ours, against the ring, the chunked ring and the
// best of Gloo's three (>= 0.9 is the target), and the latency added at 8 KiB against that best
// (target <= 10 us). `--quick`: two sizes, few calls (a smoke run). CCL_BENCH_BATCH_S: the seconds
// each batch runs (default 0.2).
#include "infiniccl.h"

#include <arpa/inet.h>
#include <gloo/allreduce.h>
#include <gloo/allreduce_ring_chunked.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// The address this host reaches MASTER_ADDR from: the address the plugin's Gloo device listens on.
std::string localAddressToward(const char *host, int port) {
    const int fd = socket(AF_INET, SOCK_DGRAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, host, &a.sin_addr);
    char text[INET_ADDRSTRLEN] = "";
    if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0) {
        sockaddr_in local{};
        socklen_t len = sizeof local;
        getsockname(fd, reinterpret_cast<sockaddr *>(&local), &len);
        inet_ntop(AF_INET, &local.sin_addr, text, sizeof text);
    }
    close(fd);
    return text;
}

// Seconds per call of `fn`, run `calls` times.
double timeCalls(const std::function<void()> &fn, int calls) {
    const auto t0 = Clock::now();
    for (int i = 0; i < calls; ++i) fn();
    return std::chrono::duration<double>(Clock::now() - t0).count() / calls;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    infinicclComm_t comm = nullptr;
    if (infinicclCommInitFromEnv(&comm, INFINI_DEVICE_CPU) != INFINI_STATUS_SUCCESS) {
        std::printf("infinicclCommInitFromEnv: %s\n", infinirtGetLastErrorMessage());
        return 1;
    }
    int rank = 0, n = 0;
    infinicclCommGetRank(comm, &rank);
    infinicclCommGetSize(comm, &n);
    const char *master = std::getenv("MASTER_ADDR");
    const char *store_dir = std::getenv("BENCH_GLOO_STORE");
    if (store_dir == nullptr) {
        std::printf("BENCH_GLOO_STORE must name a folder every rank can write (Gloo's FileStore)\n");
        return 1;
    }
    // Gloo called directly: its own device on the same address, its own rendezvous (FileStore).
    gloo::transport::tcp::attr attr;
    attr.hostname = localAddressToward(master, std::atoi(std::getenv("MASTER_PORT")));
    auto device = gloo::transport::tcp::CreateDevice(attr);
    gloo::rendezvous::FileStore file_store(store_dir);
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, n);
    context->connectFullMesh(file_store, device);

    // Each side first, second, third and last as often: a multiple of the four sides.
    const int batches = quick ? 4 : 8;
    const char *batch_setting = std::getenv("CCL_BENCH_BATCH_S");
    const double batch_seconds = batch_setting != nullptr && std::atof(batch_setting) > 0 ? std::atof(batch_setting) : 0.2;
    const std::vector<size_t> sizes =
        quick ? std::vector<size_t>{size_t{8} << 10, size_t{512} << 10}
              : std::vector<size_t>{size_t{8} << 10,   size_t{64} << 10, size_t{128} << 10, size_t{256} << 10,
                                    size_t{512} << 10, size_t{4} << 20,  size_t{16} << 20,  size_t{64} << 20};
    if (rank == 0) {
        std::printf("cpu AllReduce f32 sum in place, %d ranks on %s hosts over Gloo's TCP transport (medians of "
                    "%d rotating batches)\n",
                    n, std::getenv("BENCH_HOSTS") ? std::getenv("BENCH_HOSTS") : "?", batches);
        std::printf("%10s %12s %12s %12s %12s %8s %8s %8s\n", "bytes", "infiniccl us", "gloo ring us", "ring_chunked",
                    "gloo bcube", "vs ring", "vs chunk", "vs best");
    }
    bool ok = true;
    double added_8k = 0;
    uint32_t tag = 1000;
    for (size_t bytes : sizes) {
        const size_t count = bytes / sizeof(float);
        std::vector<float> a(count, 1.0f), b(count, 1.0f), c(count, 1.0f), d(count, 1.0f);
        const std::function<void()> ours = [&] {
            if (infinicclAllReduce(a.data(), a.data(), count, INFINI_DTYPE_F32, INFINICCL_SUM, comm, nullptr) !=
                INFINI_STATUS_SUCCESS) {
                std::printf("rank %d: %s\n", rank, infinirtGetLastErrorMessage());
                std::exit(1);
            }
        };
        // Gloo's allreduce on unbound buffers, in place in `out`, with `algorithm`.
        auto glooAllreduce = [&](std::vector<float> &out, gloo::AllreduceOptions::Algorithm algorithm) {
            gloo::AllreduceOptions opts(context);
            opts.setOutput(out.data(), count);
            opts.setAlgorithm(algorithm);
            opts.setReduceFunction(
                static_cast<void (*)(void *, const void *, const void *, size_t)>(&gloo::sum<float>));
            opts.setTag(tag++);
            gloo::allreduce(opts);
        };
        std::vector<float *> ptrs{c.data()};
        gloo::AllreduceRingChunked<float> chunked(context, ptrs, static_cast<int>(count));
        auto chunk = [&] { chunked.run(); };
        // About 0.2 s per batch and side (CCL_BENCH_BATCH_S: seconds), at least 3 calls.
        const auto t_probe = timeCalls(ours, 2);
        int calls = std::max(3, static_cast<int>((quick ? 0.01 : batch_seconds) / std::max(t_probe, 1e-7)));
        calls = std::min(calls, 2000);
        // Every rank makes the same number of calls: the most any rank wants.
        int32_t agreed = calls;
        infinicclAllReduce(&agreed, &agreed, 1, INFINI_DTYPE_I32, INFINICCL_MAX, comm, nullptr);
        calls = agreed;
        // Batches in rotating order (ours, ring, chunked, bcube; ring, chunked, bcube, ours; ...).
        const std::function<void()> sides[4] = {
            ours, [&] { glooAllreduce(b, gloo::AllreduceOptions::Algorithm::RING); }, chunk,
            [&] { glooAllreduce(d, gloo::AllreduceOptions::Algorithm::BCUBE); }};
        std::vector<double> times[4];
        for (int batch = 0; batch < batches; ++batch) {
            for (int k = 0; k < 4; ++k) {
                const int side = (batch + k) % 4;
                times[side].push_back(timeCalls(sides[side], calls));
            }
        }
        const double mo = median(times[0]) * 1e6, mg = median(times[1]) * 1e6, mc = median(times[2]) * 1e6,
                     mb = median(times[3]) * 1e6;
        const double best = std::min({mg, mc, mb});
        if (bytes == (size_t{8} << 10)) added_8k = mo - best;
        if (rank == 0) {
            std::printf("%10zu %12.1f %12.1f %12.1f %12.1f %8.3f %8.3f %8.3f %s\n", bytes, mo, mg, mc, mb, mg / mo,
                        mc / mo, best / mo, best / mo >= 0.9 ? "met" : "MISSED");
        }
        // The values: each side summed n ranks' ones, many times over (powers of n: exact).
        ok = ok && a[0] > 1.0f && b[0] > 1.0f && d[0] > 1.0f;
    }
    if (rank == 0) {
        std::printf("latency added at 8 KiB against Gloo's best algorithm: %.1f us (target <= 10 us); a ratio is "
                    "Gloo's time / ours (target >= 0.9 against the best of the three)\n",
                    added_8k);
    }
    infinicclCommDestroy(comm);
    return ok ? 0 : 1;
}
