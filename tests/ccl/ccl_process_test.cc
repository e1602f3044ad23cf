// CommInitRank across processes of one host: the test writes a unique id into the environment and
// starts this program once per rank (a fresh exec: a forked child of an initialised infinirt
// cannot use it), running only CclProcessChild.Rank, which joins and checks collectives.
#include "ccl_test_support.h"

#include <gtest/gtest.h>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

extern char **environ;

using namespace ccltest;

namespace {

std::string toHex(const infinicclUniqueId_t &id) {
    std::string s;
    char b[3];
    for (unsigned char c : id.internal) std::snprintf(b, sizeof b, "%02x", c), s += b;
    return s;
}

bool fromHex(const char *hex, infinicclUniqueId_t *id) {
    if (std::strlen(hex) != 2 * INFINICCL_UNIQUE_ID_BYTES) return false;
    for (int i = 0; i < INFINICCL_UNIQUE_ID_BYTES; ++i) {
        unsigned v = 0;
        if (std::sscanf(hex + 2 * i, "%2x", &v) != 1) return false;
        id->internal[i] = static_cast<char>(v);
    }
    return true;
}

// Runs in each child: rank INFINICCL_TEST_RANK of INFINICCL_TEST_NRANKS on device type
// INFINICCL_TEST_TYPE.
TEST(CclProcessChild, Rank) {
    const char *hex = std::getenv("INFINICCL_TEST_ID");
    if (hex == nullptr) GTEST_SKIP() << "runs only as a child of CclProcesses";
    const int rank = std::atoi(std::getenv("INFINICCL_TEST_RANK"));
    const int n = std::atoi(std::getenv("INFINICCL_TEST_NRANKS"));
    const auto type = static_cast<infiniDevice_t>(std::atoi(std::getenv("INFINICCL_TEST_TYPE")));
    infinicclUniqueId_t id;
    ASSERT_TRUE(fromHex(hex, &id));
    int count = 0;
    ASSERT_EQ(infinirtGetDeviceCount(type, &count), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtSetDevice(type, rank % count), INFINI_STATUS_SUCCESS);
    infinicclComm_t comm = nullptr;
    ASSERT_EQ(infinicclCommInitRank(&comm, n, id, rank), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    infinirtStream_t stream = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&stream), INFINI_STATUS_SUCCESS);

