// The soak: 16 threads for INFINIRT_SOAK_SECONDS (default 30) over two devices -- allocate, copy
// there and back (data checked), launch, capture and replay, free -- then the process's resident
// memory, each device's used memory and infinirtGetLiveAllocations must be what they were after the
// warm-up (the first quarter of the time). Prints the figures. The devices: the first two infinirt reports (run it with
// INFINIRT_CPU_DEVICE_COUNT=2 for cpu:0 and cpu:1, or INFINIRT_BACKENDS=cuda,cpu for nvidia:0 and
// cpu:0); a device whose backend takes none of the kernel images below runs everything but launches.
#include "status_assertions.h"

#include <infinirt.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

constexpr int kThreads = 16;
constexpr size_t kMaxBytes = 256 * 1024;
// Tolerances: the C library's arenas and the drivers' caches move by pages, not by what leaks.
constexpr long kRssSlackBytes = 8L << 20;
constexpr long kDeviceSlackBytes = 8L << 20;

// The empty kernel for each kind of backend that takes one of these images.
const char kEmptyPtx[] = ".version 7.0\n.target sm_50\n.address_size 64\n.visible .entry empty()\n{\n\tret;\n}\n";
const char kEmptyOpenCl[] = "kernel void empty(void) {}\n";

struct Device {
    infiniDevice_t type;
    int id;
    infinirtModule_t module = nullptr;
    infinirtKernel_t kernel = nullptr;
};

long residentBytes() {
    std::ifstream statm("/proc/self/statm");
    long pages = 0;
    long resident = 0;
    statm >> pages >> resident;
    return resident * sysconf(_SC_PAGESIZE);
}

// Used bytes of the device as its backend reports them; -1 for cpu (its figure is the machine's).
long usedBytes(const Device &d) {
    if (d.type == INFINI_DEVICE_CPU) {
        return -1;
    }
    size_t free_bytes = 0;
    size_t total = 0;
    if (infinirtGetMemInfo(d.type, d.id, &free_bytes, &total) != INFINI_STATUS_SUCCESS) {
        return -1;
    }
    return static_cast<long>(total - free_bytes);
}

// What the soak compares: the loader's live allocations, resident memory, each device's used memory.
struct Snapshot {
    size_t live_count = 0;
    size_t live_bytes = 0;
    long rss = 0;
    long used[2] = {-1, -1};
    static Snapshot Take(const std::vector<Device> &devices) {
        Snapshot s;
        EXPECT_OK(infinirtGetLiveAllocations(&s.live_count, &s.live_bytes));
        s.rss = residentBytes();
        s.used[0] = usedBytes(devices[0]);
        s.used[1] = usedBytes(devices[1]);
        return s;
    }
};

// Loads an empty kernel onto the device where its backend takes one of the images.
void loadKernel(Device &d) {
    std::vector<infinirtModuleImage_t> tries;
    std::string so;
    if (d.type == INFINI_DEVICE_CPU) {
        std::ifstream file(INFINIRT_SOAK_KERNELS_CPU, std::ios::binary);
        so.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
        tries.push_back({sizeof(infinirtModuleImage_t), INFINIRT_MODULE_FORMAT_HOST_SO, so.data(), so.size(), nullptr});
    } else {
        tries.push_back({sizeof(infinirtModuleImage_t), INFINIRT_MODULE_FORMAT_PTX, kEmptyPtx, sizeof kEmptyPtx, nullptr});
        tries.push_back(
            {sizeof(infinirtModuleImage_t), INFINIRT_MODULE_FORMAT_OPENCL_C, kEmptyOpenCl, sizeof kEmptyOpenCl, nullptr});
    }
    for (const infinirtModuleImage_t &image : tries) {
        if (infinirtModuleLoad(&d.module, d.type, d.id, &image, 1, nullptr, 0) == INFINI_STATUS_SUCCESS) {
            if (infinirtModuleGetKernel(&d.kernel, d.module, "empty") == INFINI_STATUS_SUCCESS) {
                return;
            }
            infinirtModuleUnload(d.module);
            d.module = nullptr;
        }
    }
    std::printf("soak: %d:%d takes none of the kernel images: no launches there\n", d.type, d.id);
}

