// The cpu backend's AllReduce among the threads of one process (direct: each rank reduces its
// slice into its own result and copies it into the others'), on the paths of its kernel: every
// dtype (8- to 64-bit integers, signed and unsigned, f32, f64) and op, three ranks, buffers that
// start at different offsets in a cache line, counts around the kernel's 64-byte lines and 4 KiB
// chunks, in place and out of place. Expected values are computed here with the backend's
// contract: integers wrap, AVG of integers divides the wrapped sum in the type.
#include "infiniccl.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

constexpr int kRanks = 3;

bool haveCpuRanks() {
    int count = 0;
    return infinirtGetDeviceCount(INFINI_DEVICE_CPU, &count) == INFINI_STATUS_SUCCESS && count >= kRanks;
}

// Rank r's element i: small values (negative too where the type has them), so that float sums and
// products of three ranks are exact.
template <typename T>
T value(int r, size_t i) {
    const int v = static_cast<int>((i * 37 + static_cast<size_t>(r) * 11) % 17) - 8;
    if constexpr (std::is_floating_point_v<T>) return static_cast<T>(v);
    return static_cast<T>(v * 13 + r); // wraps into unsigned types
}

template <typename T>
T expected(size_t i, infinicclReduceOp_t op) {
    if constexpr (std::is_floating_point_v<T>) {
        T acc = value<T>(0, i);
        for (int r = 1; r < kRanks; ++r) {
            const T v = value<T>(r, i);
            switch (op) {
            case INFINICCL_PROD: acc *= v; break;
            case INFINICCL_MAX: acc = acc > v ? acc : v; break;
            case INFINICCL_MIN: acc = acc < v ? acc : v; break;
            default: acc += v; break;
            }
        }
        return op == INFINICCL_AVG ? static_cast<T>(acc / static_cast<T>(kRanks)) : acc;
    } else {
        using U = std::make_unsigned_t<T>;
        if (op == INFINICCL_MAX || op == INFINICCL_MIN) {
            T acc = value<T>(0, i);
            for (int r = 1; r < kRanks; ++r) {
                const T v = value<T>(r, i);
                acc = (op == INFINICCL_MAX) == (v > acc) ? v : acc;
            }
            return acc;
        }
        uint64_t acc = static_cast<U>(value<T>(0, i));
        for (int r = 1; r < kRanks; ++r) {
            const uint64_t v = static_cast<U>(value<T>(r, i));
            acc = op == INFINICCL_PROD ? acc * v : acc + v;
        }
        const T wrapped = static_cast<T>(static_cast<U>(acc));
        return op == INFINICCL_AVG ? static_cast<T>(wrapped / static_cast<T>(kRanks)) : wrapped;
    }
}

const char *opName(infinicclReduceOp_t op) {
    static const char *const names[] = {"sum", "prod", "max", "min", "avg"};
    return names[op];
}

class CclCpuAllReduce : public ::testing::Test {
protected:
    void SetUp() override {
        if (!haveCpuRanks()) GTEST_SKIP() << "needs " << kRanks << " cpu devices (INFINIRT_CPU_DEVICE_COUNT)";
        ASSERT_EQ(infinicclCommInitAll(INFINI_DEVICE_CPU, comms_, kRanks, nullptr), INFINI_STATUS_SUCCESS)
            << infinirtGetLastErrorMessage();
    }
    void TearDown() override {
        for (infinicclComm_t c : comms_) {
            if (c != nullptr) {
                EXPECT_EQ(infinicclCommDestroy(c), INFINI_STATUS_SUCCESS);
            }
        }
    }

