// Bad input gets its documented status and a message naming the problem: count overflow, dtypes
// and ops the backend refuses, destroyed and foreign comms, buffers of another device, roots and
// peers out of range, V counts of the wrong length, groups out of order, ids of the wrong kind.
#include "ccl_test_support.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

using namespace ccltest;

namespace {

// Runs on every backend under test (ccltest::backendsUnderTest: cpu, and nvidia through NCCL
// where there are two GPUs). Every refusal comes from the loader, before the backend is called:
// the RefusalsLeaveTheCommsPaired case proves it on NCCL, where a call reaching one rank only
// would pair with the next collective and corrupt it.
class CclBadInput : public ::testing::TestWithParam<infiniDevice_t> {
protected:
    infiniDevice_t type() const { return GetParam(); }
    // The backend's name in messages (its plugin's table name).
    std::string backend() const { return type() == INFINI_DEVICE_NVIDIA ? "nccl" : "cpu"; }
    // "is memory of device T:1" and the like.
    std::string device(int id) const { return std::to_string(static_cast<int>(type())) + ":" + std::to_string(id); }
    void SetUp() override {
        ASSERT_EQ(infinicclCommInitAll(type(), comms_, 2, nullptr), INFINI_STATUS_SUCCESS)
            << infinirtGetLastErrorMessage();
        ASSERT_EQ(infinirtSetDevice(type(), 0), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtMalloc(&buf0_, 4096), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtSetDevice(type(), 1), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtMalloc(&buf1_, 4096), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtSetDevice(type(), 0), INFINI_STATUS_SUCCESS);
    }
    void TearDown() override {
        if (comms_[0] != nullptr) {
            infinicclCommDestroy(comms_[0]);
            infinicclCommDestroy(comms_[1]);
            infinirtFree(buf0_);
            infinirtFree(buf1_);
        }
    }
    infinicclComm_t comms_[2] = {nullptr, nullptr};
    void *buf0_ = nullptr, *buf1_ = nullptr;
};

TEST_P(CclBadInput, CountOverflow) {
    EXPECT_FAILS(infinicclAllReduce(buf0_, buf0_, SIZE_MAX / 2, INFINI_DTYPE_F32, INFINICCL_SUM, comms_[0], nullptr),
                 INFINI_STATUS_BAD_PARAM, "overflow");
    EXPECT_FAILS(infinicclAllGather(buf0_, buf0_, SIZE_MAX / 3, INFINI_DTYPE_BF16, comms_[0], nullptr),
                 INFINI_STATUS_BAD_PARAM, "overflow");
    const size_t counts[2] = {SIZE_MAX, 2};
    EXPECT_FAILS(infinicclAllGatherV(buf0_, buf0_, counts, 2, INFINI_DTYPE_F32, comms_[0], nullptr),
                 INFINI_STATUS_BAD_PARAM, "overflow");
}

TEST_P(CclBadInput, BufferPastItsAllocation) {
    EXPECT_FAILS(infinicclAllReduce(buf0_, buf0_, 1025, INFINI_DTYPE_F32, INFINICCL_SUM, comms_[0], nullptr),
                 INFINI_STATUS_BAD_PARAM, "holds 4096 bytes");
}

TEST_P(CclBadInput, DtypesAndOps) {
    EXPECT_FAILS(infinicclAllReduce(buf0_, buf0_, 4, INFINI_DTYPE_C64, INFINICCL_SUM, comms_[0], nullptr),
                 INFINI_STATUS_NOT_IMPLEMENTED, "C64");
    EXPECT_FAILS(infinicclAllReduce(buf0_, buf0_, 4, INFINI_DTYPE_BOOL, INFINICCL_SUM, comms_[0], nullptr),
                 INFINI_STATUS_NOT_IMPLEMENTED, "does not reduce dtype BOOL");
    EXPECT_FAILS(infinicclAllReduce(buf0_, buf0_, 4, static_cast<infiniDtype_t>(999), INFINICCL_SUM, comms_[0], nullptr),
                 INFINI_STATUS_BAD_PARAM, "not an infiniDtype_t");
    EXPECT_FAILS(infinicclAllReduce(buf0_, buf0_, 4, INFINI_DTYPE_F32, static_cast<infinicclReduceOp_t>(7), comms_[0],
                                    nullptr),
                 INFINI_STATUS_BAD_PARAM, "op 7");
}

TEST_P(CclBadInput, DestroyedAndForeignComms) {
    infinicclComm_t more[2];
    ASSERT_EQ(infinicclCommInitAll(type(), more, 2, nullptr), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinicclCommDestroy(more[0]), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinicclCommDestroy(more[1]), INFINI_STATUS_SUCCESS);
    EXPECT_FAILS(infinicclAllReduce(buf0_, buf0_, 4, INFINI_DTYPE_F32, INFINICCL_SUM, more[0], nullptr),
                 INFINI_STATUS_INVALID_HANDLE, "destroyed");
    EXPECT_FAILS(infinicclCommDestroy(more[0]), INFINI_STATUS_INVALID_HANDLE, "destroyed");
    int x = 0;
    EXPECT_FAILS(infinicclCommGetRank(reinterpret_cast<infinicclComm_t>(&x), &x), INFINI_STATUS_INVALID_HANDLE,
                 "never created");
    EXPECT_FAILS(infinicclAllReduce(buf0_, buf0_, 4, INFINI_DTYPE_F32, INFINICCL_SUM, nullptr, nullptr),
                 INFINI_STATUS_NULL_POINTER, "comm is NULL");
    EXPECT_EQ(infinicclCommDestroy(nullptr), INFINI_STATUS_SUCCESS); // as published
}

TEST_P(CclBadInput, BuffersOnTheWrongDevice) {
    EXPECT_FAILS(infinicclAllReduce(buf1_, buf0_, 4, INFINI_DTYPE_F32, INFINICCL_SUM, comms_[0], nullptr),
                 INFINI_STATUS_BAD_PARAM, "sendbuf");
    EXPECT_FAILS(infinicclBroadcast(buf0_, buf1_, 4, INFINI_DTYPE_F32, 0, comms_[0], nullptr), INFINI_STATUS_BAD_PARAM,
                 "recvbuf");
    // NULL stream while another device is current.
    ASSERT_EQ(infinirtSetDevice(type(), 1), INFINI_STATUS_SUCCESS);
    EXPECT_FAILS(infinicclAllReduce(buf0_, buf0_, 4, INFINI_DTYPE_F32, INFINICCL_SUM, comms_[0], nullptr),
                 INFINI_STATUS_BAD_PARAM, "default stream");
}

// Every collective and point-to-point entry, called on rank 0 of a 2-rank comm (root 0, peer 1;
// V counts {count, count}), for the checks that every entry makes.
struct Args {
    void *send;
    void *recv;
    size_t count;
    int dtype; // an int: the tests pass values outside infiniDtype_t, which UBSan refuses to load as one
    infiniDtype_t type() const { return static_cast<infiniDtype_t>(dtype); }
    infinicclComm_t comm;
    infinirtStream_t stream;
};
struct Entry {
    const char *name;
    bool reduces;
    infiniStatus_t (*call)(const Args &);
};
const Entry kEntries[] = {
    {"infinicclAllReduce", true,
     [](const Args &a) {
         return infinicclAllReduce(a.send, a.recv, a.count, a.type(), INFINICCL_SUM, a.comm, a.stream);
     }},
    {"infinicclReduce", true,
     [](const Args &a) {
         return infinicclReduce(a.send, a.recv, a.count, a.type(), INFINICCL_SUM, 0, a.comm, a.stream);
     }},
    {"infinicclBroadcast", false,
     [](const Args &a) { return infinicclBroadcast(a.send, a.recv, a.count, a.type(), 0, a.comm, a.stream); }},
    {"infinicclAllGather", false,
     [](const Args &a) { return infinicclAllGather(a.send, a.recv, a.count, a.type(), a.comm, a.stream); }},
    {"infinicclAllGatherV", false,
     [](const Args &a) {
         const size_t counts[2] = {a.count, a.count};
         return infinicclAllGatherV(a.send, a.recv, counts, 2, a.type(), a.comm, a.stream);
     }},
    {"infinicclReduceScatter", true,
     [](const Args &a) {
         return infinicclReduceScatter(a.send, a.recv, a.count, a.type(), INFINICCL_SUM, a.comm, a.stream);
     }},
    {"infinicclReduceScatterV", true,
     [](const Args &a) {
         const size_t counts[2] = {a.count, a.count};
         return infinicclReduceScatterV(a.send, a.recv, counts, 2, a.type(), INFINICCL_SUM, a.comm, a.stream);
     }},
    {"infinicclSend", false,
     [](const Args &a) { return infinicclSend(a.send, a.count, a.type(), 1, a.comm, a.stream); }},
    {"infinicclRecv", false,
     [](const Args &a) { return infinicclRecv(a.recv, a.count, a.type(), 1, a.comm, a.stream); }},
};

// A stream of another device (created on cpu:1) is refused by every entry, before any rank
// waits for another.
TEST_P(CclBadInput, EveryCallRefusesAStreamOfAnotherDevice) {
    ASSERT_EQ(infinirtSetDevice(type(), 1), INFINI_STATUS_SUCCESS);
    infinirtStream_t other = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&other), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtSetDevice(type(), 0), INFINI_STATUS_SUCCESS);
    for (const Entry &e : kEntries) {
        SCOPED_TRACE(e.name);
        EXPECT_FAILS(e.call({buf0_, buf0_, 4, INFINI_DTYPE_F32, comms_[0], other}), INFINI_STATUS_BAD_PARAM,
                     "is a stream of device " + device(1) + ", the comm is on " + device(0));
    }
    // Inside a group too: refused at the call, not at GroupEnd.
    ASSERT_EQ(infinicclGroupStart(comms_[0]), INFINI_STATUS_SUCCESS);
    EXPECT_FAILS(infinicclAllReduce(buf0_, buf0_, 4, INFINI_DTYPE_F32, INFINICCL_SUM, comms_[0], other),
                 INFINI_STATUS_BAD_PARAM, "is a stream of device " + device(1));
    EXPECT_EQ(infinicclGroupEnd(comms_[0]), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    EXPECT_EQ(infinirtStreamDestroy(other), INFINI_STATUS_SUCCESS);
    // A destroyed stream is no stream.
    for (const Entry &e : kEntries) {
        SCOPED_TRACE(e.name);
        EXPECT_FAILS(e.call({buf0_, buf0_, 4, INFINI_DTYPE_F32, comms_[0], other}), INFINI_STATUS_INVALID_HANDLE,
                     "stream");
    }
}

