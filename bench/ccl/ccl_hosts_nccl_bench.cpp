// NCCL between two hosts: one rank of a comm made by infinicclCommInitFromEnv(NVIDIA), started by
// tests/ccl/netns_hosts.py (case nccl-2) in a network namespace of its own with one GPU
// (CUDA_VISIBLE_DEVICES) and NCCL forced onto its socket transport (NCCL_P2P_DISABLE=1,
// NCCL_SHM_DISABLE=1, NCCL_IB_DISABLE=1, NCCL_SOCKET_IFNAME=eth0: the namespace's veth). Checks
// AllReduce f32 sum results (1 KiB..256 MiB), then times it beside raw NCCL called directly with
// the same settings in the same run: two comms of its own, one made before infiniccl's and one
// after (the comm made later measured faster at the large sizes; their mean cancels the order),
// whose ids rank 0 passes through files in BENCH_NCCL_ID_DIR; the same native stream; each round
// runs the three batches in one of the six orders in turn. Rank 0 prints the bus bandwidths
// (medians) and the ratio of the raw comms' mean total time to infiniccl's, with the range of the
// rounds' own ratios (target >= 0.98 at >= 64 MiB). Exit 0 when every result is right.
#include "../../ccl/nccl/nccl_native_api.h"
#include "infiniccl.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace nccl = infiniccl::nccl;