    for (infiniDtype_t dt : {INFINI_DTYPE_F32, INFINI_DTYPE_BF16, INFINI_DTYPE_I64}) {
        SCOPED_TRACE(dtypeName(dt));
        const size_t count_e = 300001, es = elementSize(dt);
        std::vector<char> host(count_e * es * static_cast<size_t>(n));
        void *a = nullptr, *b = nullptr;
        ASSERT_EQ(infinirtMalloc(&a, host.size()), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtMalloc(&b, host.size()), INFINI_STATUS_SUCCESS);
        // AllReduce SUM.
        for (size_t i = 0; i < count_e; ++i) store(host.data(), i, dt, value(rank, i));
        ASSERT_EQ(infinirtMemcpy(a, host.data(), count_e * es, INFINIRT_MEMCPY_H2D), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinicclAllReduce(a, b, count_e, dt, INFINICCL_SUM, comm, stream), INFINI_STATUS_SUCCESS)
            << infinirtGetLastErrorMessage();
        ASSERT_EQ(infinirtStreamSynchronize(stream), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtMemcpy(host.data(), b, count_e * es, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
        size_t bad = 0;
        for (size_t i = 0; i < count_e; ++i) {
            double vs[64] = {};
            for (int q = 0; q < n; ++q) vs[q] = value(q, i);
            bad += load(host.data(), i, dt) != combine(vs, static_cast<size_t>(n), INFINICCL_SUM, dt);
        }
        EXPECT_EQ(bad, 0u) << "AllReduce";
        // AllGather.
        for (size_t i = 0; i < count_e; ++i) store(host.data(), i, dt, value(rank, i));
        ASSERT_EQ(infinirtMemcpy(a, host.data(), count_e * es, INFINIRT_MEMCPY_H2D), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinicclAllGather(a, b, count_e, dt, comm, stream), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtStreamSynchronize(stream), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtMemcpy(host.data(), b, host.size(), INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
        bad = 0;
        for (int q = 0; q < n; ++q)
            for (size_t i = 0; i < count_e; ++i) bad += load(host.data(), q * count_e + i, dt) != value(q, i);
        EXPECT_EQ(bad, 0u) << "AllGather";
        // A ring of Send/Recv in one group.
        for (size_t i = 0; i < count_e; ++i) store(host.data(), i, dt, value(rank, i));
        ASSERT_EQ(infinirtMemcpy(a, host.data(), count_e * es, INFINIRT_MEMCPY_H2D), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinicclGroupStart(comm), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinicclSend(a, count_e, dt, (rank + 1) % n, comm, stream), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinicclRecv(b, count_e, dt, (rank + n - 1) % n, comm, stream), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinicclGroupEnd(comm), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
        ASSERT_EQ(infinirtStreamSynchronize(stream), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtMemcpy(host.data(), b, count_e * es, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
        bad = 0;
        for (size_t i = 0; i < count_e; ++i) bad += load(host.data(), i, dt) != value((rank + n - 1) % n, i);
        EXPECT_EQ(bad, 0u) << "Send/Recv ring";
        EXPECT_EQ(infinirtFree(a), INFINI_STATUS_SUCCESS);
        EXPECT_EQ(infinirtFree(b), INFINI_STATUS_SUCCESS);
    }
    EXPECT_EQ(infinirtStreamDestroy(stream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinicclCommDestroy(comm), INFINI_STATUS_SUCCESS);
}

TEST(CclProcesses, CommInitRankAcrossProcesses) {
    if (std::getenv("INFINICCL_TEST_ID") != nullptr) GTEST_SKIP() << "a child";
    const std::vector<infiniDevice_t> types = backendsUnderTest();
    if (types.empty()) GTEST_SKIP() << "no device type with >= 2 devices and a usable infiniccl plugin";
    for (infiniDevice_t type : types) {
        SCOPED_TRACE(typeName(type));
        int count = 0;
        ASSERT_EQ(infinirtGetDeviceCount(type, &count), INFINI_STATUS_SUCCESS);
        const int n = std::min(count, 3);
        ASSERT_EQ(infinirtSetDevice(type, 0), INFINI_STATUS_SUCCESS);
        infinicclUniqueId_t id;
        ASSERT_EQ(infinicclGetUniqueId(&id), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
        std::vector<pid_t> pids;
        for (int r = 0; r < n; ++r) {
            std::vector<std::string> env_s;
            for (char **e = environ; *e != nullptr; ++e) env_s.emplace_back(*e);
            env_s.push_back("INFINICCL_TEST_ID=" + toHex(id));
            env_s.push_back("INFINICCL_TEST_RANK=" + std::to_string(r));
            env_s.push_back("INFINICCL_TEST_NRANKS=" + std::to_string(n));
            env_s.push_back("INFINICCL_TEST_TYPE=" + std::to_string(static_cast<int>(type)));
            std::vector<char *> envp;
            for (std::string &s : env_s) envp.push_back(s.data());
            envp.push_back(nullptr);
            char exe[] = "/proc/self/exe";
            char filter[] = "--gtest_filter=CclProcessChild.Rank";
            char *argv[] = {exe, filter, nullptr};
            pid_t pid = 0;
            ASSERT_EQ(posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv, envp.data()), 0);
            pids.push_back(pid);
        }
        for (int r = 0; r < n; ++r) {
            int status = 0;
            ASSERT_EQ(waitpid(pids[r], &status, 0), pids[r]);
            EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "rank " << r << " failed (status " << status << ")";
        }
    }
}

} // namespace
