// One rank of a comm made from the launcher's variables (infinicclCommInitFromEnv), started by
// tests/ccl/netns_hosts.py in a network namespace of its own (a "host"). Modes:
//   collectives   every collective (AllReduce x dtype x op, Reduce, Broadcast, AllGather(V),
//                 ReduceScatter(V), Send/Recv), in place and out of place, then AllReduce on buffers
//                 that come back, move (on some ranks only), are freed and allocated again, with
//                 counts that alternate, every result checked; small AllReduces (the plugin's direct
//                 exchange) back to back with values that change per call, and every rank's result
//                 of inexact values compared bit for bit with every other's;
//                 prints "rank R of N: C checks passed" and exits 0, else the first mismatches, 1.
//   allreduce     AllReduce of 4 Mi floats over and over (prints "looping" after the first) until
//                 one fails: prints "rank R: failed after S s: <message>" and exits 3.
//   allreduce-small  the same with 2 Ki floats (8 KiB: the plugin's direct exchange).
//   init          only infinicclCommInitFromEnv: prints "init ok" or "init failed: <status> <message>"
//                 (exit 0 / 2).
// Exit 4: the comm could not be made (the message says why).
#include "ccl_test_support.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace ccltest;

// The plugin's direct exchange serves AllReduces while each rank receives at most this many bytes,
// (n - 1) times the buffer (kDirectReceivedBytes in ccl/cpu/cpu_gloo.cpp), the chunked ring larger
// ones: counts on either side of the edge are checked.
constexpr size_t kDirectReceivedBytes = size_t{1536} << 10;

int g_rank = 0, g_n = 1;
long g_checks = 0, g_failures = 0;

// The direct exchange's largest count of `esize`-byte elements among g_n ranks.
size_t directEdge(size_t esize) {
    return kDirectReceivedBytes / static_cast<size_t>(g_n > 1 ? g_n - 1 : 1) / esize;
}

void check(bool ok, const std::string &what) {
    ++g_checks;
    if (!ok && g_failures++ < 10) std::printf("rank %d: MISMATCH %s\n", g_rank, what.c_str());
}

bool call(infiniStatus_t st, const char *what) {
    if (st == INFINI_STATUS_SUCCESS) return true;
    std::printf("rank %d: %s failed: %s: %s\n", g_rank, what, infinirtGetErrorName(st), infinirtGetLastErrorMessage());
    ++g_failures;
    return false;
}

// Bytes of `count` elements of dtype t, with rank r's test values (from element `first` on).
std::vector<char> values(int r, size_t count, infiniDtype_t t, size_t first = 0) {
    std::vector<char> b(count * elementSize(t) + 1);
    for (size_t i = 0; i < count; ++i) store(b.data(), i, t, value(r, first + i));
    return b;
}

std::string where(const char *call, infiniDtype_t t, size_t count, size_t i, double got, double want) {
    char s[256];
    std::snprintf(s, sizeof s, "%s %s count %zu: element %zu is %g, expected %g", call, dtypeName(t), count, i, got,
                  want);
    return s;
}

void allReduce(infinicclComm_t comm, infiniDtype_t t, infinicclReduceOp_t op, size_t count, bool in_place) {
    std::vector<char> send = values(g_rank, count, t), recv(send.size());
    void *out = in_place ? send.data() : recv.data();
    if (!call(infinicclAllReduce(send.data(), out, count, t, op, comm, nullptr), "AllReduce")) return;
    size_t bad = 0;
    for (size_t i = 0; i < count; ++i) {
        std::vector<double> vs;
        for (int r = 0; r < g_n; ++r) vs.push_back(value(r, i));
        const double want = combine(vs.data(), vs.size(), op, t);
        const double got = load(out, i, t);
        if (got != want && bad++ == 0) check(false, where(opName(op), t, count, i, got, want));
    }
    if (bad == 0) check(true, "");
}