// A stream of another device type (PoCL's OpenCL device, where there is one).
TEST_P(CclBadInput, StreamOfAnotherDeviceType) {
    int count = 0;
    if (infinirtGetDeviceCount(INFINI_DEVICE_OPENCL, &count) != INFINI_STATUS_SUCCESS || count < 1) {
        GTEST_SKIP() << "no opencl device";
    }
    ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_OPENCL, 0), INFINI_STATUS_SUCCESS);
    infinirtStream_t other = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&other), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    const std::string where = "is a stream of device " + std::to_string(INFINI_DEVICE_OPENCL) + ":0";
    for (const Entry &e : kEntries) {
        SCOPED_TRACE(e.name);
        EXPECT_FAILS(e.call({buf0_, buf0_, 4, INFINI_DTYPE_F32, comms_[0], other}), INFINI_STATUS_BAD_PARAM, where);
    }
    // NULL while the opencl device is current: its default stream.
    EXPECT_FAILS(infinicclAllReduce(buf0_, buf0_, 4, INFINI_DTYPE_F32, INFINICCL_SUM, comms_[0], nullptr),
                 INFINI_STATUS_BAD_PARAM, "default stream");
    EXPECT_EQ(infinirtStreamDestroy(other), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtSetDevice(type(), 0), INFINI_STATUS_SUCCESS);
}

