// 16 threads mixing every kind of call on every device, with the data of every copy checked.
// Bounded (a fixed number of iterations), so it finishes in seconds; meant to run under
// ThreadSanitizer (ctest -L stress in a -DINFINIRT_SANITIZE=thread build).
#include "status_assertions.h"

#include <infinirt.h>

#include <atomic>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace {

struct Device {
    infiniDevice_t type;
    int id;
    infinirtStream_t shared_stream; // used by every thread at once
};

std::vector<Device> AllDevices() {
    std::vector<Device> devices;
    int counts[INFINI_DEVICE_TYPE_COUNT] = {};
    if (infinirtGetAllDeviceCountSized(counts, INFINI_DEVICE_TYPE_COUNT) != INFINI_STATUS_SUCCESS) {
        return devices;
    }
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        for (int id = 0; id < counts[t]; ++id) {
            devices.push_back(Device{static_cast<infiniDevice_t>(t), id, nullptr});
        }
    }
    return devices;
}

void Fill(std::vector<uint8_t> &bytes, uint32_t seed) {
    for (size_t i = 0; i < bytes.size(); ++i) {
        bytes[i] = static_cast<uint8_t>((seed * 2654435761u + i * 40503u) >> 7);
    }
}

// One worker: `iterations` random operations, each checked. Counts what it did in `done`.
class Worker {
public:
    Worker(int index, const std::vector<Device> &devices, std::atomic<int> &done)
        : rng_(1234u + static_cast<uint32_t>(index)), devices_(devices), done_(done) {}

    void Run(int iterations) {
        for (int i = 0; i < iterations && !::testing::Test::HasFatalFailure(); ++i) {
            const Device &d = devices_[rng_() % devices_.size()];
            ASSERT_OK(infinirtSetDevice(d.type, d.id));
            switch (rng_() % 7) {
            case 0: MallocCopyFree(); break;
            case 1: StreamOrderedAllocation(); break;
            case 2: StreamLifetime(); break;
            case 3: EventOnSharedStream(d); break;
            case 4: PinnedAsyncCopy(); break;
            case 5: CheckCurrentDevice(d); break;
            case 6: StaleHandles(); break;
            }
            done_.fetch_add(1, std::memory_order_relaxed);
        }
    }

private:
    size_t RandomSize() { return 1 + rng_() % (64 * 1024); }

    void MallocCopyFree() {
        const size_t size = RandomSize();
        std::vector<uint8_t> src(size), back(size);
        Fill(src, rng_());
        void *d = nullptr;
        ASSERT_OK(infinirtMalloc(&d, size));
        EXPECT_OK(infinirtMemcpy(d, src.data(), size, INFINIRT_MEMCPY_H2D));
        EXPECT_OK(infinirtMemcpy(back.data(), d, size, INFINIRT_MEMCPY_D2H));
        EXPECT_EQ(back, src);
        EXPECT_OK(infinirtFree(d));
    }

    void StreamOrderedAllocation() {
        const size_t size = RandomSize();
        const int value = static_cast<int>(rng_() & 0xff);
        infinirtStream_t s = nullptr;
        ASSERT_OK(infinirtStreamCreate(&s));
        void *p = nullptr;
        std::vector<uint8_t> back(size, static_cast<uint8_t>(~value));
        EXPECT_OK(infinirtMallocAsync(&p, size, s));
        EXPECT_OK(infinirtMemsetAsync(p, value, size, s));
        EXPECT_OK(infinirtMemcpyAsync(back.data(), p, size, INFINIRT_MEMCPY_D2H, s));
        EXPECT_OK(infinirtFreeAsync(p, s));
        EXPECT_OK(infinirtStreamSynchronize(s));
        EXPECT_EQ(back, std::vector<uint8_t>(size, static_cast<uint8_t>(value)));
        EXPECT_OK(infinirtStreamDestroy(s));
    }

    // Destroy while work may still be queued: StreamDestroy waits for it.
    void StreamLifetime() {
        const size_t size = RandomSize();
        std::vector<uint8_t> src(size), back(size);
        Fill(src, rng_());
        infinirtStream_t s = nullptr;
        ASSERT_OK(infinirtStreamCreate(&s));
        void *d = nullptr;
        EXPECT_OK(infinirtMalloc(&d, size));
        EXPECT_OK(infinirtMemcpyAsync(d, src.data(), size, INFINIRT_MEMCPY_H2D, s));
        EXPECT_OK(infinirtMemcpyAsync(back.data(), d, size, INFINIRT_MEMCPY_D2H, s));
        const infiniStatus_t query = infinirtStreamQuery(s);
        EXPECT_TRUE(query == INFINI_STATUS_SUCCESS || query == INFINI_STATUS_NOT_READY) << query;
        EXPECT_OK(infinirtStreamDestroy(s));
        EXPECT_EQ(back, src);
        EXPECT_OK(infinirtFree(d));
    }

