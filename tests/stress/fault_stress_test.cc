// The 16-thread stress under fault injection (INFINIRT_FAULT_INJECT, set by the ctest entry):
// plugin entries fail at random mid-flight while 16 threads use the C ABI and the C++ layer's
// allocators on every device. Every failure must reach the caller as a status (with the injected
// detail) or an infinicore::Error; nothing crashes or hangs; at the end the caching allocators'
// statistics balance to zero, the loader's allocation record is empty, and the release-and-retry
// path of the caching allocator ran (when malloc_device fails).
#include "status_assertions.h"

#include <infinicore/context/context.hpp>
#include <infinirt.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using infinicore::Device;
namespace ctx = infinicore::context;

// The entries that fail, unless INFINIRT_FAULT_INJECT says otherwise (set before the first
// infinirt call, which reads it). Frees and destroys are left alone: a failed free leaks by
// definition.
const char *const kDefaultSpec =
    "malloc_device:0.05,malloc_host:0.05,malloc_async:0.05,event_create:0.02,event_record:0.01,stream_create:0.02,"
    "stream_wait_event:0.01,memcpy_sync:0.01,memcpy_async:0.01,memset_async:0.01,seed=16";

std::string FaultSpec() {
    setenv("INFINIRT_FAULT_INJECT", kDefaultSpec, 0);
    return std::getenv("INFINIRT_FAULT_INJECT");
}

struct Target {
    infiniDevice_t type;
    int id;
};

std::vector<Target> AllDevices() {
    std::vector<Target> out;
    int counts[INFINI_DEVICE_TYPE_COUNT] = {};
    if (infinirtGetAllDeviceCountSized(counts, INFINI_DEVICE_TYPE_COUNT) == INFINI_STATUS_SUCCESS) {
        for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
            for (int id = 0; id < counts[t]; ++id) {
                out.push_back(Target{static_cast<infiniDevice_t>(t), id});
            }
        }
    }
    return out;
}

Device::Type CoreType(infiniDevice_t t) { return static_cast<Device::Type>(t); }

std::atomic<long> g_injected{0};
std::atomic<long> g_calls{0};

// SUCCESS, or a failure the injection explains: the plugin's entry failed, or the call needed
// something an injected failure took away (OUT_OF_MEMORY after a failed allocation).
bool Ok(infiniStatus_t st, const char *call) {
    g_calls.fetch_add(1, std::memory_order_relaxed);
    if (st == INFINI_STATUS_SUCCESS) {
        return true;
    }
    const std::string message = infinirtGetLastErrorMessage();
    EXPECT_TRUE(st == INFINI_STATUS_OUT_OF_MEMORY || st == INFINI_STATUS_DRIVER_ERROR)
        << call << ": " << infinirtGetErrorName(st) << ": " << message;
    EXPECT_NE(message.find("injected by INFINIRT_FAULT_INJECT"), std::string::npos) << call << ": " << message;
    g_injected.fetch_add(1, std::memory_order_relaxed);
    return false;
}