void reduce(infinicclComm_t comm, infiniDtype_t t, infinicclReduceOp_t op, size_t count, int root) {
    std::vector<char> send = values(g_rank, count, t), recv(send.size());
    if (!call(infinicclReduce(send.data(), g_rank == root ? recv.data() : nullptr, count, t, op, root, comm, nullptr),
              "Reduce")) {
        return;
    }
    if (g_rank != root) return;
    size_t bad = 0;
    for (size_t i = 0; i < count; ++i) {
        std::vector<double> vs;
        for (int r = 0; r < g_n; ++r) vs.push_back(value(r, i));
        const double want = combine(vs.data(), vs.size(), op, t), got = load(recv.data(), i, t);
        if (got != want && bad++ == 0) check(false, where("Reduce", t, count, i, got, want));
    }
    if (bad == 0) check(true, "");
}

void broadcast(infinicclComm_t comm, infiniDtype_t t, size_t count, int root, bool in_place) {
    std::vector<char> send = values(g_rank, count, t), recv(send.size());
    void *out = in_place ? send.data() : recv.data();
    if (!call(infinicclBroadcast(send.data(), out, count, t, root, comm, nullptr), "Broadcast")) return;
    size_t bad = 0;
    for (size_t i = 0; i < count; ++i) {
        const double want = value(root, i), got = load(out, i, t);
        if (got != want && bad++ == 0) check(false, where("Broadcast", t, count, i, got, want));
    }
    if (bad == 0) check(true, "");
}

// AllGatherV with counts[r] = count + r (AllGather when `equal`).
void allGather(infinicclComm_t comm, infiniDtype_t t, size_t count, bool equal, bool in_place) {
    std::vector<size_t> counts, displs;
    size_t total = 0;
    for (int r = 0; r < g_n; ++r) {
        counts.push_back(equal ? count : count + static_cast<size_t>(r));
        displs.push_back(total);
        total += counts.back();
    }
    const size_t es = elementSize(t);
    std::vector<char> recv(total * es + 1);
    std::vector<char> mine = values(g_rank, counts[g_rank], t, 0);
    void *send = mine.data();
    if (in_place) {
        std::memcpy(recv.data() + displs[g_rank] * es, mine.data(), counts[g_rank] * es);
        send = recv.data() + displs[g_rank] * es;
    }
    const infiniStatus_t st = equal ? infinicclAllGather(send, recv.data(), count, t, comm, nullptr)
                                    : infinicclAllGatherV(send, recv.data(), counts.data(), g_n, t, comm, nullptr);
    if (!call(st, equal ? "AllGather" : "AllGatherV")) return;
    size_t bad = 0;
    for (int r = 0; r < g_n; ++r) {
        for (size_t i = 0; i < counts[r]; ++i) {
            const double want = value(r, i), got = load(recv.data(), displs[r] + i, t);
            if (got != want && bad++ == 0) check(false, where(equal ? "AllGather" : "AllGatherV", t, count, i, got, want));
        }
    }
    if (bad == 0) check(true, "");
}

// AllReduce of `count` elements of rank r's values from element `first` on, written into `send`
// first; the result in `out` (`send` itself: in place) checked.
void allReduceInto(infinicclComm_t comm, void *send, void *out, size_t count, infiniDtype_t t, infinicclReduceOp_t op,
                   size_t first, const char *what) {
    for (size_t i = 0; i < count; ++i) store(send, i, t, value(g_rank, first + i));
    if (!call(infinicclAllReduce(send, out, count, t, op, comm, nullptr), "AllReduce")) return;
    size_t bad = 0;
    for (size_t i = 0; i < count; ++i) {
        std::vector<double> vs;
        for (int r = 0; r < g_n; ++r) vs.push_back(value(r, first + i));
        const double want = combine(vs.data(), vs.size(), op, t), got = load(out, i, t);
        if (got != want && bad++ == 0) check(false, what + (": " + where("AllReduce", t, count, i, got, want)));
    }
    if (bad == 0) check(true, "");
}