// Free or FreeHost, retried while another thread's capture on the device refuses it (the
// documented contract: a free waits for the whole device, which a capture forbids).
void freeWhenNoCapture(infiniStatus_t (*free_fn)(void *), void *p) {
    for (;;) {
        const infiniStatus_t st = free_fn(p);
        if (st != INFINI_STATUS_BAD_PARAM || std::strstr(infinirtGetLastErrorMessage(), "capturing") == nullptr) {
            EXPECT_OK(st);
            return;
        }
        std::this_thread::yield();
    }
}

class Worker {
public:
    Worker(int index, std::vector<Device> &devices) : rng_(1234u + static_cast<uint32_t>(index)), devices_(devices) {}

    // One round on every device; false once a failure was reported.
    bool Round() {
        for (Device &d : devices_) {
            if (!OneDevice(d)) {
                return false;
            }
        }
        return true;
    }

private:
    bool OneDevice(const Device &d) {
        if (infinirtSetDevice(d.type, d.id) != INFINI_STATUS_SUCCESS) {
            ADD_FAILURE() << "SetDevice: " << infinirtGetLastErrorMessage();
            return false;
        }
        const size_t bytes = 1 + rng_() % kMaxBytes;
        const unsigned char pattern = static_cast<unsigned char>(rng_());
        infinirtStream_t s = nullptr;
        void *dev = nullptr;
        void *host = nullptr;
        EXPECT_OK(infinirtStreamCreate(&s));
        EXPECT_OK(infinirtMalloc(&dev, bytes));
        EXPECT_OK(infinirtMallocHost(&host, bytes));
        if (::testing::Test::HasFailure()) {
            return false;
        }
        std::memset(host, pattern, bytes);
        EXPECT_OK(infinirtMemcpyAsync(dev, host, bytes, INFINIRT_MEMCPY_H2D, s));
        infinirtLaunchConfig_t config{};
        config.struct_size = sizeof config;
        config.grid[0] = config.grid[1] = config.grid[2] = 1;
        config.block[0] = config.block[1] = config.block[2] = 1;
        if (d.kernel != nullptr) {
            EXPECT_OK(infinirtLaunchKernel(d.kernel, &config, nullptr, 0, s));
        }
        // A capture of a memset (and a launch), replayed: the replay's bytes come back.
        EXPECT_OK(infinirtStreamSynchronize(s));
        EXPECT_OK(infinirtStreamBeginCapture(s, INFINIRT_STREAM_CAPTURE_MODE_THREAD_LOCAL));
        EXPECT_OK(infinirtMemsetAsync(dev, pattern ^ 0x5a, bytes, s));
        if (d.kernel != nullptr) {
            EXPECT_OK(infinirtLaunchKernel(d.kernel, &config, nullptr, 0, s));
        }
        infinirtGraph_t graph = nullptr;
        infinirtGraphExec_t exec = nullptr;
        EXPECT_OK(infinirtStreamEndCapture(s, &graph));
        EXPECT_OK(infinirtGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
        EXPECT_OK(infinirtGraphDestroy(graph));
        EXPECT_OK(infinirtGraphLaunch(exec, s));
        EXPECT_OK(infinirtMemcpyAsync(host, dev, bytes, INFINIRT_MEMCPY_D2H, s));
        EXPECT_OK(infinirtStreamSynchronize(s));
        EXPECT_OK(infinirtGraphExecDestroy(exec));
        const unsigned char *back = static_cast<const unsigned char *>(host);
        EXPECT_TRUE(back[0] == (pattern ^ 0x5a) && back[bytes - 1] == (pattern ^ 0x5a))
            << "the replayed memset's bytes did not come back on " << d.type << ":" << d.id;
        EXPECT_OK(infinirtStreamDestroy(s));
        freeWhenNoCapture(infinirtFree, dev);
        freeWhenNoCapture(infinirtFreeHost, host);
        return !::testing::Test::HasFailure();
    }

    std::mt19937 rng_;
    std::vector<Device> &devices_;
};

TEST(Soak, MemoryIsFlatAfterWarmUp) {
    const char *env = std::getenv("INFINIRT_SOAK_SECONDS");
    const int seconds = env != nullptr ? std::atoi(env) : 30;
    int counts[INFINI_DEVICE_TYPE_COUNT] = {};
    ASSERT_OK(infinirtGetAllDeviceCountSized(counts, INFINI_DEVICE_TYPE_COUNT));
    std::vector<Device> devices;
    // Accelerators first (the run's subject), then cpu.
    for (int pass = 0; pass < 2 && devices.size() < 2; ++pass) {
        for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT && devices.size() < 2; ++t) {
            if ((t == INFINI_DEVICE_CPU) != (pass == 1)) {
                continue;
            }
            for (int id = 0; id < counts[t] && devices.size() < 2; ++id) {
                devices.push_back({static_cast<infiniDevice_t>(t), id});
            }
        }
    }
    ASSERT_EQ(devices.size(), 2u) << "the soak needs two devices (INFINIRT_CPU_DEVICE_COUNT=2)";
    for (Device &d : devices) {
        loadKernel(d);
    }
    std::vector<Worker> workers;
    for (int t = 0; t < kThreads; ++t) {
        workers.emplace_back(t, devices);
    }
    auto all = [&](const std::function<bool(Worker &)> &body) {
        std::vector<std::thread> threads;
        std::atomic<int> failed{0};
        for (Worker &w : workers) {
            threads.emplace_back([&] {
                if (!body(w)) {
                    failed.fetch_add(1);
                }
            });
        }
        for (std::thread &t : threads) {
            t.join();
        }
        return failed.load() == 0;
    };
    // Warm-up: every thread on every device, for the first quarter of the time (pools, caches,
    // per-thread state and the C library's per-thread arenas reach their working size).
    const auto begun = std::chrono::steady_clock::now();
    const auto warmed = begun + std::chrono::milliseconds(seconds * 250);
    ASSERT_TRUE(all([&](Worker &w) {
        do {
            if (!w.Round()) {
                return false;
            }
        } while (std::chrono::steady_clock::now() < warmed);
        return true;
    }));
    const Snapshot start = Snapshot::Take(devices);

