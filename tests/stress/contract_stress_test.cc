// Random calls from 16 threads that keep to the documented contract (issue 16, items 1 and 11):
// shared streams, events and graph execs are replaced only when no thread uses them; everything
// else is random -- async copies and memsets, queries, synchronisations, event records and waits,
// graph launches, SetDevice with bad ids, Malloc/Free, frees of garbage pointers, destroys of
// garbage and stale handles, DeviceSynchronize, MallocAsync/FreeAsync, and threads that create a
// stream, capture into it, instantiate, launch and destroy it. Every status is checked against
// the contract: a DeviceSynchronize, Free or FreeHost during another thread's capture on the device
// is refused with BAD_PARAM (never a crash inside the driver, as cuCtxSynchronize did on cuda, nor
// an invalidated capture, as the free's device-wide wait caused on cuda); a refused free is
// retried until the capture has ended. Runs on every device found;
// bounded; meant to run under ThreadSanitizer and AddressSanitizer too.
#include "status_assertions.h"

#include <infinirt.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr size_t kBuffer = 4096;

struct Shared {
    infiniDevice_t type;
    int id;
    infinirtStream_t streams[2];
    infinirtEvent_t events[2];
    void *graph_target;          // written by the shared graph
    infinirtGraphExec_t exec;    // launched by every thread, never replaced during the run
    bool stream_ordered_alloc;
};

std::vector<Shared> SharedObjects() {
    std::vector<Shared> out;
    int counts[INFINI_DEVICE_TYPE_COUNT] = {};
    if (infinirtGetAllDeviceCountSized(counts, INFINI_DEVICE_TYPE_COUNT) != INFINI_STATUS_SUCCESS) {
        return out;
    }
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        for (int id = 0; id < counts[t]; ++id) {
            Shared s{};
            s.type = static_cast<infiniDevice_t>(t);
            s.id = id;
            out.push_back(s);
        }
    }
    return out;
}

bool OneOf(infiniStatus_t st, std::initializer_list<infiniStatus_t> allowed) {
    for (infiniStatus_t a : allowed) {
        if (st == a) {
            return true;
        }
    }
    return false;
}

// Fails the test instead of letting it hang: unless destroyed within `limit`, prints the test's
// name and what `where` says, then ends the process with status 1 (ctest reports the failure).
class Watchdog {
public:
    Watchdog(const char *test, std::chrono::seconds limit, std::function<std::string()> where)
        : thread_([this, test, limit, where] {
              std::unique_lock<std::mutex> lock(mutex_);
              if (!cv_.wait_for(lock, limit, [this] { return done_; })) {
                  std::fprintf(stderr, "%s: no end after %lld s (%s): failing instead of hanging\n", test,
                               static_cast<long long>(limit.count()), where().c_str());
                  std::fflush(stderr);
                  std::_Exit(1);
              }
          }) {}
    ~Watchdog() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            done_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread thread_;
};

// Free or FreeHost of `p`, retried while another thread's capture on the owning device refuses it.
void FreeWhenNoCapture(infiniStatus_t (*free_fn)(void *), void *p) {
    for (;;) {
        const infiniStatus_t st = free_fn(p);
        if (st != INFINI_STATUS_BAD_PARAM) {
            EXPECT_OK(st);
            return;
        }
        const std::string message = infinirtGetLastErrorMessage();
        if (message.find("capturing") == std::string::npos) {
            ADD_FAILURE() << "free refused for another reason than a capture: " << message;
            return;
        }
        std::this_thread::yield();
    }
}

class Worker {
public:
    Worker(int index, std::vector<Shared> &devices) : rng_(977u + static_cast<uint32_t>(index)), devices_(devices) {}

