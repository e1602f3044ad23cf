// The instruction gate's driver: runs one hot entry of the public C or C++ API `kCalls` times
// inside gate_measure(), which scripts/instruction-gate.py counts with callgrind
// (--toggle-collect=gate_measure), per ELF object: the loader (libinfinirt), the plugin, the C++
// layer (libinfinicore) and the rest. Warm-up calls run outside gate_measure, so caches, lazily
// made state and the thread's records exist before counting starts.
//   infinirt-gate-hot-paths ENTRY      (ENTRY: one of the names `infinirt-gate-hot-paths --list` prints)
#include "infinicore/context/context.hpp"

#include <infinirt.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

namespace {

constexpr int kCalls = 1000;
constexpr int kWarm = 200;

[[noreturn]] void die(const char *what, infiniStatus_t st) {
    std::fprintf(stderr, "infinirt-gate-hot-paths: %s failed: %s: %s\n", what, infinirtGetErrorName(st),
                 infinirtGetLastErrorMessage());
    std::exit(1);
}
void ok(infiniStatus_t st, const char *what) {
    if (st != INFINI_STATUS_SUCCESS) {
        die(what, st);
    }
}

struct Entry {
    const char *name;
    std::function<void()> call;
};

} // namespace

// Not inlined, with C linkage: callgrind's --toggle-collect names it.
extern "C" __attribute__((noinline)) void gate_measure(const std::function<void()> &call, int n) {
    for (int i = 0; i < n; ++i) {
        call();
    }
    __asm__ volatile("" ::: "memory");
}

