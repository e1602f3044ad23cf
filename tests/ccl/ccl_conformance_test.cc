// The infiniccl contract on every backend with two or more devices (cpu: INFINIRT_CPU_DEVICE_COUNT;
// nvidia through NCCL on a multi-GPU machine): every collective x dtype x op x size, in place and
// out of place, with the ranks driven by one thread each (out of place) and by one thread inside
// GroupStart/GroupEnd (in place); CommInitRank from threads; 64 MiB for a subset.
#include "ccl_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <thread>

using namespace ccltest;

namespace {

constexpr int kRanks = 2;

struct Rank {
    infinicclComm_t comm = nullptr;
    infinirtStream_t stream = nullptr;
    void *send = nullptr;
    void *recv = nullptr;
};

enum class Coll { AllReduce, Reduce, Broadcast, AllGather, AllGatherV, ReduceScatter, ReduceScatterV, SendRecv };

const char *collName(Coll c) {
    static const char *const names[] = {"AllReduce",     "Reduce",         "Broadcast", "AllGather", "AllGatherV",
                                        "ReduceScatter", "ReduceScatterV", "SendRecv"};
    return names[static_cast<int>(c)];
}

bool reduces(Coll c) { return c == Coll::AllReduce || c == Coll::Reduce || c == Coll::ReduceScatter || c == Coll::ReduceScatterV; }

struct Case {
    Coll coll;
    infiniDtype_t dtype;
    infinicclReduceOp_t op;
    size_t count; // per-rank unit: elements of the reduced vector, of each rank's block or message
    bool in_place;
};

// Per-rank element counts of the V variants: rank r has count + r elements.
std::vector<size_t> vCounts(size_t count, int n) {
    std::vector<size_t> v;
    for (int r = 0; r < n; ++r) v.push_back(count + static_cast<size_t>(r));
    return v;
}

class Ccl : public ::testing::TestWithParam<infiniDevice_t> {
protected:
    infiniDevice_t type() const { return GetParam(); }