    void Run(int iterations) {
        // One device buffer and one pinned buffer per device, owned by this thread.
        for (const Shared &d : devices_) {
            ASSERT_OK(infinirtSetDevice(d.type, d.id));
            void *dev = nullptr;
            void *host = nullptr;
            ASSERT_OK(infinirtMalloc(&dev, kBuffer));
            ASSERT_OK(infinirtMallocHost(&host, kBuffer));
            own_device_.push_back(dev);
            own_host_.push_back(host);
        }
        for (int i = 0; i < iterations && !::testing::Test::HasFailure(); ++i) {
            const size_t k = rng_() % devices_.size();
            const Shared &d = devices_[k];
            ASSERT_OK(infinirtSetDevice(d.type, d.id));
            Step(d, own_device_[k], own_host_[k]);
        }
        for (size_t k = 0; k < devices_.size(); ++k) {
            FreeWhenNoCapture(infinirtFree, own_device_[k]); // waits for queued work on it
            FreeWhenNoCapture(infinirtFreeHost, own_host_[k]);
        }
    }

private:
    void Step(const Shared &d, void *dev, void *host) {
        infinirtStream_t stream = d.streams[rng_() % 2];
        infinirtEvent_t event = d.events[rng_() % 2];
        switch (rng_() % 15) {
        case 0:
            EXPECT_OK(infinirtMemcpyAsync(dev, host, kBuffer, INFINIRT_MEMCPY_H2D, stream));
            break;
        case 1:
            EXPECT_OK(infinirtMemcpyAsync(host, dev, kBuffer, INFINIRT_MEMCPY_D2H, stream));
            break;
        case 2:
            EXPECT_OK(infinirtMemsetAsync(dev, static_cast<int>(rng_() & 0xff), 1 + rng_() % kBuffer, stream));
            break;
        case 3: {
            const infiniStatus_t st = infinirtStreamQuery(stream);
            EXPECT_TRUE(OneOf(st, {INFINI_STATUS_SUCCESS, INFINI_STATUS_NOT_READY})) << infinirtGetErrorName(st);
            break;
        }
        case 4:
            EXPECT_OK(rng_() % 2 ? infinirtStreamSynchronize(stream) : infinirtEventSynchronize(event));
            break;
        case 5:
            EXPECT_OK(infinirtEventRecord(event, stream));
            EXPECT_OK(infinirtStreamWaitEvent(d.streams[rng_() % 2], event));
            break;
        case 6: {
            infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
            EXPECT_OK(infinirtEventQuery(event, &status));
            break;
        }
        case 7:
            EXPECT_OK(infinirtGraphLaunch(d.exec, stream));
            break;
        case 8: {
            EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtSetDevice(d.type, 1000 + static_cast<int>(rng_() % 5)));
            EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtSetDevice(d.type, -1));
            infiniDevice_t t = INFINI_DEVICE_TYPE_COUNT;
            int id = -1;
            EXPECT_OK(infinirtGetDevice(&t, &id));
            EXPECT_TRUE(t == d.type && id == d.id) << "a refused SetDevice changed the current device";
            break;
        }
        case 9: {
            void *p = nullptr;
            ASSERT_OK(infinirtMalloc(&p, 1 + rng_() % (256 * 1024)));
            EXPECT_OK(infinirtMemsetAsync(p, 1, 64, stream));
            FreeWhenNoCapture(infinirtFree, p);
            break;
        }
        case 10: {
            int on_stack = 0;
            EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFree(&on_stack));
            EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFree(static_cast<char *>(dev) + 1));
            EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFreeHost(dev));
            break;
        }
        case 11: {
            infinirtStream_t stale = nullptr;
            ASSERT_OK(infinirtStreamCreate(&stale));
            ASSERT_OK(infinirtStreamDestroy(stale));
            EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamDestroy(stale));
            EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE,
                          infinirtEventDestroy(reinterpret_cast<infinirtEvent_t>(uintptr_t{0xdead0000} + rng_() % 64)));
            EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphExecDestroy(stream)); // a stream, not an exec
            break;
        }
        case 12: {
            // Refused (BAD_PARAM) while another thread captures on this device, else it waits.
            const infiniStatus_t st = infinirtDeviceSynchronize();
            const std::string message = infinirtGetLastErrorMessage();
            EXPECT_TRUE(OneOf(st, {INFINI_STATUS_SUCCESS, INFINI_STATUS_BAD_PARAM})) << infinirtGetErrorName(st);
            if (st == INFINI_STATUS_BAD_PARAM) {
                EXPECT_NE(message.find("capturing"), std::string::npos) << message;
            }
            break;
        }
        case 13:
            if (d.stream_ordered_alloc) {
                void *p = nullptr;
                ASSERT_OK(infinirtMallocAsync(&p, 1 + rng_() % 65536, stream));
                EXPECT_OK(infinirtMemsetAsync(p, 2, 1, stream));
                EXPECT_OK(infinirtFreeAsync(p, stream));
            }
            break;
        case 14:
            CaptureOwnStream(dev);
            break;
        }
    }

    // Creates a stream, captures into it (modes that let other threads go on with their calls),
    // instantiates, launches and destroys it all.
    void CaptureOwnStream(void *dev) {
        infinirtStream_t s = nullptr;
        ASSERT_OK(infinirtStreamCreate(&s));
        const infinirtStreamCaptureMode_t mode =
            rng_() % 2 ? INFINIRT_STREAM_CAPTURE_MODE_RELAXED : INFINIRT_STREAM_CAPTURE_MODE_THREAD_LOCAL;
        ASSERT_OK(infinirtStreamBeginCapture(s, mode));
        EXPECT_OK(infinirtMemsetAsync(dev, 3, kBuffer, s));
        EXPECT_OK(infinirtMemsetAsync(dev, 4, kBuffer / 2, s));
        infinirtGraph_t graph = nullptr;
        ASSERT_OK(infinirtStreamEndCapture(s, &graph));
        infinirtGraphExec_t exec = nullptr;
        EXPECT_OK(infinirtGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
        EXPECT_OK(infinirtGraphDestroy(graph));
        if (exec != nullptr) {
            EXPECT_OK(infinirtGraphLaunch(exec, s));
            EXPECT_OK(infinirtStreamSynchronize(s));
            EXPECT_OK(infinirtGraphExecDestroy(exec));
        }
        EXPECT_OK(infinirtStreamDestroy(s));
    }

    std::mt19937 rng_;
    std::vector<Shared> &devices_;
    std::vector<void *> own_device_;
    std::vector<void *> own_host_;
};