// AllReduce on buffers that a caller keeps, moves and frees: the same buffers again and again (in
// place and out of place), a buffer at a new address with the same count, and back to the first,
// buffers freed and allocated again (often at the same address), buffers that move on odd ranks
// only, counts (and dtypes of one element size) that alternate, and more counts than a cache of
// registered buffers would hold, then the first again.
void allReduceBuffers(infinicclComm_t comm) {
    const size_t count = 40001;
    const infiniDtype_t f32 = INFINI_DTYPE_F32;
    std::vector<char> a(count * 8), b(count * 8), c(count * 8);
    char *const pa = a.data(), *const pb = b.data(), *const pc = c.data();
    for (size_t k = 0; k < 4; ++k) allReduceInto(comm, pa, pa, count, f32, INFINICCL_SUM, k, "same buffer in place");
    for (size_t k = 0; k < 4; ++k) allReduceInto(comm, pa, pb, count, f32, INFINICCL_SUM, k, "same buffers");
    allReduceInto(comm, pc, pc, count, f32, INFINICCL_SUM, 5, "a new address");
    allReduceInto(comm, pa, pa, count, f32, INFINICCL_SUM, 6, "back to the first");
    allReduceInto(comm, pb, pa, count, f32, INFINICCL_MAX, 7, "send and recv swapped");
    for (size_t k = 0; k < 4; ++k) {
        std::vector<char> fresh(count * 4);
        allReduceInto(comm, fresh.data(), fresh.data(), count, f32, INFINICCL_SUM, k, "freed and allocated again");
    }
    for (size_t k = 0; k < 6; ++k) {
        char *mine = g_rank % 2 == 1 && k % 2 == 1 ? pc : pa;
        allReduceInto(comm, mine, mine, count, f32, INFINICCL_SUM, k, "moved on odd ranks only");
    }
    for (size_t k = 0; k < 6; ++k) {
        const infiniDtype_t t = k % 3 == 0 ? INFINI_DTYPE_I32 : f32;
        const infinicclReduceOp_t op = k % 2 == 0 ? INFINICCL_SUM : INFINICCL_MIN;
        allReduceInto(comm, pa, k % 4 < 2 ? pa : pb, k % 2 == 0 ? count : 1023, t, op, k, "alternating counts");
    }
    for (size_t k = 0; k < 4; ++k) {
        const infiniDtype_t t = k % 2 == 0 ? INFINI_DTYPE_I64 : INFINI_DTYPE_F16;
        allReduceInto(comm, pc, pc, count, t, INFINICCL_AVG, k, "alternating element sizes");
    }
    for (size_t k = 0; k < 12; ++k) {
        // Direct exchanges and chunked rings in turn: one cache holds both.
        const size_t many = (k % 2 == 0 ? 1000 : count) + 517 * k;
        allReduceInto(comm, pa, pb, many, f32, INFINICCL_SUM, k, "many counts");
    }
    allReduceInto(comm, pa, pb, 1000, f32, INFINICCL_PROD, 3, "the first count again");
    allReduceInto(comm, pb, pb, count, f32, INFINICCL_SUM, 1, "the first buffer's count again");
}

// Small AllReduces (the direct exchange), back to back: the values change with every call, so that
// an input read from another call's inbox gives a wrong result; calls of two small counts, and now
// and then a large one, interleaved, so that each cached entry counts its calls on its own; the
// buffers alternate, in place and out of place; and before some calls one rank (in turn) comes
// late, so that the others' messages reach it before it waits for them.
void allReduceSmall(infinicclComm_t comm) {
    const size_t large = 40001;
    std::vector<char> a(large * 4), b(large * 4), c(large * 4);
    char *const bufs[3] = {a.data(), b.data(), c.data()};
    for (size_t k = 0; k < 240; ++k) {
        char *send = bufs[k % 3];
        char *out = k % 4 == 0 ? send : bufs[(k + 1) % 3];
        if (k % 3 == 0 && static_cast<int>(k / 3 % static_cast<size_t>(g_n)) == g_rank) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        const size_t count = k % 5 == 4 ? 333 : 1000;
        allReduceInto(comm, send, out, count, INFINI_DTYPE_F32, INFINICCL_SUM, k, "back-to-back small calls");
        if (k % 16 == 15) allReduceInto(comm, send, out, large, INFINI_DTYPE_F32, INFINICCL_SUM, k, "a large call");
    }
}