// The push through set_device_saving, as cuda and hip make it, runs over the thread-state stub
// (tests/loader/stubs/stub_thread_state.c, which has that entry): the environment names the stub
// before infinirt loads its plugins.
constexpr const char *kFusedPushEntry = "infinirtPushDevice+infinirtPopDevice (set_device_saving)";

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s ENTRY | --list\n", argv[0]);
        return 2;
    }
    if (std::strcmp(argv[1], kFusedPushEntry) == 0) {
        setenv("INFINIRT_PLUGINS", INFINIRT_GATE_CPU_PLUGIN ":" INFINIRT_GATE_FUSED_STUB, 1);
        setenv("INFINIRT_BACKENDS", "cpu,tsfused", 1);
        setenv("INFINICORE_DEFAULT_DEVICE", "cpu:0", 1);
    }
    ok(infinirtSetDevice(INFINI_DEVICE_CPU, 0), "infinirtSetDevice(cpu:0)");
    infinirtStream_t stream = nullptr;
    ok(infinirtStreamCreate(&stream), "infinirtStreamCreate");
    infinirtEvent_t event = nullptr;
    ok(infinirtEventCreate(&event), "infinirtEventCreate");
    void *dev = nullptr;
    void *pinned = nullptr;
    ok(infinirtMalloc(&dev, 4096), "infinirtMalloc");
    ok(infinirtMallocHost(&pinned, 4096), "infinirtMallocHost");
    std::memset(pinned, 1, 4096);
    infinirtModule_t module = nullptr;
    infinirtKernel_t kernel = nullptr;
    std::ifstream file(INFINIRT_GATE_KERNELS, std::ios::binary);
    const std::vector<char> so((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (so.empty()) {
        std::fprintf(stderr, "infinirt-gate-hot-paths: cannot read %s\n", INFINIRT_GATE_KERNELS);
        return 1;
    }
    const infinirtModuleImage_t image = {sizeof(infinirtModuleImage_t), INFINIRT_MODULE_FORMAT_HOST_SO, so.data(),
                                         so.size(), nullptr};
    ok(infinirtModuleLoad(&module, INFINI_DEVICE_CPU, 0, &image, 1, nullptr, 0), "infinirtModuleLoad");
    ok(infinirtModuleGetKernel(&kernel, module, "scale4"), "infinirtModuleGetKernel(scale4)");
    infinirtKernel_t empty = nullptr;
    ok(infinirtModuleGetKernel(&empty, module, "empty"), "infinirtModuleGetKernel(empty)");
    void *y = dev;
    void *x = static_cast<char *>(dev) + 2048;
    float a = 2.0f;
    int32_t n = 1;
    const infinirtKernelArg_t args[4] = {{INFINIRT_KERNEL_ARG_POINTER, sizeof(void *), &y},
                                         {INFINIRT_KERNEL_ARG_POINTER, sizeof(void *), &x},
                                         {INFINIRT_KERNEL_ARG_VALUE, sizeof(float), &a},
                                         {INFINIRT_KERNEL_ARG_VALUE, sizeof(int32_t), &n}};
    infinirtLaunchConfig_t config{};
    config.struct_size = sizeof config;
    config.grid[0] = config.grid[1] = config.grid[2] = 1;
    config.block[0] = config.block[1] = config.block[2] = 1;
    infiniDevice_t type = INFINI_DEVICE_CPU;
    int id = 0;
    infinirtEventStatus_t status = INFINIRT_EVENT_COMPLETE;

    const std::vector<Entry> entries = {
        {"infinirtGetDevice", [&] { infinirtGetDevice(&type, &id); }},
        {"infinirtSetDevice", [&] { infinirtSetDevice(INFINI_DEVICE_CPU, 0); }},
        {"infinirtPushDevice+infinirtPopDevice",
         [&] {
             infinirtPushDevice(INFINI_DEVICE_CPU, 0);
             infinirtPopDevice(nullptr, nullptr);
         }},
        {kFusedPushEntry,
         [&] {
             infinirtPushDevice(INFINI_DEVICE_ASCEND, 0);
             infinirtPopDevice(nullptr, nullptr);
         }},
        {"infinirtEventQuery", [&] { infinirtEventQuery(event, &status); }},
        {"infinirtStreamQuery", [&] { infinirtStreamQuery(stream); }},
        {"infinirtEventRecord", [&] { infinirtEventRecord(event, stream); }},
        {"infinirtMemsetAsync", [&] { infinirtMemsetAsync(dev, 0, 64, stream); }},
        {"infinirtMemcpyAsync", [&] { infinirtMemcpyAsync(dev, pinned, 64, INFINIRT_MEMCPY_H2D, stream); }},
        // The kind inferred from the two allocations (the fast path's records).
        {"infinirtMemcpyAsync (DEFAULT kind)",
         [&] { infinirtMemcpyAsync(dev, pinned, 64, INFINIRT_MEMCPY_DEFAULT, stream); }},
        // The current device's default stream: the stream is resolved from the thread's current device.
        {"infinirtMemcpyAsync (NULL stream)",
         [&] { infinirtMemcpyAsync(dev, pinned, 64, INFINIRT_MEMCPY_H2D, nullptr); }},
        {"infinirtMemsetAsync (NULL stream)", [&] { infinirtMemsetAsync(dev, 0, 64, nullptr); }},
        {"infinirtLaunchKernel", [&] { infinirtLaunchKernel(kernel, &config, args, 4, stream); }},
        {"infinirtLaunchKernel (no arguments)", [&] { infinirtLaunchKernel(empty, &config, nullptr, 0, stream); }},
        {"infinicore::context allocate+free",
         [&] {
             auto memory = infinicore::context::allocateMemory(512);
             __asm__ volatile("" : : "r"(memory.get()) : "memory");
         }},
        // A large block (the large pool's, above the small pool's 1 MiB): its own fast path.
        {"infinicore::context allocate+free 8 MiB",
         [&] {
             auto memory = infinicore::context::allocateMemory(size_t(8) << 20);
             __asm__ volatile("" : : "r"(memory.get()) : "memory");
         }},
    };
    if (std::strcmp(argv[1], "--list") == 0) {
        for (const Entry &e : entries) {
            std::printf("%s\n", e.name);
        }
        return 0;
    }
    for (const Entry &e : entries) {
        if (std::strcmp(argv[1], e.name) != 0) {
            continue;
        }
        if (std::strncmp(e.name, "infinicore::", 12) == 0) {
            // The caching device allocator: a device other than cpu (whose memory is the host's,
            // through the host allocator). PoCL's OpenCL device in CI.
            int opencl = 0;
            if (infinirtGetDeviceCount(INFINI_DEVICE_OPENCL, &opencl) != INFINI_STATUS_SUCCESS || opencl == 0) {
                std::printf("%s: skipped: no opencl device for the caching device allocator\n", e.name);
                return 77;
            }
            ok(infinirtSetDevice(INFINI_DEVICE_OPENCL, 0), "infinirtSetDevice(opencl:0)");
        }
        (void)infinicore::context::allocateMemory(512); // the C++ layer's runtime for the device exists
        for (int round = 0; round < 2; ++round) {
            for (int i = 0; i < kWarm; ++i) {
                e.call();
            }
            ok(infinirtStreamSynchronize(stream), "infinirtStreamSynchronize");
            ok(infinirtStreamSynchronize(nullptr), "infinirtStreamSynchronize(NULL)");
        }
        gate_measure(e.call, kCalls);
        ok(infinirtStreamSynchronize(stream), "infinirtStreamSynchronize");
        ok(infinirtStreamSynchronize(nullptr), "infinirtStreamSynchronize(NULL)");
        std::printf("%s: %d calls measured\n", e.name, kCalls);
        ok(infinirtModuleUnload(module), "infinirtModuleUnload");
        ok(infinirtFree(dev), "infinirtFree");
        ok(infinirtFreeHost(pinned), "infinirtFreeHost");
        ok(infinirtEventDestroy(event), "infinirtEventDestroy");
        ok(infinirtStreamDestroy(stream), "infinirtStreamDestroy");
        return 0;
    }
    std::fprintf(stderr, "infinirt-gate-hot-paths: unknown entry %s (--list)\n", argv[1]);
    return 2;
}