TEST(ContractStress, SixteenThreadsRandomCalls) {
    constexpr int kThreads = 16;
    constexpr int kIterations = 300;
    std::vector<Shared> devices = SharedObjects();
    ASSERT_FALSE(devices.empty());
    Watchdog watchdog("ContractStress.SixteenThreadsRandomCalls", std::chrono::seconds(150),
                      [] { return std::string("16 threads of random calls"); });
    for (Shared &d : devices) {
        ASSERT_OK(infinirtSetDevice(d.type, d.id));
        for (int i = 0; i < 2; ++i) {
            ASSERT_OK(infinirtStreamCreate(&d.streams[i]));
            ASSERT_OK(infinirtEventCreate(&d.events[i]));
        }
        ASSERT_OK(infinirtMalloc(&d.graph_target, kBuffer));
        infinirtStream_t s = nullptr;
        ASSERT_OK(infinirtStreamCreate(&s));
        ASSERT_OK(infinirtStreamBeginCapture(s, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL));
        ASSERT_OK(infinirtMemsetAsync(d.graph_target, 9, kBuffer, s));
        infinirtGraph_t graph = nullptr;
        ASSERT_OK(infinirtStreamEndCapture(s, &graph));
        ASSERT_OK(infinirtGraphInstantiate(&d.exec, graph, nullptr, nullptr, 0));
        ASSERT_OK(infinirtGraphDestroy(graph));
        ASSERT_OK(infinirtStreamDestroy(s));
        void *probe = nullptr;
        const infiniStatus_t st = infinirtMallocAsync(&probe, 64, d.streams[0]);
        d.stream_ordered_alloc = st == INFINI_STATUS_SUCCESS;
        if (d.stream_ordered_alloc) {
            ASSERT_OK(infinirtFreeAsync(probe, d.streams[0]));
        }
    }
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] { Worker(t, devices).Run(kIterations); });
    }
    for (std::thread &t : threads) {
        t.join();
    }
    for (const Shared &d : devices) {
        ASSERT_OK(infinirtSetDevice(d.type, d.id));
        EXPECT_OK(infinirtDeviceSynchronize()) << "no capture is left open";
        for (int i = 0; i < 2; ++i) {
            EXPECT_OK(infinirtStreamDestroy(d.streams[i]));
            EXPECT_OK(infinirtEventDestroy(d.events[i]));
        }
        EXPECT_OK(infinirtGraphExecDestroy(d.exec));
        EXPECT_OK(infinirtFree(d.graph_target));
    }
}

