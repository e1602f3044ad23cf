/*
 * register_bench - pinning memory the program already has against allocating pinned memory, on
 * the first non-cpu device infinirt finds (cpu:0 when there is none: the smoke run in CI):
 *  - time to pin: first touch of `size` bytes of ordinary memory plus infinirtHostRegister (and
 *    each alone), against infinirtMallocHost of `size` bytes (the ratio > 1x: registering is
 *    faster);
 *  - H2D bandwidth of infinirtMemcpyAsync from the registered memory against the same copy from
 *    the infinirtMallocHost memory, into one infinirtMalloc buffer (the goal: >= 0.95 of pinned).
 * Each figure is the median of `reps` runs; the two copies alternate (ABBA). Prints the figures
 * on lines starting with "registration"; never fails on timing. Where the backend cannot pin
 * (NOT_IMPLEMENTED) it says why and exits 0.
 * Usage: register_bench [--size-mib N] [--reps R]   (defaults: 1024 MiB, 5 runs)
 */
#include <infinirt.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <sys/mman.h>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

bool check(infiniStatus_t status, const char *what) {
    if (status != INFINI_STATUS_SUCCESS) {
        std::fprintf(stderr, "%s failed: %s: %s\n", what, infinirtGetErrorName(status), infinirtGetLastErrorMessage());
        std::exit(1);
    }
    return true;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

double seconds(const std::function<void()> &work) {
    const auto t0 = Clock::now();
    work();
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Fresh pages from the kernel, as a program's own buffer would be: nothing touched yet.
void *freshPages(size_t size) {
    void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        std::perror("mmap");
        std::exit(1);
    }
    return p;
}

void firstTouch(void *p, size_t size) { std::memset(p, 1, size); }

struct Device {
    infiniDevice_t type = INFINI_DEVICE_CPU;
    int id = 0;
};

Device pickDevice() {
    int counts[INFINI_DEVICE_TYPE_COUNT] = {};
    if (infinirtGetAllDeviceCountSized(counts, INFINI_DEVICE_TYPE_COUNT) == INFINI_STATUS_SUCCESS) {
        for (int t = 1; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
            if (counts[t] > 0) {
                return {static_cast<infiniDevice_t>(t), 0};
            }
        }
    }
    return {};
}

std::string typeName(infiniDevice_t type) {
    switch (type) {
    case INFINI_DEVICE_CPU: return "cpu";
    case INFINI_DEVICE_NVIDIA: return "nvidia";
    case INFINI_DEVICE_AMD: return "amd";
    case INFINI_DEVICE_OPENCL: return "opencl";
    case INFINI_DEVICE_VULKAN: return "vulkan";
    default: return "device type " + std::to_string(static_cast<int>(type));
    }
}

} // namespace

int main(int argc, char **argv) {
    size_t size_mib = 1024;
    int reps = 5;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--size-mib") == 0 && i + 1 < argc) {
            size_mib = std::strtoull(argv[++i], nullptr, 10);
        } else if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = std::atoi(argv[++i]);
        } else {
            std::fprintf(stderr, "usage: %s [--size-mib N] [--reps R]\n", argv[0]);
            return 2;
        }
    }
    if (size_mib == 0 || reps < 1) {
        std::fprintf(stderr, "--size-mib and --reps must be at least 1\n");
        return 2;
    }
    const size_t size = size_mib << 20;
    const Device device = pickDevice();
    check(infinirtSetDevice(device.type, device.id), "infinirtSetDevice");
    std::printf("register_bench on %s:%d, %zu MiB, median of %d\n", typeName(device.type).c_str(), device.id, size_mib, reps);

    // ---- time to pin ----
    std::vector<double> touch_s, register_s, unregister_s, mallochost_s, freehost_s;
    for (int r = 0; r < reps; ++r) {
        void *mine = freshPages(size);
        touch_s.push_back(seconds([&] { firstTouch(mine, size); }));
        const auto t0 = Clock::now();
        const infiniStatus_t status = infinirtHostRegister(device.type, device.id, mine, size, 0);
        if (status == INFINI_STATUS_NOT_IMPLEMENTED) {
            std::printf("registration skipped: %s cannot pin host memory: %s\n", typeName(device.type).c_str(),
                        infinirtGetLastErrorMessage());
            munmap(mine, size);
            return 0;
        }
        check(status, "infinirtHostRegister");
        register_s.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
        unregister_s.push_back(seconds([&] { check(infinirtHostUnregister(mine), "infinirtHostUnregister"); }));
        munmap(mine, size);

        void *pinned = nullptr;
        mallochost_s.push_back(seconds([&] { check(infinirtMallocHost(&pinned, size), "infinirtMallocHost"); }));
        freehost_s.push_back(seconds([&] { check(infinirtFreeHost(pinned), "infinirtFreeHost"); }));
    }
    const double touch = median(touch_s) * 1e3, reg = median(register_s) * 1e3, host = median(mallochost_s) * 1e3;
    std::printf("  first touch %.3f ms, infinirtHostRegister %.3f ms, infinirtHostUnregister %.3f ms\n", touch, reg,
                median(unregister_s) * 1e3);
    std::printf("  infinirtMallocHost %.3f ms, infinirtFreeHost %.3f ms\n", host, median(freehost_s) * 1e3);
    std::printf("registration %zuMiB: first-touch+register %.3f ms, register %.3f ms, infinirtMallocHost %.3f ms "
                "(%.2fx)\n",
                size_mib, touch + reg, reg, host, touch + reg > 0 ? host / (touch + reg) : 0.0);

    // ---- H2D from registered memory against pinned memory ----
    void *mine = freshPages(size);
    firstTouch(mine, size);
    check(infinirtHostRegister(device.type, device.id, mine, size, 0), "infinirtHostRegister");
    void *pinned = nullptr, *dst = nullptr;
    check(infinirtMallocHost(&pinned, size), "infinirtMallocHost");
    std::memset(pinned, 2, size);
    check(infinirtMalloc(&dst, size), "infinirtMalloc");
    infinirtStream_t stream = nullptr;
    check(infinirtStreamCreate(&stream), "infinirtStreamCreate");
    auto copyFrom = [&](const void *src) {
        return seconds([&] {
            check(infinirtMemcpyAsync(dst, src, size, INFINIRT_MEMCPY_H2D, stream), "infinirtMemcpyAsync");
            check(infinirtStreamSynchronize(stream), "infinirtStreamSynchronize");
        });
    };
    copyFrom(mine);
    copyFrom(pinned);
    std::vector<double> registered_s, pinned_s;
    for (int r = 0; r < reps; ++r) {
        if (r % 2 == 0) {
            registered_s.push_back(copyFrom(mine));
            pinned_s.push_back(copyFrom(pinned));
        } else {
            pinned_s.push_back(copyFrom(pinned));
            registered_s.push_back(copyFrom(mine));
        }
    }
    const double registered_gbps = size / median(registered_s) / 1e9, pinned_gbps = size / median(pinned_s) / 1e9;
    const double ratio = registered_gbps / pinned_gbps;
    std::printf("registration H2D %zuMiB: registered %.2f GB/s, pinned %.2f GB/s, ratio %.3f, goal >= 0.95 %s\n",
                size_mib, registered_gbps, pinned_gbps, ratio, ratio >= 0.95 ? "met" : "MISSED");
    check(infinirtStreamDestroy(stream), "infinirtStreamDestroy");
    check(infinirtFree(dst), "infinirtFree");
    check(infinirtFreeHost(pinned), "infinirtFreeHost");
    check(infinirtHostUnregister(mine), "infinirtHostUnregister");
    munmap(mine, size);
    return 0;
}