// Rank-seeded random values of magnitude 1/4 to 8, either sign: their sums and products round.
void randomValues(void *buf, size_t count, infiniDtype_t t, uint32_t seed) {
    std::mt19937 rng(seed);
    for (size_t i = 0; i < count; ++i) {
        const uint32_t bits = rng(), sign = bits >> 31, exp = (bits >> 24) % 6;
        char *p = static_cast<char *>(buf) + i * elementSize(t);
        if (t == INFINI_DTYPE_F32) {
            const uint32_t v = sign << 31 | (125 + exp) << 23 | (bits & 0x7fffffu);
            std::memcpy(p, &v, 4);
        } else if (t == INFINI_DTYPE_F16) { // exponent bias 15, 10 mantissa bits
            const uint16_t v = static_cast<uint16_t>(sign << 15 | (13 + exp) << 10 | (bits & 0x3ffu));
            std::memcpy(p, &v, 2);
        } else { // BF16: exponent bias 127, 7 mantissa bits
            const uint16_t v = static_cast<uint16_t>(sign << 15 | (125 + exp) << 7 | (bits & 0x7fu));
            std::memcpy(p, &v, 2);
        }
    }
}

// AllReduce of values whose sums and products round, then every rank's result gathered: every rank
// must hold the same bits, both on the direct exchange (each rank reduces the inputs in rank order)
// and on the chunked ring (each reduced chunk is passed on as it is).
void allReduceSameBits(infinicclComm_t comm) {
    for (infiniDtype_t t : {INFINI_DTYPE_F32, INFINI_DTYPE_F16, INFINI_DTYPE_BF16}) {
        for (infinicclReduceOp_t op : {INFINICCL_SUM, INFINICCL_PROD, INFINICCL_AVG}) {
            const size_t edge = directEdge(elementSize(t));
            for (size_t count : {size_t{1023}, edge, edge + 1}) {
                const size_t bytes = count * elementSize(t);
                std::vector<char> mine(bytes), all(bytes * static_cast<size_t>(g_n));
                randomValues(mine.data(), count, t, static_cast<uint32_t>(g_rank * 7919 + count));
                if (!call(infinicclAllReduce(mine.data(), mine.data(), count, t, op, comm, nullptr), "AllReduce") ||
                    !call(infinicclAllGather(mine.data(), all.data(), count, t, comm, nullptr), "AllGather")) {
                    return;
                }
                for (int r = 0; r < g_n; ++r) {
                    const bool same = std::memcmp(all.data() + static_cast<size_t>(r) * bytes, mine.data(), bytes) == 0;
                    char what[160];
                    std::snprintf(what, sizeof what, "AllReduce %s %s count %zu: rank %d's result differs from ours",
                                  opName(op), dtypeName(t), count, r);
                    check(same, what);
                }
            }
        }
    }
}