// A capture ended (and its graph freed) by one thread while other threads submit to the
// capturing stream. Each submission is either recorded or runs after the capture ended; nothing is
// freed under it (AddressSanitizer: heap-use-after-free before the loader held captures).
// The submitters work in bursts, one per round, and the stream is drained between rounds: an
// unbounded stream of submissions fills a GPU's queue, and the driver then lets the submitters
// spin for queue space while the capturing thread starves. A watchdog fails the test, naming the
// device and round, instead of letting it hang.
TEST(ContractStress, EndCaptureWhileOtherThreadsSubmit) {
    constexpr int kRounds = 200;
    constexpr int kSubmitters = 4;
    constexpr int kBurst = 16; // per submitter and round
    std::vector<Shared> devices = SharedObjects();
    ASSERT_FALSE(devices.empty());
    std::atomic<int> where{-1}; // device index * kRounds + round, for the watchdog's message
    Watchdog watchdog("ContractStress.EndCaptureWhileOtherThreadsSubmit", std::chrono::seconds(120), [&] {
        const int w = where.load();
        const Shared &d = devices[static_cast<size_t>(w < 0 ? 0 : w / kRounds)];
        return "device type " + std::to_string(d.type) + ":" + std::to_string(d.id) + ", round " +
               std::to_string(w < 0 ? -1 : w % kRounds);
    });
    for (size_t k = 0; k < devices.size(); ++k) {
        const Shared &d = devices[k];
        SCOPED_TRACE(std::to_string(d.type) + ":" + std::to_string(d.id));
        ASSERT_OK(infinirtSetDevice(d.type, d.id));
        infinirtStream_t s = nullptr;
        ASSERT_OK(infinirtStreamCreate(&s));
        void *dev = nullptr;
        ASSERT_OK(infinirtMalloc(&dev, kBuffer));
        std::atomic<int> round{-1};
        std::atomic<int> bursts_done{0};
        std::vector<std::thread> submitters;
        for (int t = 0; t < kSubmitters; ++t) {
            submitters.emplace_back([&] {
                if (infinirtSetDevice(d.type, d.id) != INFINI_STATUS_SUCCESS) {
                    ADD_FAILURE() << "SetDevice failed in a submitter";
                    round.store(kRounds);
                }
                for (int r = 0; r < kRounds; ++r) {
                    while (round.load(std::memory_order_acquire) < r) {
                        std::this_thread::yield();
                    }
                    if (round.load(std::memory_order_acquire) >= kRounds) {
                        return; // the main thread gave up
                    }
                    for (int i = 0; i < kBurst; ++i) {
                        const infiniStatus_t st = infinirtMemsetAsync(dev, 1, kBuffer, s);
                        // cuda/hip: the driver may refuse a submission racing the end of capture.
                        EXPECT_TRUE(OneOf(st, {INFINI_STATUS_SUCCESS, INFINI_STATUS_BAD_PARAM,
                                               INFINI_STATUS_DRIVER_ERROR}))
                            << infinirtGetErrorName(st);
                    }
                    bursts_done.fetch_add(1, std::memory_order_acq_rel);
                }
            });
        }
        bool ok = true;
        for (int r = 0; r < kRounds && ok; ++r) {
            where.store(static_cast<int>(k) * kRounds + r);
            round.store(r, std::memory_order_release); // the submitters' bursts race the captures below
            do {
                const infiniStatus_t begun = infinirtStreamBeginCapture(s, INFINIRT_STREAM_CAPTURE_MODE_RELAXED);
                EXPECT_OK(begun);
                if (begun != INFINI_STATUS_SUCCESS) {
                    ok = false;
                    break;
                }
                infinirtGraph_t graph = nullptr;
                const infiniStatus_t st = infinirtStreamEndCapture(s, &graph);
                EXPECT_TRUE(OneOf(st, {INFINI_STATUS_SUCCESS, INFINI_STATUS_BAD_PARAM, INFINI_STATUS_DRIVER_ERROR}))
                    << infinirtGetErrorName(st);
                if (st == INFINI_STATUS_SUCCESS) {
                    EXPECT_OK(infinirtGraphDestroy(graph));
                }
            } while (bursts_done.load(std::memory_order_acquire) < kSubmitters * (r + 1));
            while (ok && bursts_done.load(std::memory_order_acquire) < kSubmitters * (r + 1)) {
                std::this_thread::yield();
            }
            EXPECT_OK(infinirtStreamSynchronize(s)); // no capture is open: the round's work drains
        }
        if (!ok) {
            round.store(kRounds, std::memory_order_release);
        }
        for (std::thread &t : submitters) {
            t.join();
        }
        EXPECT_OK(infinirtStreamSynchronize(s));
        EXPECT_OK(infinirtStreamDestroy(s));
        EXPECT_OK(infinirtFree(dev));
    }
}

} // namespace