// Buffers that are infinirt allocations of another device (cpu:1 for a comm on cpu:0).
TEST_P(CclBadInput, EveryCallRefusesBuffersOfAnotherDevice) {
    for (const Entry &e : kEntries) {
        SCOPED_TRACE(e.name);
        EXPECT_FAILS(e.call({buf1_, buf1_, 4, INFINI_DTYPE_F32, comms_[0], nullptr}), INFINI_STATUS_BAD_PARAM,
                     "is memory of device " + device(1));
    }
}

TEST_P(CclBadInput, EveryCallRefusesADestroyedComm) {
    infinicclComm_t gone[2];
    ASSERT_EQ(infinicclCommInitAll(type(), gone, 2, nullptr), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinicclCommDestroy(gone[0]), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinicclCommDestroy(gone[1]), INFINI_STATUS_SUCCESS);
    for (const Entry &e : kEntries) {
        SCOPED_TRACE(e.name);
        EXPECT_FAILS(e.call({buf0_, buf0_, 4, INFINI_DTYPE_F32, gone[0], nullptr}), INFINI_STATUS_INVALID_HANDLE,
                     "destroyed");
    }
    EXPECT_FAILS(infinicclGroupStart(gone[0]), INFINI_STATUS_INVALID_HANDLE, "destroyed");
    EXPECT_FAILS(infinicclGroupEnd(gone[0]), INFINI_STATUS_INVALID_HANDLE, "destroyed");
    infiniDevice_t type{};
    int x = 0;
    EXPECT_FAILS(infinicclCommGetDevice(gone[0], &type, &x), INFINI_STATUS_INVALID_HANDLE, "destroyed");
    EXPECT_FAILS(infinicclCommGetRank(gone[0], &x), INFINI_STATUS_INVALID_HANDLE, "destroyed");
    EXPECT_FAILS(infinicclCommGetSize(gone[1], &x), INFINI_STATUS_INVALID_HANDLE, "destroyed");
    EXPECT_FAILS(infinicclCommDestroy(gone[1]), INFINI_STATUS_INVALID_HANDLE, "destroyed");
}

