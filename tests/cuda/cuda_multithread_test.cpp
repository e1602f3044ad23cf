/* Many threads on one device: each with its own streams and events, copies checked byte by byte,
 * and every thread's stream ordered after an event another thread recorded. */
#include <infinirt.h>

#include "cuda_test_support.h"

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 8;
constexpr int kRounds = 40;
constexpr size_t kBytes = 256 << 10;

struct Failure {
    std::atomic<int> count{0};
    char first[512] = "";
    std::atomic_flag taken = ATOMIC_FLAG_INIT;
    void note(const char *what, int thread, int round, infiniStatus_t status) {
        if (!taken.test_and_set()) {
            std::snprintf(first, sizeof first, "thread %d round %d: %s gave %d (%s)", thread, round, what,
                          static_cast<int>(status), infinirtGetLastErrorMessage());
        }
        count.fetch_add(1);
    }
};

#define CHECK_OR_NOTE(call)                                                                                            \
    do {                                                                                                               \
        infiniStatus_t s_ = (call);                                                                                    \
        if (s_ != INFINI_STATUS_SUCCESS) {                                                                             \
            failure.note(#call, t, round, s_);                                                                         \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)

TEST(CudaMultiThread, EightThreadsShareOneDevice) {
    SKIP_WITHOUT_CUDA_DEVICE();
    ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_NVIDIA, 0), INFINI_STATUS_SUCCESS);
    /* One event per thread, recorded by its owner and waited on by its neighbour. */
    std::vector<infinirtEvent_t> handoff(kThreads);
    for (auto &e : handoff) {
        ASSERT_EQ(infinirtEventCreateWithFlags(&e, INFINIRT_EVENT_DISABLE_TIMING), INFINI_STATUS_SUCCESS);
    }
    Failure failure;
    std::atomic<int> mismatches{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            int round = -1;
            CHECK_OR_NOTE(infinirtSetDevice(INFINI_DEVICE_NVIDIA, 0));
            infinirtStream_t stream = nullptr;
            infinirtEvent_t done = nullptr;
            void *a = nullptr, *b = nullptr, *in = nullptr, *out = nullptr;
            CHECK_OR_NOTE(infinirtStreamCreate(&stream));
            CHECK_OR_NOTE(infinirtEventCreate(&done));
            CHECK_OR_NOTE(infinirtMalloc(&a, kBytes));
            CHECK_OR_NOTE(infinirtMallocHost(&in, kBytes));
            CHECK_OR_NOTE(infinirtMallocHost(&out, kBytes));
            for (round = 0; round < kRounds; ++round) {
                const unsigned char pattern = static_cast<unsigned char>(t * kRounds + round);
                std::memset(in, pattern, kBytes);
                std::memset(out, 0, kBytes);
                CHECK_OR_NOTE(infinirtStreamWaitEvent(stream, handoff[(t + 1) % kThreads]));
                CHECK_OR_NOTE(infinirtMallocAsync(&b, kBytes, stream));
                CHECK_OR_NOTE(infinirtMemcpyAsync(a, in, kBytes, INFINIRT_MEMCPY_H2D, stream));
                CHECK_OR_NOTE(infinirtMemcpyAsync(b, a, kBytes, INFINIRT_MEMCPY_D2D, stream));
                CHECK_OR_NOTE(infinirtMemsetAsync(b, pattern ^ 0xff, 64, stream));
                CHECK_OR_NOTE(infinirtMemcpyAsync(out, b, kBytes, INFINIRT_MEMCPY_DEFAULT, stream));
                CHECK_OR_NOTE(infinirtFreeAsync(b, stream));
                CHECK_OR_NOTE(infinirtEventRecord(done, stream));
                CHECK_OR_NOTE(infinirtEventRecord(handoff[t], stream));
                infiniStatus_t q = infinirtStreamQuery(stream);
                if (q != INFINI_STATUS_SUCCESS && q != INFINI_STATUS_NOT_READY) {
                    failure.note("infinirtStreamQuery", t, round, q);
                    return;
                }
                infinirtEventStatus_t status;
                CHECK_OR_NOTE(infinirtEventQuery(done, &status));
                CHECK_OR_NOTE(infinirtEventSynchronize(done));
                const auto *bytes = static_cast<const unsigned char *>(out);
                if (bytes[0] != static_cast<unsigned char>(pattern ^ 0xff) || bytes[63] != bytes[0] ||
                    bytes[64] != pattern || bytes[kBytes - 1] != pattern) {
                    mismatches.fetch_add(1);
                }
            }
            round = kRounds;
            CHECK_OR_NOTE(infinirtStreamSynchronize(stream));
            CHECK_OR_NOTE(infinirtStreamDestroy(stream));
            CHECK_OR_NOTE(infinirtEventDestroy(done));
            CHECK_OR_NOTE(infinirtFree(a));
            CHECK_OR_NOTE(infinirtFreeHost(in));
            CHECK_OR_NOTE(infinirtFreeHost(out));
        });
    }
    for (auto &th : threads) {
        th.join();
    }
    EXPECT_EQ(failure.count.load(), 0) << failure.first;
    EXPECT_EQ(mismatches.load(), 0);
    ASSERT_EQ(infinirtDeviceSynchronize(), INFINI_STATUS_SUCCESS);
    for (auto e : handoff) {
        EXPECT_EQ(infinirtEventDestroy(e), INFINI_STATUS_SUCCESS);
    }
}

} // namespace