    void setDevice(int r) { ASSERT_EQ(infinirtSetDevice(type(), r), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage(); }

    // Rank r's send and recv sizes in elements, its input and its expected output.
    void plan(const Case &k, int r, size_t *send_n, size_t *recv_n, std::vector<double> *in, std::vector<double> *want) {
        const int n = kRanks;
        const std::vector<size_t> vc = vCounts(k.count, n);
        size_t total_v = 0, displ_r = 0;
        for (int q = 0; q < n; ++q) {
            if (q < r) displ_r += vc[q];
            total_v += vc[q];
        }
        auto reduced = [&](size_t i) {
            double vs[kRanks];
            for (int q = 0; q < n; ++q) vs[q] = value(q, i);
            return combine(vs, static_cast<size_t>(n), k.op, k.dtype);
        };
        in->clear();
        want->clear();
        switch (k.coll) {
        case Coll::AllReduce:
        case Coll::Reduce:
            *send_n = *recv_n = k.count;
            for (size_t i = 0; i < k.count; ++i) in->push_back(value(r, i));
            for (size_t i = 0; i < k.count; ++i) want->push_back(k.coll == Coll::Reduce && r != 0 ? NAN : reduced(i));
            break;
        case Coll::Broadcast:
            *send_n = *recv_n = k.count;
            for (size_t i = 0; i < k.count; ++i) in->push_back(value(r, i));
            for (size_t i = 0; i < k.count; ++i) want->push_back(value(1, i)); // root 1
            break;
        case Coll::AllGather:
            *send_n = k.count;
            *recv_n = k.count * n;
            for (size_t i = 0; i < k.count; ++i) in->push_back(value(r, i));
            for (int q = 0; q < n; ++q)
                for (size_t i = 0; i < k.count; ++i) want->push_back(value(q, i));
            break;
        case Coll::AllGatherV:
            *send_n = vc[r];
            *recv_n = total_v;
            for (size_t i = 0; i < vc[r]; ++i) in->push_back(value(r, displ_r + i));
            for (int q = 0, d = 0; q < n; d += static_cast<int>(vc[q]), ++q)
                for (size_t i = 0; i < vc[q]; ++i) want->push_back(value(q, static_cast<size_t>(d) + i));
            break;
        case Coll::ReduceScatter:
            *send_n = k.count * n;
            *recv_n = k.count;
            for (size_t i = 0; i < k.count * n; ++i) in->push_back(value(r, i));
            for (size_t i = 0; i < k.count; ++i) want->push_back(reduced(static_cast<size_t>(r) * k.count + i));
            break;
        case Coll::ReduceScatterV:
            *send_n = total_v;
            *recv_n = vc[r];
            for (size_t i = 0; i < total_v; ++i) in->push_back(value(r, i));
            for (size_t i = 0; i < vc[r]; ++i) want->push_back(reduced(displ_r + i));
            break;
        case Coll::SendRecv: // rank r sends to r+1 and receives from r-1 (a ring), in one group
            *send_n = *recv_n = k.count;
            for (size_t i = 0; i < k.count; ++i) in->push_back(value(r, i));
            for (size_t i = 0; i < k.count; ++i) want->push_back(value((r + n - 1) % n, i));
            break;
        }
    }

    // In place: one buffer; send at the rank's block for AllGather, recv at it for ReduceScatter.
    void *sendPtr(const Case &k, const Rank &rk, int r) {
        if (!k.in_place) return rk.send;
        const size_t es = elementSize(k.dtype);
        if (k.coll == Coll::AllGather) return static_cast<char *>(rk.recv) + static_cast<size_t>(r) * k.count * es;
        return rk.recv;
    }
    void *recvPtr(const Case &k, const Rank &rk, int r) {
        if (!k.in_place) return rk.recv;
        const size_t es = elementSize(k.dtype);
        if (k.coll == Coll::ReduceScatter) return static_cast<char *>(rk.send) + static_cast<size_t>(r) * k.count * es;
        return rk.send;
    }

    infiniStatus_t call(const Case &k, Rank &rk, int r) {
        const std::vector<size_t> vc = vCounts(k.count, kRanks);
        void *s = sendPtr(k, rk, r);
        void *d = recvPtr(k, rk, r);
        switch (k.coll) {
        case Coll::AllReduce: return infinicclAllReduce(s, d, k.count, k.dtype, k.op, rk.comm, rk.stream);
        case Coll::Reduce: return infinicclReduce(s, d, k.count, k.dtype, k.op, 0, rk.comm, rk.stream);
        case Coll::Broadcast: return infinicclBroadcast(s, d, k.count, k.dtype, 1, rk.comm, rk.stream);
        case Coll::AllGather: return infinicclAllGather(s, d, k.count, k.dtype, rk.comm, rk.stream);
        case Coll::AllGatherV: return infinicclAllGatherV(s, d, vc.data(), kRanks, k.dtype, rk.comm, rk.stream);
        case Coll::ReduceScatter: return infinicclReduceScatter(s, d, k.count, k.dtype, k.op, rk.comm, rk.stream);
        case Coll::ReduceScatterV:
            return infinicclReduceScatterV(s, d, vc.data(), kRanks, k.dtype, k.op, rk.comm, rk.stream);
        case Coll::SendRecv: {
            infiniStatus_t st = infinicclGroupStart(rk.comm);
            if (st == INFINI_STATUS_SUCCESS) st = infinicclSend(s, k.count, k.dtype, (r + 1) % kRanks, rk.comm, rk.stream);
            if (st == INFINI_STATUS_SUCCESS)
                st = infinicclRecv(d, k.count, k.dtype, (r + kRanks - 1) % kRanks, rk.comm, rk.stream);
            const infiniStatus_t end = infinicclGroupEnd(rk.comm);
            return st != INFINI_STATUS_SUCCESS ? st : end;
        }
        }
        return INFINI_STATUS_INTERNAL_ERROR;
    }

    // Runs one case on `comms` (one per rank, rank r on device r) and checks every rank's output.
    void runCase(const Case &k, infinicclComm_t *comms, bool grouped) {
        SCOPED_TRACE(std::string(collName(k.coll)) + " " + dtypeName(k.dtype) + " " + opName(k.op) + " count " +
                     std::to_string(k.count) + (k.in_place ? " in place" : " out of place") +
                     (grouped ? " (one thread, grouped)" : " (a thread per rank)"));
        const size_t es = elementSize(k.dtype);
        Rank ranks[kRanks];
        std::vector<double> want[kRanks];
        size_t recv_n[kRanks];
        for (int r = 0; r < kRanks; ++r) {
            setDevice(r);
            ranks[r].comm = comms[r];
            ASSERT_EQ(infinirtStreamCreate(&ranks[r].stream), INFINI_STATUS_SUCCESS);
            size_t send_n = 0;
            std::vector<double> in;
            plan(k, r, &send_n, &recv_n[r], &in, &want[r]);
            // In place: one buffer big enough for both views, holding the input at the send view.
            const size_t bytes_s = std::max<size_t>(send_n, 1) * es, bytes_r = std::max<size_t>(recv_n[r], 1) * es;
            const size_t one = std::max(bytes_s, bytes_r);
            ASSERT_EQ(infinirtMalloc(&ranks[r].send, k.in_place ? one : bytes_s), INFINI_STATUS_SUCCESS);
            ASSERT_EQ(infinirtMalloc(&ranks[r].recv, k.in_place ? one : bytes_r), INFINI_STATUS_SUCCESS);
            std::vector<char> host(one, 0);
            ASSERT_EQ(infinirtMemcpy(ranks[r].recv, host.data(), k.in_place ? one : bytes_r, INFINIRT_MEMCPY_H2D),
                      INFINI_STATUS_SUCCESS);
            for (size_t i = 0; i < in.size(); ++i) store(host.data(), i, k.dtype, in[i]);
            ASSERT_EQ(infinirtMemcpy(sendPtr(k, ranks[r], r), host.data(), in.size() * es, INFINIRT_MEMCPY_H2D),
                      INFINI_STATUS_SUCCESS);
        }
        infiniStatus_t status[kRanks];
        std::string message[kRanks];
        if (grouped) {
            ASSERT_EQ(infinicclGroupStart(comms[0]), INFINI_STATUS_SUCCESS);
            for (int r = 0; r < kRanks; ++r) status[r] = call(k, ranks[r], r), message[r] = infinirtGetLastErrorMessage();
            const infiniStatus_t end = infinicclGroupEnd(comms[0]);
            ASSERT_EQ(end, INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
        } else {
            std::vector<std::thread> threads;
            for (int r = 0; r < kRanks; ++r) {
                threads.emplace_back([&, r] {
                    infinirtSetDevice(type(), r);
                    status[r] = call(k, ranks[r], r);
                    message[r] = infinirtGetLastErrorMessage();
                });
            }
            for (std::thread &t : threads) t.join();
        }
        for (int r = 0; r < kRanks; ++r) {
            ASSERT_EQ(status[r], INFINI_STATUS_SUCCESS) << "rank " << r << ": " << message[r];
            ASSERT_EQ(infinirtStreamSynchronize(ranks[r].stream), INFINI_STATUS_SUCCESS);
            std::vector<char> host(recv_n[r] * es + 1);
            ASSERT_EQ(infinirtMemcpy(host.data(), recvPtr(k, ranks[r], r), recv_n[r] * es, INFINIRT_MEMCPY_D2H),
                      INFINI_STATUS_SUCCESS);
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < want[r].size(); ++i) {
                if (std::isnan(want[r][i])) continue; // not defined on this rank
                if (load(host.data(), i, k.dtype) != want[r][i] && bad++ == 0) first = i;
            }
            EXPECT_EQ(bad, 0u) << "rank " << r << ": first wrong element " << first << " is "
                               << load(host.data(), first, k.dtype) << ", expected " << want[r][first];
            setDevice(r);
            EXPECT_EQ(infinirtFree(ranks[r].send), INFINI_STATUS_SUCCESS);
            EXPECT_EQ(infinirtFree(ranks[r].recv), INFINI_STATUS_SUCCESS);
            EXPECT_EQ(infinirtStreamDestroy(ranks[r].stream), INFINI_STATUS_SUCCESS);
        }
    }

    void initAll(infinicclComm_t *comms) {
        ASSERT_EQ(infinicclCommInitAll(type(), comms, kRanks, nullptr), INFINI_STATUS_SUCCESS)
            << infinirtGetLastErrorMessage();
    }
    void destroyAll(infinicclComm_t *comms) {
        for (int r = 0; r < kRanks; ++r) EXPECT_EQ(infinicclCommDestroy(comms[r]), INFINI_STATUS_SUCCESS);
    }
};

const infiniDtype_t kDtypes[] = {INFINI_DTYPE_F32, INFINI_DTYPE_F16, INFINI_DTYPE_BF16, INFINI_DTYPE_I32, INFINI_DTYPE_I64};
const infinicclReduceOp_t kOps[] = {INFINICCL_SUM, INFINICCL_PROD, INFINICCL_MAX, INFINICCL_MIN, INFINICCL_AVG};
// One element, an odd count, and an odd count spanning several of the cpu backend's 1 MiB chunks.
const size_t kSizes[] = {1, 1023, 300001};

void forEachCase(Coll coll, const std::function<void(const Case &)> &fn) {
    for (infiniDtype_t dt : kDtypes) {
        for (size_t count : kSizes) {
            for (infinicclReduceOp_t op : kOps) {
                if (!reduces(coll) && op != INFINICCL_SUM) continue;
                // The largest size with every dtype but only SUM and AVG: the ops differ per element, not per chunk.
                if (count == kSizes[2] && op != INFINICCL_SUM && op != INFINICCL_AVG) continue;
                for (bool in_place : {false, true}) {
                    // No in-place form: Send/Recv, and the V variants (NCCL has no V, so no convention).
                    if (in_place && (coll == Coll::SendRecv || coll == Coll::AllGatherV || coll == Coll::ReduceScatterV)) continue;
                    fn(Case{coll, dt, op, count, in_place});
                }
            }
        }
    }
}

TEST_P(Ccl, EveryCollectiveDtypeOpAndSize) {
    infinicclComm_t comms[kRanks];
    initAll(comms);
    for (Coll coll : {Coll::AllReduce, Coll::Reduce, Coll::Broadcast, Coll::AllGather, Coll::AllGatherV,
                      Coll::ReduceScatter, Coll::ReduceScatterV, Coll::SendRecv}) {
        forEachCase(coll, [&](const Case &k) {
            // Out of place from a thread per rank, in place from one thread in a group.
            runCase(k, comms, k.in_place);
        });
        if (HasFatalFailure()) break;
    }
    destroyAll(comms);
}

TEST_P(Ccl, SixtyFourMiB) {
    infinicclComm_t comms[kRanks];
    initAll(comms);
    const size_t count = (size_t{64} << 20) / 4;
    runCase(Case{Coll::AllReduce, INFINI_DTYPE_F32, INFINICCL_SUM, count, false}, comms, false);
    // More of them where time allows (scripts/gpu-verify.sh sets INFINICCL_TEST_LARGE=1).
    if (std::getenv("INFINICCL_TEST_LARGE") != nullptr) {
        runCase(Case{Coll::AllReduce, INFINI_DTYPE_BF16, INFINICCL_AVG, count * 2, true}, comms, true);
        runCase(Case{Coll::AllGather, INFINI_DTYPE_I32, INFINICCL_SUM, count / 2, false}, comms, false);
        runCase(Case{Coll::ReduceScatter, INFINI_DTYPE_F16, INFINICCL_MAX, count, true}, comms, true);
    }
    destroyAll(comms);
}

TEST_P(Ccl, CommInitRankFromThreads) {
    setDevice(0);
    infinicclUniqueId_t id;
    ASSERT_EQ(infinicclGetUniqueId(&id), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    infinicclComm_t comms[kRanks] = {};
    infiniStatus_t st[kRanks];
    std::vector<std::thread> threads;
    for (int r = 0; r < kRanks; ++r) {
        threads.emplace_back([&, r] {
            infinirtSetDevice(type(), r);
            st[r] = infinicclCommInitRank(&comms[r], kRanks, id, r);
        });
    }
    for (std::thread &t : threads) t.join();
    for (int r = 0; r < kRanks; ++r) {
        ASSERT_EQ(st[r], INFINI_STATUS_SUCCESS) << "rank " << r;
        int rank = -1, size = -1, dev = -1;
        infiniDevice_t dt{};
        EXPECT_EQ(infinicclCommGetRank(comms[r], &rank), INFINI_STATUS_SUCCESS);
        EXPECT_EQ(infinicclCommGetSize(comms[r], &size), INFINI_STATUS_SUCCESS);
        EXPECT_EQ(infinicclCommGetDevice(comms[r], &dt, &dev), INFINI_STATUS_SUCCESS);
        EXPECT_EQ(rank, r);
        EXPECT_EQ(size, kRanks);
        EXPECT_EQ(dt, type());
        EXPECT_EQ(dev, r);
    }
    for (Coll coll : {Coll::AllReduce, Coll::AllGather, Coll::ReduceScatter, Coll::SendRecv}) {
        runCase(Case{coll, INFINI_DTYPE_F32, INFINICCL_SUM, 1023, false}, comms, false);
        runCase(Case{coll, INFINI_DTYPE_BF16, INFINICCL_SUM, 7, false}, comms, true);
    }
    destroyAll(comms);
}

std::vector<infiniDevice_t> backends() {
    std::vector<infiniDevice_t> b = backendsUnderTest();
    return b;
}

std::string paramName(const ::testing::TestParamInfo<infiniDevice_t> &info) { return typeName(info.param); }

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Ccl);
INSTANTIATE_TEST_SUITE_P(Backends, Ccl, ::testing::ValuesIn(backends()), paramName);

// A run must not pass by finding nothing to test: INFINICCL_EXPECT_BACKENDS=cpu,nvidia names the
// device types that must be under test.
TEST(CclBackends, ExpectedOnesAreUnderTest) {
    const char *expect = std::getenv("INFINICCL_EXPECT_BACKENDS");
    if (expect == nullptr) GTEST_SKIP() << "INFINICCL_EXPECT_BACKENDS not set";
    const std::vector<infiniDevice_t> found = backends();
    for (infiniDevice_t t : {INFINI_DEVICE_CPU, INFINI_DEVICE_NVIDIA}) {
        if (std::string(",") .append(expect).append(",").find(std::string(",") + typeName(t) + ",") == std::string::npos) continue;
        EXPECT_NE(std::find(found.begin(), found.end(), t), found.end())
            << typeName(t) << " is expected but has fewer than 2 devices or no usable infiniccl plugin";
    }
}

} // namespace
