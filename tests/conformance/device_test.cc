#include "device_test.h"

#include <chrono>
#include <thread>

namespace infinirt_test {

std::vector<uint8_t> Pattern(size_t size, uint8_t seed) {
    std::vector<uint8_t> bytes(size);
    for (size_t i = 0; i < size; ++i) {
        bytes[i] = static_cast<uint8_t>((i * 131u + (i >> 8) * 7u + seed * 17u + 1u) & 0xffu);
    }
    return bytes;
}

::testing::AssertionResult EnqueueBusyWork(infinirtStream_t stream, size_t size, int rounds, BusyWork *work) {
    BusyWork w;
    if (infinirtMalloc(&w.a, size) != INFINI_STATUS_SUCCESS) {
        return ::testing::AssertionFailure() << "Malloc for busy work: " << infinirtGetLastErrorMessage();
    }
    if (infinirtMalloc(&w.b, size) != INFINI_STATUS_SUCCESS) {
        const std::string message = infinirtGetLastErrorMessage();
        infinirtFree(w.a);
        return ::testing::AssertionFailure() << "Malloc for busy work: " << message;
    }
    *work = w;
    if (infinirtMemsetAsync(w.a, 0x5a, size, stream) != INFINI_STATUS_SUCCESS) {
        return ::testing::AssertionFailure() << "MemsetAsync for busy work: " << infinirtGetLastErrorMessage();
    }
    for (int r = 0; r < rounds; ++r) {
        void *dst = (r % 2 == 0) ? w.b : w.a;
        const void *src = (r % 2 == 0) ? w.a : w.b;
        if (infinirtMemcpyAsync(dst, src, size, INFINIRT_MEMCPY_D2D, stream) != INFINI_STATUS_SUCCESS) {
            return ::testing::AssertionFailure() << "MemcpyAsync for busy work: " << infinirtGetLastErrorMessage();
        }
    }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult PollUntilDone(const std::function<infiniStatus_t()> &query) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    for (;;) {
        const infiniStatus_t status = query();
        if (status == INFINI_STATUS_SUCCESS) {
            return ::testing::AssertionSuccess();
        }
        if (status != INFINI_STATUS_NOT_READY) {
            return ::testing::AssertionFailure() << "query returned " << infinirtGetErrorName(status) << ": "
                                                 << infinirtGetLastErrorMessage();
        }
        if (std::chrono::steady_clock::now() > give_up) {
            return ::testing::AssertionFailure() << "still NOT_READY after a minute";
        }
        std::this_thread::yield();
    }
}

void FreeBusyWork(const BusyWork &work) {
    if (work.a != nullptr) {
        infinirtFree(work.a);
    }
    if (work.b != nullptr) {
        infinirtFree(work.b);
    }
}

} // namespace infinirt_test