    // Every count and op, in place and out of place; rank r's buffers start r + 1 (send) and
    // 2r + 1 (recv) elements past a cache line.
    template <typename T>
    void check(infiniDtype_t dtype) {
        const size_t line = 64 / sizeof(T), chunk = 4096 / sizeof(T);
        const size_t counts[] = {1, line - 1, line, line + 1, 3 * line + 5, chunk - 1, chunk + line + 3, 3 * chunk + 7};
        for (size_t count : counts) {
            for (infinicclReduceOp_t op : {INFINICCL_SUM, INFINICCL_PROD, INFINICCL_MAX, INFINICCL_MIN, INFINICCL_AVG}) {
                for (bool in_place : {false, true}) {
                    SCOPED_TRACE(std::to_string(sizeof(T)) + "-byte dtype " + std::to_string(dtype) + " " + opName(op) +
                                 " count " + std::to_string(count) + (in_place ? " in place" : " out of place"));
                    runCase<T>(dtype, count, op, in_place);
                    if (HasFatalFailure()) return;
                }
            }
        }
    }

    template <typename T>
    void runCase(infiniDtype_t dtype, size_t count, infinicclReduceOp_t op, bool in_place) {
        const size_t pad = 64 / sizeof(T) * 2;
        std::vector<T> send[kRanks], recv[kRanks];
        T *s[kRanks], *d[kRanks];
        for (int r = 0; r < kRanks; ++r) {
            send[r].assign(count + pad + 64, T{});
            recv[r].assign(count + pad + 64, T{});
            s[r] = lineStart(send[r]) + r + 1;
            d[r] = in_place ? s[r] : lineStart(recv[r]) + 2 * r + 1;
            for (size_t i = 0; i < count; ++i) s[r][i] = value<T>(r, i);
        }
        infiniStatus_t status[kRanks];
        std::vector<std::thread> threads;
        for (int r = 0; r < kRanks; ++r) {
            threads.emplace_back([&, r] {
                infinirtSetDevice(INFINI_DEVICE_CPU, r);
                status[r] = infinicclAllReduce(s[r], d[r], count, dtype, op, comms_[r], nullptr);
            });
        }
        for (std::thread &t : threads) t.join();
        for (int r = 0; r < kRanks; ++r) {
            ASSERT_EQ(status[r], INFINI_STATUS_SUCCESS) << "rank " << r;
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < count; ++i) {
                const T want = expected<T>(i, op);
                if (std::memcmp(&d[r][i], &want, sizeof(T)) != 0 && bad++ == 0) first = i;
            }
            EXPECT_EQ(bad, 0u) << "rank " << r << ": first wrong element " << first << " is " << +d[r][first]
                               << ", expected " << +expected<T>(first, op);
            // Nothing written past the result.
            for (size_t i = count; i < count + 8; ++i) {
                EXPECT_EQ(+d[r][i], +T{}) << "rank " << r << ": element " << i << " past the end";
            }
        }
    }

    template <typename T>
    static T *lineStart(std::vector<T> &v) {
        const uintptr_t at = reinterpret_cast<uintptr_t>(v.data());
        return reinterpret_cast<T *>((at + 63) / 64 * 64);
    }

    infinicclComm_t comms_[kRanks] = {};
};

TEST_F(CclCpuAllReduce, Int8) { check<int8_t>(INFINI_DTYPE_I8); }
TEST_F(CclCpuAllReduce, Uint8) { check<uint8_t>(INFINI_DTYPE_U8); }
TEST_F(CclCpuAllReduce, Int16) { check<int16_t>(INFINI_DTYPE_I16); }
TEST_F(CclCpuAllReduce, Uint16) { check<uint16_t>(INFINI_DTYPE_U16); }
TEST_F(CclCpuAllReduce, Int32) { check<int32_t>(INFINI_DTYPE_I32); }
TEST_F(CclCpuAllReduce, Uint32) { check<uint32_t>(INFINI_DTYPE_U32); }
TEST_F(CclCpuAllReduce, Int64) { check<int64_t>(INFINI_DTYPE_I64); }
TEST_F(CclCpuAllReduce, Uint64) { check<uint64_t>(INFINI_DTYPE_U64); }
TEST_F(CclCpuAllReduce, Float32) { check<float>(INFINI_DTYPE_F32); }
TEST_F(CclCpuAllReduce, Float64) { check<double>(INFINI_DTYPE_F64); }

} // namespace