// ReduceScatterV with counts[r] = count + 2r (ReduceScatter when `equal`).
void reduceScatter(infinicclComm_t comm, infiniDtype_t t, infinicclReduceOp_t op, size_t count, bool equal,
                   bool in_place) {
    std::vector<size_t> counts, displs;
    size_t total = 0;
    for (int r = 0; r < g_n; ++r) {
        counts.push_back(equal ? count : count + 2 * static_cast<size_t>(r));
        displs.push_back(total);
        total += counts.back();
    }
    const size_t es = elementSize(t);
    std::vector<char> send = values(g_rank, total, t), recv(counts[g_rank] * es + 1);
    void *out = in_place ? send.data() + displs[g_rank] * es : recv.data();
    const infiniStatus_t st = equal ? infinicclReduceScatter(send.data(), out, count, t, op, comm, nullptr)
                                    : infinicclReduceScatterV(send.data(), out, counts.data(), g_n, t, op, comm, nullptr);
    if (!call(st, equal ? "ReduceScatter" : "ReduceScatterV")) return;
    size_t bad = 0;
    for (size_t i = 0; i < counts[g_rank]; ++i) {
        std::vector<double> vs;
        for (int r = 0; r < g_n; ++r) vs.push_back(value(r, displs[g_rank] + i));
        const double want = combine(vs.data(), vs.size(), op, t), got = load(out, i, t);
        if (got != want && bad++ == 0) check(false, where("ReduceScatter", t, count, i, got, want));
    }
    if (bad == 0) check(true, "");
}

// Every rank sends to the next and receives from the previous, in one group; then rank 0 sends two
// messages to the last rank outside a group (they arrive in order).
void sendRecv(infinicclComm_t comm, infiniDtype_t t, size_t count) {
    const int next = (g_rank + 1) % g_n, prev = (g_rank + g_n - 1) % g_n;
    std::vector<char> send = values(g_rank, count, t), recv(send.size());
    bool ok = call(infinicclGroupStart(comm), "GroupStart") &&
              call(infinicclSend(send.data(), count, t, next, comm, nullptr), "Send") &&
              call(infinicclRecv(recv.data(), count, t, prev, comm, nullptr), "Recv") &&
              call(infinicclGroupEnd(comm), "GroupEnd");
    if (!ok) return;
    size_t bad = 0;
    for (size_t i = 0; i < count; ++i) {
        const double want = value(prev, i), got = load(recv.data(), i, t);
        if (got != want && bad++ == 0) check(false, where("Send/Recv", t, count, i, got, want));
    }
    if (bad == 0) check(true, "");
    const int last = g_n - 1;
    if (g_rank == 0) {
        std::vector<char> a = values(10, count, t), b = values(11, count, t);
        call(infinicclSend(a.data(), count, t, last, comm, nullptr), "Send") &&
            call(infinicclSend(b.data(), count, t, last, comm, nullptr), "Send");
    } else if (g_rank == last) {
        std::vector<char> a(send.size()), b(send.size());
        if (call(infinicclRecv(a.data(), count, t, 0, comm, nullptr), "Recv") &&
            call(infinicclRecv(b.data(), count, t, 0, comm, nullptr), "Recv")) {
            bool same = true;
            for (size_t i = 0; i < count; ++i) {
                same = same && load(a.data(), i, t) == value(10, i) && load(b.data(), i, t) == value(11, i);
            }
            check(same, "two Sends from rank 0 arrived out of order or wrong");
        }
    }
}

