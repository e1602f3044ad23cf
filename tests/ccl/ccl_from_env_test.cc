// infinicclCommInitFromEnv's refusals, before any rendezvous: a NULL comm, no launcher's variables,
// a rank outside the size, MASTER_ADDR/MASTER_PORT missing; and one rank (WORLD_SIZE=1), which needs
// no store. Ranks on several hosts: tests/ccl/netns_hosts.py (ccl.hosts.*).
#include "ccl_test_support.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

const char *const kVariables[] = {"RANK", "WORLD_SIZE", "LOCAL_RANK", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                                  "OMPI_COMM_WORLD_LOCAL_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID",
                                  "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "MASTER_ADDR", "MASTER_PORT"};

// Clears the launchers' variables for the test and puts back what was there.
class CclFromEnv : public ::testing::Test {
protected:
    void SetUp() override {
        for (const char *v : kVariables) {
            const char *old = std::getenv(v);
            saved_.emplace_back(v, old != nullptr ? old : "\x01");
            unsetenv(v);
        }
    }
    void TearDown() override {
        for (const auto &[name, value] : saved_) {
            if (value == "\x01") {
                unsetenv(name.c_str());
            } else {
                setenv(name.c_str(), value.c_str(), 1);
            }
        }
    }
    std::vector<std::pair<std::string, std::string>> saved_;
};

TEST_F(CclFromEnv, Refusals) {
    infinicclComm_t comm = nullptr;
    EXPECT_FAILS(infinicclCommInitFromEnv(nullptr, INFINI_DEVICE_CPU), INFINI_STATUS_NULL_POINTER, "comm is NULL");
    EXPECT_FAILS(infinicclCommInitFromEnv(&comm, INFINI_DEVICE_CPU), INFINI_STATUS_BAD_PARAM,
                 "no launcher's variables");
    setenv("RANK", "2", 1);
    setenv("WORLD_SIZE", "2", 1);
    EXPECT_FAILS(infinicclCommInitFromEnv(&comm, INFINI_DEVICE_CPU), INFINI_STATUS_BAD_PARAM, "RANK=2");
    setenv("RANK", "x", 1);
    EXPECT_FAILS(infinicclCommInitFromEnv(&comm, INFINI_DEVICE_CPU), INFINI_STATUS_BAD_PARAM, "RANK=x");
    unsetenv("RANK");
    EXPECT_FAILS(infinicclCommInitFromEnv(&comm, INFINI_DEVICE_CPU), INFINI_STATUS_BAD_PARAM, "RANK=(unset)");
    setenv("RANK", "1", 1);
    EXPECT_FAILS(infinicclCommInitFromEnv(&comm, INFINI_DEVICE_CPU), INFINI_STATUS_BAD_PARAM, "MASTER_ADDR");
    setenv("MASTER_ADDR", "127.0.0.1", 1);
    setenv("MASTER_PORT", "70000", 1);
    EXPECT_FAILS(infinicclCommInitFromEnv(&comm, INFINI_DEVICE_CPU), INFINI_STATUS_BAD_PARAM, "MASTER_PORT=70000");
    unsetenv("RANK");
    unsetenv("WORLD_SIZE");
    setenv("SLURM_PROCID", "0", 1);
    setenv("SLURM_NTASKS", "1", 1);
    setenv("SLURM_LOCALID", "-1", 1);
    EXPECT_FAILS(infinicclCommInitFromEnv(&comm, INFINI_DEVICE_CPU), INFINI_STATUS_BAD_PARAM, "SLURM_LOCALID=-1");
    EXPECT_EQ(comm, nullptr);
}

// One rank: no store; the local rank picks the device, made current.
TEST_F(CclFromEnv, OneRank) {
    setenv("OMPI_COMM_WORLD_RANK", "0", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
    infinicclComm_t comm = nullptr;
    ASSERT_EQ(infinicclCommInitFromEnv(&comm, INFINI_DEVICE_CPU), INFINI_STATUS_SUCCESS)
        << infinirtGetLastErrorMessage();
    int rank = -1, n = 0, id = -1;
    infiniDevice_t type{};
    EXPECT_EQ(infinicclCommGetRank(comm, &rank), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinicclCommGetSize(comm, &n), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinicclCommGetDevice(comm, &type, &id), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(rank, 0);
    EXPECT_EQ(n, 1);
    int count = 0;
    ASSERT_EQ(infinirtGetDeviceCount(INFINI_DEVICE_CPU, &count), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(id, 1 % count);
    infiniDevice_t current{};
    int current_id = -1;
    EXPECT_EQ(infinirtGetDevice(&current, &current_id), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(current_id, id);
    float x[3] = {1, 2, 3}, y[3] = {};
    EXPECT_EQ(infinicclAllReduce(x, y, 3, INFINI_DTYPE_F32, INFINICCL_SUM, comm, nullptr), INFINI_STATUS_SUCCESS)
        << infinirtGetLastErrorMessage();
    EXPECT_EQ(y[2], 3.0f);
    EXPECT_EQ(infinicclCommDestroy(comm), INFINI_STATUS_SUCCESS);
    infinirtSetDevice(INFINI_DEVICE_CPU, 0);
}

} // namespace