// Counts whose byte size overflows size_t (every entry; the V variants through their counts).
TEST_P(CclBadInput, EveryCallRefusesACountOverflow) {
    for (const Entry &e : kEntries) {
        SCOPED_TRACE(e.name);
        EXPECT_FAILS(e.call({buf0_, buf0_, SIZE_MAX / 2, INFINI_DTYPE_F32, comms_[0], nullptr}),
                     INFINI_STATUS_BAD_PARAM, "overflow");
    }
    // The block count fits, the comm's nranks blocks do not.
    EXPECT_FAILS(
        infinicclReduceScatter(buf0_, buf0_, SIZE_MAX / 8 + 1, INFINI_DTYPE_F32, INFINICCL_SUM, comms_[0], nullptr),
        INFINI_STATUS_BAD_PARAM, "overflow");
    const size_t counts[2] = {SIZE_MAX, 1};
    EXPECT_FAILS(infinicclReduceScatterV(buf0_, buf0_, counts, 2, INFINI_DTYPE_I8, INFINICCL_SUM, comms_[0], nullptr),
                 INFINI_STATUS_BAD_PARAM, "sum overflows");
}

// A valid dtype the backend cannot do: NOT_IMPLEMENTED naming the dtype and the backend.
TEST_P(CclBadInput, EveryCallRefusesADtypeTheBackendCannotDo) {
    for (const Entry &e : kEntries) {
        SCOPED_TRACE(e.name);
        EXPECT_FAILS(e.call({buf0_, buf0_, 4, INFINI_DTYPE_C64, comms_[0], nullptr}), INFINI_STATUS_NOT_IMPLEMENTED,
                     "the " + backend() + " backend does not");
        EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("C64"), std::string::npos);
        if (e.reduces) {
            EXPECT_FAILS(e.call({buf0_, buf0_, 4, INFINI_DTYPE_BOOL, comms_[0], nullptr}),
                         INFINI_STATUS_NOT_IMPLEMENTED, "the " + backend() + " backend does not reduce dtype BOOL");
        }
        // A value that is no dtype at all is BAD_PARAM, not NOT_IMPLEMENTED.
        EXPECT_FAILS(e.call({buf0_, buf0_, 4, 999, comms_[0], nullptr}),
                     INFINI_STATUS_BAD_PARAM, "not an infiniDtype_t");
    }
}

TEST_P(CclBadInput, RanksCountsAndGroups) {
    EXPECT_FAILS(infinicclBroadcast(buf0_, buf0_, 4, INFINI_DTYPE_F32, 2, comms_[0], nullptr), INFINI_STATUS_BAD_PARAM,
                 "root 2");
    EXPECT_FAILS(infinicclSend(buf0_, 4, INFINI_DTYPE_F32, 0, comms_[0], nullptr), INFINI_STATUS_BAD_PARAM, "own rank");
    EXPECT_FAILS(infinicclRecv(buf0_, 4, INFINI_DTYPE_F32, -1, comms_[0], nullptr), INFINI_STATUS_BAD_PARAM, "peer -1");
    const size_t counts[3] = {1, 1, 1};
    EXPECT_FAILS(infinicclAllGatherV(buf0_, buf0_, counts, 3, INFINI_DTYPE_F32, comms_[0], nullptr),
                 INFINI_STATUS_BAD_PARAM, "nranks is 3");
    EXPECT_FAILS(infinicclReduceScatterV(buf0_, buf0_, nullptr, 2, INFINI_DTYPE_F32, INFINICCL_SUM, comms_[0], nullptr),
                 INFINI_STATUS_NULL_POINTER, "counts");
    EXPECT_FAILS(infinicclGroupEnd(comms_[0]), INFINI_STATUS_BAD_PARAM, "no group");
}