int collectives(infinicclComm_t comm) {
    const infiniDtype_t dtypes[] = {INFINI_DTYPE_F32, INFINI_DTYPE_F16, INFINI_DTYPE_BF16, INFINI_DTYPE_I32,
                                    INFINI_DTYPE_I64};
    const infinicclReduceOp_t ops[] = {INFINICCL_SUM, INFINICCL_PROD, INFINICCL_MAX, INFINICCL_MIN, INFINICCL_AVG};
    const size_t sizes[] = {1, 1023, 40001};
    for (infiniDtype_t t : dtypes) {
        // The direct exchange's largest count, and one more (the chunked ring).
        const size_t edge = directEdge(elementSize(t));
        for (infinicclReduceOp_t op : ops) {
            for (size_t count : {sizes[0], sizes[1], sizes[2], edge, edge + 1}) {
                allReduce(comm, t, op, count, false);
                allReduce(comm, t, op, count, true);
            }
            reduce(comm, t, op, 1023, g_n - 1);
            reduceScatter(comm, t, op, 1001, true, false);
            reduceScatter(comm, t, op, 1001, true, true);
            reduceScatter(comm, t, op, 999, false, false);
        }
        for (size_t count : sizes) {
            broadcast(comm, t, count, 1 % g_n, false);
            broadcast(comm, t, count, 0, true);
            allGather(comm, t, count, true, false);
            allGather(comm, t, count, true, true);
            allGather(comm, t, count, false, false);
            sendRecv(comm, t, count);
        }
    }
    // Large AllReduces: chunks of several MiB; and over 16 MiB (with two ranks Gloo's own ring).
    allReduce(comm, INFINI_DTYPE_F32, INFINICCL_SUM, size_t{3} << 20, false);
    allReduce(comm, INFINI_DTYPE_F32, INFINICCL_SUM, (size_t{5} << 20) + 3, false);
    allReduce(comm, INFINI_DTYPE_F32, INFINICCL_SUM, 0, false); // a no-op
    allReduceBuffers(comm);
    allReduceSmall(comm);
    allReduceSameBits(comm);
    if (g_failures != 0) {
        std::printf("rank %d of %d: %ld of %ld checks FAILED\n", g_rank, g_n, g_failures, g_checks);
        return 1;
    }
    std::printf("rank %d of %d: %ld checks passed\n", g_rank, g_n, g_checks);
    return 0;
}

int allReduceLoop(infinicclComm_t comm, size_t count) {
    std::vector<float> a(count, 1.0f), b(count);
    const auto start = std::chrono::steady_clock::now();
    for (long it = 0;; ++it) {
        const infiniStatus_t st = infinicclAllReduce(a.data(), b.data(), count, INFINI_DTYPE_F32, INFINICCL_SUM, comm,
                                                     nullptr);
        if (st != INFINI_STATUS_SUCCESS) {
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::printf("rank %d: failed after %.2f s (%ld AllReduce calls): %s: %s\n", g_rank, s, it,
                        infinirtGetErrorName(st), infinirtGetLastErrorMessage());
            std::fflush(stdout);
            // A second call on the comm fails at once: it was given up.
            const infiniStatus_t again = infinicclAllReduce(a.data(), b.data(), 1, INFINI_DTYPE_F32, INFINICCL_SUM,
                                                            comm, nullptr);
            std::printf("rank %d: the next call: %s\n", g_rank, infinirtGetErrorName(again));
            return 3;
        }
        if (it == 0) {
            std::printf("rank %d: looping\n", g_rank);
            std::fflush(stdout);
        }
    }
}

} // namespace

int main(int argc, char **argv) {
    const std::string mode = argc > 1 ? argv[1] : "collectives";
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    infinicclComm_t comm = nullptr;
    const infiniStatus_t st = infinicclCommInitFromEnv(&comm, INFINI_DEVICE_CPU);
    if (mode == "init") {
        if (st != INFINI_STATUS_SUCCESS) {
            std::printf("init failed: %s %s\n", infinirtGetErrorName(st), infinirtGetLastErrorMessage());
            return 2;
        }
        std::printf("init ok\n");
        infinicclCommDestroy(comm);
        return 0;
    }
    if (st != INFINI_STATUS_SUCCESS) {
        std::printf("init failed: %s %s\n", infinirtGetErrorName(st), infinirtGetLastErrorMessage());
        return 4;
    }
    infinicclCommGetRank(comm, &g_rank);
    infinicclCommGetSize(comm, &g_n);
    const int rc = mode == "allreduce"         ? allReduceLoop(comm, size_t{4} << 20)
                   : mode == "allreduce-small" ? allReduceLoop(comm, 2048)
                                               : collectives(comm);
    if (rc == 0) infinicclCommDestroy(comm);
    return rc;
}