    const auto deadline = begun + std::chrono::seconds(seconds);
    std::atomic<long> rounds{0};
    ASSERT_TRUE(all([&](Worker &w) {
        while (std::chrono::steady_clock::now() < deadline) {
            if (!w.Round()) {
                return false;
            }
            rounds.fetch_add(1);
        }
        return true;
    }));

    const Snapshot end = Snapshot::Take(devices);
    std::printf("soak: %d threads, %d s, %ld rounds over %d:%d and %d:%d\n", kThreads, seconds, rounds.load(),
                devices[0].type, devices[0].id, devices[1].type, devices[1].id);
    std::printf("soak: live allocations %zu blocks / %zu bytes after warm-up, %zu / %zu at the end\n", start.live_count,
                start.live_bytes, end.live_count, end.live_bytes);
    std::printf("soak: resident memory %.1f MiB after warm-up, %.1f MiB at the end\n", start.rss / 1048576.0,
                end.rss / 1048576.0);
    for (int i = 0; i < 2; ++i) {
        if (start.used[i] >= 0) {
            std::printf("soak: %d:%d used memory %.1f MiB after warm-up, %.1f MiB at the end\n", devices[i].type,
                        devices[i].id, start.used[i] / 1048576.0, end.used[i] / 1048576.0);
            EXPECT_LE(end.used[i] - start.used[i], kDeviceSlackBytes)
                << "device memory grew on " << devices[i].type << ":" << devices[i].id;
        }
    }
    EXPECT_GT(rounds.load(), 0);
    EXPECT_EQ(end.live_count, start.live_count) << "live allocations grew";
    EXPECT_EQ(end.live_bytes, start.live_bytes) << "live allocation bytes grew";
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    // A sanitizer's quarantine holds freed memory (256 MiB by default under ASan): resident memory
    // is not the program's here; the live allocations above still are.
    std::printf("soak: resident memory not judged under a sanitizer\n");
#else
    EXPECT_LE(end.rss - start.rss, kRssSlackBytes) << "resident memory grew";
#endif
    for (Device &d : devices) {
        if (d.module != nullptr) {
            EXPECT_OK(infinirtModuleUnload(d.module));
        }
    }
}

} // namespace