TEST_P(CclBadInput, CommCreation) {
    infinicclComm_t c[2];
    const int same[2] = {1, 1};
    EXPECT_FAILS(infinicclCommInitAll(type(), c, 2, same), INFINI_STATUS_BAD_PARAM, "twice");
    const int far[2] = {0, 99};
    EXPECT_FAILS(infinicclCommInitAll(type(), c, 2, far), INFINI_STATUS_DEVICE_NOT_FOUND, "99");
    EXPECT_FAILS(infinicclCommInitAll(type(), c, 0, nullptr), INFINI_STATUS_BAD_PARAM, "ndevice");
    EXPECT_FAILS(infinicclCommInitAll(type(), nullptr, 2, nullptr), INFINI_STATUS_NULL_POINTER, "comms");
    EXPECT_FAILS(infinicclCommInitAll(static_cast<infiniDevice_t>(77), c, 2, nullptr),
                 INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED, "77");
    EXPECT_FAILS(infinicclGetUniqueId(nullptr), INFINI_STATUS_NULL_POINTER, "unique_id");
    infinicclUniqueId_t junk;
    std::memset(&junk, 0x5a, sizeof junk);
    EXPECT_FAILS(infinicclCommInitRank(c, 2, junk, 0), INFINI_STATUS_BAD_PARAM, "not made by infinicclGetUniqueId");
    infinicclUniqueId_t id;
    ASSERT_EQ(infinicclGetUniqueId(&id), INFINI_STATUS_SUCCESS);
    EXPECT_FAILS(infinicclCommInitRank(c, 2, id, 2), INFINI_STATUS_BAD_PARAM, "rank 2 of 2");
}