namespace {

using Clock = std::chrono::steady_clock;

bool ok(infiniStatus_t st, const char *what) {
    if (st == INFINI_STATUS_SUCCESS) return true;
    std::printf("%s: %s: %s\n", what, infinirtGetErrorName(st), infinirtGetLastErrorMessage());
    return false;
}

// Rank 0 writes NCCL's id to DIR/id, the others wait for it (bounded).
bool shareId(int rank, nccl::Api &api, nccl::ncclUniqueId *id, const char *name) {
    const char *dir = std::getenv("BENCH_NCCL_ID_DIR");
    if (dir == nullptr) return false;
    const std::string path = std::string(dir) + "/" + name, tmp = path + ".tmp";
    if (rank == 0) {
        if (api.GetUniqueId(id) != nccl::ncclSuccess) return false;
        std::ofstream(tmp, std::ios::binary).write(id->internal, sizeof id->internal);
        return std::rename(tmp.c_str(), path.c_str()) == 0;
    }
    for (int i = 0; i < 1200; ++i) {
        std::ifstream in(path, std::ios::binary);
        if (in.read(id->internal, sizeof id->internal)) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

} // namespace

int main() {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    nccl::Api api;
    std::string reason;
    if (!nccl::loadApi(&api, &reason)) {
        std::printf("NCCL: %s\n", reason.c_str());
        return 1;
    }
    // Two raw comms, one made before infiniccl's and one after (from the launcher's RANK and
    // WORLD_SIZE): the comm made later measured faster at the large sizes, so infiniccl is judged
    // against the two together and the order cancels.
    nccl::ncclComm_t raw[2] = {nullptr, nullptr};
    const char *rank_setting = std::getenv("RANK"), *size_setting = std::getenv("WORLD_SIZE");
    if (rank_setting == nullptr || size_setting == nullptr) {
        std::printf("RANK and WORLD_SIZE must be set (torchrun's variables)\n");
        return 1;
    }
    auto makeRaw = [&](int k) {
        nccl::ncclUniqueId id{};
        const int r = std::atoi(rank_setting);
        if (!shareId(r, api, &id, k == 0 ? "id-before" : "id-after") ||
            api.CommInitRank(&raw[k], std::atoi(size_setting), id, r) != nccl::ncclSuccess) {
            std::printf("rank %d: raw NCCL comm failed\n", r);
            return false;
        }
        return true;
    };
    if (!makeRaw(0)) return 1;
    infinicclComm_t comm = nullptr;
    if (!ok(infinicclCommInitFromEnv(&comm, INFINI_DEVICE_NVIDIA), "infinicclCommInitFromEnv")) return 1;
    int rank = 0, n = 0;
    infinicclCommGetRank(comm, &rank);
    infinicclCommGetSize(comm, &n);
    if (!makeRaw(1)) return 1;
    infinirtStream_t stream = nullptr;
    void *native = nullptr;
    if (!ok(infinirtStreamCreate(&stream), "stream") || !ok(infinirtStreamGetNativeHandle(stream, &native), "native")) {
        return 1;
    }
    bool correct = true;
    const size_t max_bytes = size_t{256} << 20;
    void *buf = nullptr;
    if (!ok(infinirtMalloc(&buf, max_bytes), "malloc")) return 1;
    std::vector<float> host(max_bytes / sizeof(float));
    // Correctness: rank r contributes r + 1 + i % 7; the sum is known.
    for (size_t bytes = 1024; bytes <= max_bytes; bytes *= 16) {
        const size_t count = bytes / sizeof(float);
        for (size_t i = 0; i < count; ++i) host[i] = static_cast<float>(rank + 1 + static_cast<int>(i % 7));
        infinirtMemcpy(buf, host.data(), bytes, INFINIRT_MEMCPY_H2D);
        if (!ok(infinicclAllReduce(buf, buf, count, INFINI_DTYPE_F32, INFINICCL_SUM, comm, stream), "AllReduce")) {
            return 1;
        }
        infinirtStreamSynchronize(stream);
        infinirtMemcpy(host.data(), buf, bytes, INFINIRT_MEMCPY_D2H);
        for (size_t i = 0; i < count; ++i) {
            const float want = static_cast<float>(n * (n + 1) / 2 + n * static_cast<int>(i % 7));
            if (host[i] != want) {
                std::printf("rank %d: %zu bytes: element %zu is %g, expected %g\n", rank, bytes, i, host[i], want);
                correct = false;
                break;
            }
        }
    }
    if (rank == 0) {
        std::printf("AllReduce f32 sum, %d ranks on %d namespace hosts, NCCL sockets only: results %s\n", n, n,
                    correct ? "right" : "WRONG");
        std::printf("%12s %14s %14s %14s %8s %14s\n", "bytes", "infiniccl GB/s", "raw, before", "raw, after",
                    "ratio", "rounds' range");
    }
    for (size_t bytes = size_t{1} << 20; bytes <= max_bytes; bytes *= 4) {
        const size_t count = bytes / sizeof(float);
        // Sockets between namespaces vary by tens of percent from one call to the next: at the
        // large sizes, short batches in many rounds, each round's two batches adjacent in time.
        const bool large = bytes >= (size_t{64} << 20);
        const int calls = large ? 2 : 30;
        // who: 0 infiniccl, 1 the raw comm made before it, 2 the one made after.
        auto batch = [&](int who) {
            const auto t0 = Clock::now();
            for (int i = 0; i < calls; ++i) {
                if (who == 0) {
                    infinicclAllReduce(buf, buf, count, INFINI_DTYPE_F32, INFINICCL_SUM, comm, stream);
                } else {
                    api.AllReduce(buf, buf, count, nccl::ncclFloat32, nccl::ncclSum, raw[who - 1], native);
                }
            }
            infinirtStreamSynchronize(stream);
            return std::chrono::duration<double>(Clock::now() - t0).count() / calls;
        };
        for (int who = 0; who < 3; ++who) batch(who);
        // Each round runs the three batches in one of the six orders, in turn.
        static const int kOrders[6][3] = {{0, 1, 2}, {2, 1, 0}, {1, 0, 2}, {2, 0, 1}, {1, 2, 0}, {0, 2, 1}};
        std::vector<double> t[3];
        const int rounds = large ? 36 : 6;
        for (int k = 0; k < rounds; ++k) {
            for (int who : kOrders[k % 6]) t[who].push_back(batch(who));
        }
        // The ratio: the raw comms' mean total time over ours, all interleaved over the same
        // seconds (a median of the rounds' ratios leans with their skew); the rounds' own ratios
        // give the range.
        double totals[3] = {0, 0, 0}, low = 1e300, high = 0;
        for (size_t k = 0; k < t[0].size(); ++k) {
            for (int who = 0; who < 3; ++who) totals[who] += t[who][k];
            const double r = (t[1][k] + t[2][k]) / 2 / t[0][k];
            low = std::min(low, r);
            high = std::max(high, r);
        }
        const double ratio = (totals[1] + totals[2]) / 2 / totals[0];
        const double factor = 2.0 * (n - 1) / n; // bus bandwidth
        double gbs[3];
        for (int who = 0; who < 3; ++who) {
            std::sort(t[who].begin(), t[who].end());
            gbs[who] = bytes * factor / t[who][t[who].size() / 2] / 1e9;
        }
        if (rank == 0) {
            std::printf("%12zu %14.2f %14.2f %14.2f %8.3f %6.3f..%5.3f%s\n", bytes, gbs[0], gbs[1], gbs[2], ratio, low,
                        high, large ? (ratio >= 0.98 ? "  met" : "  MISSED (target 0.98)") : "");
        }
    }
    api.CommDestroy(raw[0]);
    api.CommDestroy(raw[1]);
    infinirtFree(buf);
    infinirtStreamDestroy(stream);
    infinicclCommDestroy(comm);
    return correct ? 0 : 1;
}