// The same for the C++ layer: an Error whose text carries the injected detail.
template <typename Body> bool CoreOk(const char *call, Body body) {
    g_calls.fetch_add(1, std::memory_order_relaxed);
    try {
        body();
        return true;
    } catch (const infinicore::Error &e) {
        const std::string what = e.what();
        EXPECT_TRUE(what.find("injected by INFINIRT_FAULT_INJECT") != std::string::npos ||
                    e.status() == INFINI_STATUS_OUT_OF_MEMORY)
            << call << ": " << what;
        g_injected.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
}

class Worker {
public:
    Worker(int index, const std::vector<Target> &devices) : rng_(777u + static_cast<uint32_t>(index)), devices_(devices) {}

    void Run(int iterations) {
        for (int i = 0; i < iterations && !::testing::Test::HasFatalFailure(); ++i) {
            const Target &d = devices_[rng_() % devices_.size()];
            ASSERT_OK(infinirtSetDevice(d.type, d.id));
            switch (rng_() % 6) {
            case 0: MallocCopyFree(); break;
            case 1: StreamWork(); break;
            case 2: Events(); break;
            case 3: StreamOrdered(); break;
            case 4: CachingAllocator(d); break;
            case 5: PinnedCopy(); break;
            }
        }
        kept_.clear(); // the C++ layer's blocks go back to their allocators
    }

private:
    size_t Size() { return 1 + rng_() % (256 * 1024); }

    void MallocCopyFree() {
        const size_t size = Size();
        std::vector<uint8_t> src(size, static_cast<uint8_t>(rng_())), back(size);
        void *d = nullptr;
        if (!Ok(infinirtMalloc(&d, size), "Malloc")) {
            EXPECT_EQ(d, nullptr);
            return;
        }
        if (Ok(infinirtMemcpy(d, src.data(), size, INFINIRT_MEMCPY_H2D), "Memcpy H2D") &&
            Ok(infinirtMemcpy(back.data(), d, size, INFINIRT_MEMCPY_D2H), "Memcpy D2H")) {
            EXPECT_EQ(back, src);
        }
        EXPECT_OK(infinirtFree(d));
    }

    void StreamWork() {
        infinirtStream_t s = nullptr;
        if (!Ok(infinirtStreamCreate(&s), "StreamCreate")) {
            return;
        }
        const size_t size = Size();
        void *d = nullptr;
        if (Ok(infinirtMalloc(&d, size), "Malloc")) {
            std::vector<uint8_t> back(size, 1);
            if (Ok(infinirtMemsetAsync(d, 0x5a, size, s), "MemsetAsync") &&
                Ok(infinirtMemcpyAsync(back.data(), d, size, INFINIRT_MEMCPY_D2H, s), "MemcpyAsync")) {
                EXPECT_OK(infinirtStreamSynchronize(s));
                EXPECT_EQ(back, std::vector<uint8_t>(size, 0x5a));
            }
            EXPECT_OK(infinirtStreamSynchronize(s));
            EXPECT_OK(infinirtFree(d));
        }
        EXPECT_OK(infinirtStreamDestroy(s));
    }

    void Events() {
        infinirtEvent_t e = nullptr;
        if (!Ok(infinirtEventCreate(&e), "EventCreate")) {
            return;
        }
        if (Ok(infinirtEventRecord(e, nullptr), "EventRecord")) {
            Ok(infinirtStreamWaitEvent(nullptr, e), "StreamWaitEvent");
            EXPECT_OK(infinirtEventSynchronize(e));
        }
        EXPECT_OK(infinirtEventDestroy(e));
    }

    void StreamOrdered() {
        void *p = nullptr;
        if (Ok(infinirtMallocAsync(&p, Size(), nullptr), "MallocAsync")) {
            EXPECT_OK(infinirtFreeAsync(p, nullptr));
        }
    }

    void CachingAllocator(const Target &d) {
        CoreOk("setDevice", [&] { ctx::setDevice(Device(CoreType(d.type), d.id)); });
        std::shared_ptr<infinicore::Memory> m;
        const size_t size = Size() * (1 + rng_() % 8);
        if (!CoreOk("allocateMemory", [&] { m = ctx::allocateMemory(size); })) {
            return;
        }
        std::vector<uint8_t> src(size, static_cast<uint8_t>(rng_())), back(size);
        if (CoreOk("memcpyH2D", [&] { ctx::memcpyH2D(m->data(), src.data(), size); }) &&
            CoreOk("memcpyD2H", [&] { ctx::memcpyD2H(back.data(), m->data(), size); })) {
            EXPECT_EQ(back, src);
        }
        if (rng_() % 3 == 0) {
            kept_.push_back(m); // some blocks live on, so the cache has to be released for others
            if (kept_.size() > 8) {
                kept_.erase(kept_.begin());
            }
        }
    }

    void PinnedCopy() {
        void *h = nullptr;
        if (!Ok(infinirtMallocHost(&h, 4096), "MallocHost")) {
            return;
        }
        void *d = nullptr;
        if (Ok(infinirtMalloc(&d, 4096), "Malloc")) {
            std::memset(h, 3, 4096);
            if (Ok(infinirtMemcpyAsync(d, h, 4096, INFINIRT_MEMCPY_H2D, nullptr), "MemcpyAsync")) {
                EXPECT_OK(infinirtDeviceSynchronize());
            }
            EXPECT_OK(infinirtDeviceSynchronize());
            EXPECT_OK(infinirtFree(d));
        }
        EXPECT_OK(infinirtFreeHost(h));
    }

    std::mt19937 rng_;
    const std::vector<Target> &devices_;
    std::vector<std::shared_ptr<infinicore::Memory>> kept_;
};

TEST(FaultStress, SixteenThreadsRunToTheEndAndEverythingBalances) {
    const std::string spec = FaultSpec();
    const std::vector<Target> devices = AllDevices();
    ASSERT_FALSE(devices.empty());
    const int iterations = std::getenv("INFINIRT_FAULT_ITERATIONS") ? std::atoi(std::getenv("INFINIRT_FAULT_ITERATIONS")) : 150;
    std::vector<std::thread> threads;
    for (int i = 0; i < 16; ++i) {
        threads.emplace_back([&, i] { Worker(i, devices).Run(iterations); });
    }
    for (std::thread &t : threads) {
        t.join();
    }
    // Then one thread makes the caching allocator of each device (not cpu: the C++ layer gives
    // cpu devices plain host memory) grow 200 times, its cache emptied before each: with
    // malloc_device failing at 5%, some growth fails, and the allocator releases its cache and
    // retries.
    bool caching = false;
    for (const Target &d : devices) {
        if (d.type == INFINI_DEVICE_CPU || !CoreOk("setDevice", [&] { ctx::setDevice(Device(CoreType(d.type), d.id)); })) {
            continue;
        }
        caching = true;
        for (size_t i = 0; i < 200; ++i) {
            CoreOk("trimMemory", [] { ctx::trimMemory(); });
            CoreOk("allocateMemory", [&] { ctx::allocateMemory((1u << 20) + i * 8192); });
        }
    }
    // Give every cached block back; then nothing may be held or reserved anywhere.
    CoreOk("trimMemory", [] { ctx::trimMemory(); });
    uint64_t retries = 0;
    for (const Target &d : devices) {
        const Device device(CoreType(d.type), d.id);
        if (!ctx::hasRuntime(device)) {
            continue;
        }
        const infinicore::MemoryStats s = ctx::memoryStats(device);
        EXPECT_EQ(s.allocated_bytes.current, 0) << d.type << ":" << d.id;
        EXPECT_EQ(s.allocations.current, 0) << d.type << ":" << d.id;
        EXPECT_EQ(s.active_bytes.current, 0) << d.type << ":" << d.id;
        EXPECT_EQ(s.reserved_bytes.current, 0) << d.type << ":" << d.id;
        EXPECT_EQ(s.segments.current, 0) << d.type << ":" << d.id;
        EXPECT_EQ(s.num_allocs, s.num_frees) << d.type << ":" << d.id;
        EXPECT_EQ(s.num_device_allocs, s.num_device_frees) << d.type << ":" << d.id;
        retries += s.num_alloc_retries;
    }
    size_t count = 1;
    size_t bytes = 1;
    ASSERT_OK(infinirtGetLiveAllocations(&count, &bytes));
    EXPECT_EQ(count, 0u) << bytes << " bytes";
    EXPECT_GT(g_injected.load(), 0) << "no failure was injected in " << g_calls.load() << " calls";
    if (caching && spec.find("malloc_device:") != std::string::npos) {
        EXPECT_GT(retries, 0u) << "the caching allocators never released their cache and retried";
    }
    std::printf("fault stress: %ld calls, %ld failures surfaced, %llu allocator retries (%s)\n", g_calls.load(),
                g_injected.load(), static_cast<unsigned long long>(retries), spec.c_str());
}

} // namespace