    // Many threads submit to, and record events on, the same stream.
    void EventOnSharedStream(const Device &d) {
        const size_t size = RandomSize();
        std::vector<uint8_t> src(size), back(size);
        Fill(src, rng_());
        infinirtEvent_t e = nullptr;
        ASSERT_OK(infinirtEventCreate(&e));
        void *p = nullptr;
        EXPECT_OK(infinirtMalloc(&p, size));
        EXPECT_OK(infinirtMemcpyAsync(p, src.data(), size, INFINIRT_MEMCPY_H2D, d.shared_stream));
        EXPECT_OK(infinirtMemcpyAsync(back.data(), p, size, INFINIRT_MEMCPY_D2H, d.shared_stream));
        EXPECT_OK(infinirtEventRecord(e, d.shared_stream));
        infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
        EXPECT_OK(infinirtEventQuery(e, &status));
        EXPECT_TRUE(status == INFINIRT_EVENT_COMPLETE || status == INFINIRT_EVENT_NOT_READY) << status;
        EXPECT_OK(infinirtEventSynchronize(e));
        EXPECT_EQ(back, src);
        EXPECT_OK(infinirtEventDestroy(e));
        EXPECT_OK(infinirtFree(p));
    }

    // Pinned buffers, two streams ordered by an event.
    void PinnedAsyncCopy() {
        const size_t size = RandomSize();
        std::vector<uint8_t> src(size);
        Fill(src, rng_());
        void *h_in = nullptr;
        void *h_out = nullptr;
        void *d = nullptr;
        infinirtStream_t a = nullptr;
        infinirtStream_t b = nullptr;
        infinirtEvent_t e = nullptr;
        ASSERT_OK(infinirtMallocHost(&h_in, size));
        ASSERT_OK(infinirtMallocHost(&h_out, size));
        ASSERT_OK(infinirtMalloc(&d, size));
        ASSERT_OK(infinirtStreamCreate(&a));
        ASSERT_OK(infinirtStreamCreate(&b));
        ASSERT_OK(infinirtEventCreateWithFlags(&e, INFINIRT_EVENT_DISABLE_TIMING));
        std::memcpy(h_in, src.data(), size);
        EXPECT_OK(infinirtMemcpyAsync(d, h_in, size, INFINIRT_MEMCPY_H2D, a));
        EXPECT_OK(infinirtEventRecord(e, a));
        EXPECT_OK(infinirtStreamWaitEvent(b, e));
        EXPECT_OK(infinirtMemcpyAsync(h_out, d, size, INFINIRT_MEMCPY_D2H, b));
        EXPECT_OK(infinirtStreamSynchronize(b));
        EXPECT_EQ(0, std::memcmp(h_out, src.data(), size));
        EXPECT_OK(infinirtEventDestroy(e));
        EXPECT_OK(infinirtStreamDestroy(a));
        EXPECT_OK(infinirtStreamDestroy(b));
        EXPECT_OK(infinirtFree(d));
        EXPECT_OK(infinirtFreeHost(h_in));
        EXPECT_OK(infinirtFreeHost(h_out));
    }

    // Handle slots are reused by other threads all the time; a destroyed handle must stay invalid.
    void StaleHandles() {
        infinirtStream_t s = nullptr;
        infinirtEvent_t e = nullptr;
        ASSERT_OK(infinirtStreamCreate(&s));
        ASSERT_OK(infinirtEventCreate(&e));
        ASSERT_OK(infinirtEventDestroy(e));
        ASSERT_OK(infinirtStreamDestroy(s));
        infinirtStream_t fresh = nullptr;
        ASSERT_OK(infinirtStreamCreate(&fresh));
        infinirtEventStatus_t status;
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamQuery(s));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventQuery(e, &status));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamDestroy(s));
        EXPECT_OK(infinirtStreamQuery(fresh));
        EXPECT_OK(infinirtStreamDestroy(fresh));
    }

    void CheckCurrentDevice(const Device &d) {
        infiniDevice_t type = INFINI_DEVICE_TYPE_COUNT;
        int id = -1;
        ASSERT_OK(infinirtGetDevice(&type, &id));
        EXPECT_EQ(type, d.type);
        EXPECT_EQ(id, d.id);
    }

    std::mt19937 rng_;
    const std::vector<Device> &devices_;
    std::atomic<int> &done_;
};

TEST(Stress, SixteenThreadsMixingCalls) {
    constexpr int kThreads = 16;
    constexpr int kIterations = 400;
    std::vector<Device> devices = AllDevices();
    ASSERT_FALSE(devices.empty());
    for (Device &d : devices) {
        ASSERT_OK(infinirtSetDevice(d.type, d.id));
        ASSERT_OK(infinirtStreamCreate(&d.shared_stream));
    }
    std::atomic<int> done{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] { Worker(t, devices, done).Run(kIterations); });
    }
    for (std::thread &t : threads) {
        t.join();
    }
    EXPECT_EQ(done.load(), kThreads * kIterations);
    for (const Device &d : devices) {
        EXPECT_OK(infinirtStreamSynchronize(d.shared_stream));
        EXPECT_OK(infinirtStreamDestroy(d.shared_stream));
    }
}

} // namespace