// The refusals above reach no backend: on NCCL, a call that reached rank 0 alone would pair with
// the next collective on that comm and corrupt it (or hang). After a refusal of each kind, an
// AllReduce on both ranks gives the right sums.
TEST_P(CclBadInput, RefusalsLeaveTheCommsPaired) {
    for (const Entry &e : kEntries) {
        SCOPED_TRACE(e.name);
        EXPECT_NE(e.call({buf1_, buf1_, 4, INFINI_DTYPE_F32, comms_[0], nullptr}), INFINI_STATUS_SUCCESS);
        EXPECT_NE(e.call({buf0_, buf0_, SIZE_MAX / 2, INFINI_DTYPE_F32, comms_[0], nullptr}), INFINI_STATUS_SUCCESS);
        EXPECT_NE(e.call({buf0_, buf0_, 4, INFINI_DTYPE_C64, comms_[0], nullptr}), INFINI_STATUS_SUCCESS);
        EXPECT_NE(e.call({buf0_, buf0_, 4, 999, comms_[0], nullptr}), INFINI_STATUS_SUCCESS);
    }
    EXPECT_NE(infinicclAllReduce(buf0_, buf0_, 1025, INFINI_DTYPE_F32, INFINICCL_SUM, comms_[0], nullptr),
              INFINI_STATUS_SUCCESS);
    EXPECT_NE(infinicclBroadcast(buf0_, buf0_, 4, INFINI_DTYPE_F32, 2, comms_[0], nullptr), INFINI_STATUS_SUCCESS);
    constexpr size_t kCount = 1024;
    void *bufs[2] = {buf0_, buf1_};
    for (int r = 0; r < 2; ++r) {
        const std::vector<float> host(kCount, static_cast<float>(r + 1));
        ASSERT_EQ(infinirtSetDevice(type(), r), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtMemcpy(bufs[r], host.data(), kCount * sizeof(float), INFINIRT_MEMCPY_H2D), INFINI_STATUS_SUCCESS);
    }
    infiniStatus_t st[2] = {INFINI_STATUS_INTERNAL_ERROR, INFINI_STATUS_INTERNAL_ERROR};
    std::vector<std::thread> ranks;
    for (int r = 0; r < 2; ++r) {
        ranks.emplace_back([&, r] {
            infinirtSetDevice(type(), r);
            st[r] = infinicclAllReduce(bufs[r], bufs[r], kCount, INFINI_DTYPE_F32, INFINICCL_SUM, comms_[r], nullptr);
            if (st[r] == INFINI_STATUS_SUCCESS) {
                st[r] = infinirtDeviceSynchronize();
            }
        });
    }
    for (std::thread &t : ranks) t.join();
    for (int r = 0; r < 2; ++r) {
        ASSERT_EQ(st[r], INFINI_STATUS_SUCCESS) << "rank " << r;
        std::vector<float> got(kCount, 0.0f);
        ASSERT_EQ(infinirtSetDevice(type(), r), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtMemcpy(got.data(), bufs[r], kCount * sizeof(float), INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
        EXPECT_EQ(got.front(), 3.0f) << "rank " << r;
        EXPECT_EQ(got.back(), 3.0f) << "rank " << r;
    }
    ASSERT_EQ(infinirtSetDevice(type(), 0), INFINI_STATUS_SUCCESS);
}

// What the loader cannot know (a pointer infinirt never made) reaches the backend; NCCL's own
// refusal comes back as BAD_PARAM with NCCL's words (ncclGetErrorString and ncclGetLastError).
// NCCL checks pointers only under NCCL_CHECK_POINTERS=1 (scripts/gpu-verify.sh sets it).
TEST_P(CclBadInput, NcclsOwnRefusalCarriesNcclsMessage) {
    if (type() != INFINI_DEVICE_NVIDIA) {
        GTEST_SKIP() << "NCCL's refusals: nvidia only";
    }
    const char *check = std::getenv("NCCL_CHECK_POINTERS");
    if (check == nullptr || std::string(check) != "1") {
        GTEST_SKIP() << "NCCL checks pointers only under NCCL_CHECK_POINTERS=1";
    }
    void *unknown = reinterpret_cast<void *>(uintptr_t{0x1000});
    EXPECT_FAILS(infinicclAllReduce(unknown, unknown, 4, INFINI_DTYPE_F32, INFINICCL_SUM, comms_[0], nullptr),
                 INFINI_STATUS_BAD_PARAM, "ncclResult_t");
    const std::string message = infinirtGetLastErrorMessage();
    EXPECT_NE(message.find("not a valid pointer"), std::string::npos) << message;
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CclBadInput);
INSTANTIATE_TEST_SUITE_P(Backends, CclBadInput, ::testing::ValuesIn(backendsUnderTest()),
                         [](const ::testing::TestParamInfo<infiniDevice_t> &info) { return std::string(typeName(info.param)); });

// Without NCCL (or without the nccl plugin), nvidia comms are refused with the reason.
TEST(CclNccl, ReasonWhenUnavailable) {
    int count = 0;
    infinicclComm_t c[1];
    const infiniStatus_t st = infinicclCommInitAll(INFINI_DEVICE_NVIDIA, c, 1, nullptr);
    if (std::getenv("INFINIRT_NCCL_LIBRARY") != nullptr && std::string(std::getenv("INFINIRT_NCCL_LIBRARY")).rfind("/nonexistent", 0) == 0) {
        EXPECT_EQ(st, INFINI_STATUS_BACKEND_UNAVAILABLE);
    }
    if (st == INFINI_STATUS_SUCCESS) {
        EXPECT_EQ(infinicclCommDestroy(c[0]), INFINI_STATUS_SUCCESS);
        GTEST_SKIP() << "NCCL is usable here";
    }
    const std::string message = infinirtGetLastErrorMessage();
    if (st == INFINI_STATUS_BACKEND_UNAVAILABLE) {
        EXPECT_NE(message.find("libnccl.so.2 not found"), std::string::npos) << message;
    } else {
        // The plugin loaded and NCCL too, but there is no nvidia device.
        (void)infinirtGetDeviceCount(INFINI_DEVICE_NVIDIA, &count);
        EXPECT_EQ(count, 0) << infinirtGetErrorName(st) << ": " << message;
    }
}

} // namespace
