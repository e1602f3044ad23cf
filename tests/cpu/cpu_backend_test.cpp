// The cpu backend's modules and kernel launch, through the public C API: host shared objects
// loaded from memory, blocks run in parallel on the device's worker pool, LOCAL arguments in the
// per-worker scratch, kernel failures reported by the next synchronising call, unloading while
// launches are queued, and the refusals of module_load / module_get_kernel / module_get_global.
// Run with INFINIRT_BACKENDS=cpu and INFINIRT_CPU_WORKERS=4 (tests/cpu/CMakeLists.txt).
#include "infinirt.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Packet {
    int32_t tag;
    alignas(16) float v[4];
};
static_assert(sizeof(Packet) == 32, "the kernel's layout of Packet");

std::string lastError() {
    const char *message = infinirtGetLastErrorMessage();
    return message != nullptr ? message : "";
}

#define ASSERT_OK(call) ASSERT_EQ((call), INFINI_STATUS_SUCCESS) << #call << ": " << lastError()
#define EXPECT_OK(call) EXPECT_EQ((call), INFINI_STATUS_SUCCESS) << #call << ": " << lastError()

std::vector<char> readFile(const char *path) {
    std::ifstream f(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

infinirtKernelArg_t pointer(void *const *holder) {
    return infinirtKernelArg_t{INFINIRT_KERNEL_ARG_POINTER, sizeof(void *), holder};
}
template <class T>
infinirtKernelArg_t value(const T *v) {
    return infinirtKernelArg_t{INFINIRT_KERNEL_ARG_VALUE, sizeof(T), v};
}
infinirtKernelArg_t local(size_t bytes) {
    return infinirtKernelArg_t{INFINIRT_KERNEL_ARG_LOCAL, bytes, nullptr};
}

infinirtLaunchConfig_t config(uint32_t gx, uint32_t bx = 1, uint32_t gy = 1, uint32_t gz = 1) {
    infinirtLaunchConfig_t c{};
    c.struct_size = sizeof c;
    c.grid[0] = gx;
    c.grid[1] = gy;
    c.grid[2] = gz;
    c.block[0] = bx;
    c.block[1] = 1;
    c.block[2] = 1;
    return c;
}

class CpuKernels : public ::testing::Test {
protected:
    void SetUp() override {
        image_ = readFile(CPU_TEST_KERNELS_PATH);
        ASSERT_FALSE(image_.empty()) << CPU_TEST_KERNELS_PATH;
        ASSERT_OK(infinirtSetDevice(INFINI_DEVICE_CPU, 0));
        ASSERT_OK(infinirtStreamCreate(&stream_));
        module_ = load();
        ASSERT_NE(module_, nullptr);
    }
    void TearDown() override {
        if (module_ != nullptr) {
            EXPECT_OK(infinirtModuleUnload(module_));
        }
        if (stream_ != nullptr) {
            EXPECT_OK(infinirtStreamDestroy(stream_));
        }
    }

    infinirtModuleImage_t image(infinirtModuleFormat_t format = INFINIRT_MODULE_FORMAT_HOST_SO) const {
        infinirtModuleImage_t img{};
        img.struct_size = sizeof img;
        img.format = format;
        img.data = image_.data();
        img.size = image_.size();
        img.options = nullptr;
        return img;
    }

    infinirtModule_t load() {
        infinirtModuleImage_t img = image();
        char log[256];
        std::memset(log, 'x', sizeof log);
        infinirtModule_t module = nullptr;
        EXPECT_OK(infinirtModuleLoad(&module, INFINI_DEVICE_CPU, 0, &img, 1, log, sizeof log));
        EXPECT_STREQ(log, "") << "the log of a successful load is empty";
        return module;
    }

    infinirtKernel_t kernel(const char *name, infinirtModule_t module = nullptr) {
        infinirtKernel_t k = nullptr;
        EXPECT_OK(infinirtModuleGetKernel(&k, module != nullptr ? module : module_, name));
        return k;
    }

    template <class T>
    T *deviceArray(size_t n) {
        void *p = nullptr;
        EXPECT_OK(infinirtMalloc(&p, n * sizeof(T)));
        buffers_.emplace_back(p);
        return static_cast<T *>(p);
    }

    std::vector<char> image_;
    infinirtStream_t stream_ = nullptr;
    infinirtModule_t module_ = nullptr;

    struct Buffer {
        explicit Buffer(void *p) : ptr(p) {}
        Buffer(Buffer &&other) noexcept : ptr(other.ptr) { other.ptr = nullptr; }
        Buffer(const Buffer &) = delete;
        ~Buffer() {
            if (ptr != nullptr) {
                infinirtFree(ptr);
            }
        }
        void *ptr;
    };
    std::vector<Buffer> buffers_;
};

TEST_F(CpuKernels, VectorAddOverManyBlocks) {
    infinirtKernel_t k = kernel("vector_add");
    const int32_t n = 100000;
    float *a = deviceArray<float>(n);
    float *b = deviceArray<float>(n);
    float *c = deviceArray<float>(n);
    for (int32_t i = 0; i < n; ++i) {
        a[i] = static_cast<float>(i);
        b[i] = 0.5f * static_cast<float>(i);
        c[i] = -1.0f;
    }
    const infinirtKernelArg_t args[] = {pointer(reinterpret_cast<void *const *>(&a)),
                                        pointer(reinterpret_cast<void *const *>(&b)),
                                        pointer(reinterpret_cast<void *const *>(&c)), value(&n)};
    const infinirtLaunchConfig_t cfg = config((n + 127) / 128, 128);
    ASSERT_OK(infinirtLaunchKernel(k, &cfg, args, 4, stream_));
    ASSERT_OK(infinirtStreamSynchronize(stream_));
    for (int32_t i = 0; i < n; ++i) {
        ASSERT_FLOAT_EQ(c[i], 1.5f * static_cast<float>(i)) << "at " << i;
    }
}

TEST_F(CpuKernels, BlocksRunOnSeveralWorkers) {
    const char *workers = std::getenv("INFINIRT_CPU_WORKERS");
    if (workers != nullptr ? std::atoi(workers) < 2 : std::thread::hardware_concurrency() < 2) {
        GTEST_SKIP() << "one kernel worker: run with INFINIRT_CPU_WORKERS=4";
    }
    infinirtKernel_t k = kernel("rendezvous");
    const uint32_t blocks = 64;
    int32_t *worker_of_block = deviceArray<int32_t>(blocks);
    int32_t *seen = deviceArray<int32_t>(4097); // a flag per worker (at most 4096), then "gave up"
    std::memset(seen, 0, 4097 * sizeof(int32_t));
    for (uint32_t i = 0; i < blocks; ++i) {
        worker_of_block[i] = -1;
    }
    const infinirtKernelArg_t args[] = {pointer(reinterpret_cast<void *const *>(&worker_of_block)),
                                        pointer(reinterpret_cast<void *const *>(&seen))};
    const infinirtLaunchConfig_t cfg = config(blocks);
    ASSERT_OK(infinirtLaunchKernel(k, &cfg, args, 2, stream_));
    ASSERT_OK(infinirtStreamSynchronize(stream_));
    std::set<int32_t> distinct;
    for (uint32_t i = 0; i < blocks; ++i) {
        ASSERT_GE(worker_of_block[i], 0) << "block " << i << " did not run";
        distinct.insert(worker_of_block[i]);
    }
    EXPECT_GE(distinct.size(), 2u) << "every block ran on worker " << *distinct.begin();
    if (workers != nullptr && std::atoi(workers) == 4) {
        EXPECT_LT(*distinct.rbegin(), 4) << "worker indices are below INFINIRT_CPU_WORKERS";
    }
}

TEST_F(CpuKernels, BlockIdsCoverA3DGrid) {
    infinirtKernel_t k = kernel("block_ids");
    // Small grids, and a large one whose blocks are handed out in chunks.
    const uint32_t grids[][3] = {{1, 1, 1}, {5, 3, 2}, {1000, 3, 2}, {7, 1, 300}};
    for (const auto &g : grids) {
        const size_t count = size_t{g[0]} * g[1] * g[2];
        int32_t *out = deviceArray<int32_t>(count);
        std::memset(out, 0xff, count * sizeof(int32_t));
        const infinirtKernelArg_t args[] = {pointer(reinterpret_cast<void *const *>(&out))};
        const infinirtLaunchConfig_t cfg = config(g[0], 1, g[1], g[2]);
        ASSERT_OK(infinirtLaunchKernel(k, &cfg, args, 1, stream_));
        ASSERT_OK(infinirtStreamSynchronize(stream_));
        for (uint32_t z = 0; z < g[2]; ++z) {
            for (uint32_t y = 0; y < g[1]; ++y) {
                for (uint32_t x = 0; x < g[0]; ++x) {
                    const size_t linear = (size_t{z} * g[1] + y) * g[0] + x;
                    ASSERT_EQ(out[linear], static_cast<int32_t>(x | y << 10 | z << 20))
                        << "block (" << x << "," << y << "," << z << ") of grid " << g[0] << "x" << g[1] << "x" << g[2];
                }
            }
        }
    }
}

TEST_F(CpuKernels, LocalArgumentsPointInsideSharedAnd16Aligned) {
    infinirtKernel_t k = kernel("local_layout");
    int64_t *out = deviceArray<int64_t>(9);
    std::memset(out, 0, 9 * sizeof(int64_t));
    out[0] = 40; // size of LOCAL a
    out[1] = 24; // size of LOCAL b
    const infinirtKernelArg_t args[] = {pointer(reinterpret_cast<void *const *>(&out)), local(40), local(24)};
    infinirtLaunchConfig_t cfg = config(16);
    cfg.dynamic_shared_bytes = 100;
    ASSERT_OK(infinirtLaunchKernel(k, &cfg, args, 3, stream_));
    ASSERT_OK(infinirtStreamSynchronize(stream_));
    // After the dynamic part (100 -> 112), each LOCAL 16-aligned: a at 112, b at 160 (152 -> 160).
    EXPECT_EQ(out[2], 112);
    EXPECT_EQ(out[3], 1) << "LOCAL a is 16-aligned";
    EXPECT_EQ(out[4], 1) << "LOCAL a lies inside launch->shared";
    EXPECT_EQ(out[5], 160);
    EXPECT_EQ(out[6], 1) << "LOCAL b is 16-aligned";
    EXPECT_EQ(out[7], 1) << "LOCAL b lies inside launch->shared";
    EXPECT_EQ(out[8], 184) << "shared_bytes: dynamic part and both LOCALs";
}

TEST_F(CpuKernels, ByValueStructIsCopiedAlignedAtLaunch) {
    infinirtKernel_t slow = kernel("spin");
    infinirtKernel_t k = kernel("packet_sum");
    float *out = deviceArray<float>(2);
    out[0] = 0.0f;
    // Keep the stream busy so that the launch below is still queued when its arguments change.
    const uint64_t iterations = 20000000;
    float *sink = out + 1;
    const infinirtKernelArg_t spin_args[] = {value(&iterations), pointer(reinterpret_cast<void *const *>(&sink))};
    const infinirtLaunchConfig_t one = config(1);
    ASSERT_OK(infinirtLaunchKernel(slow, &one, spin_args, 2, stream_));
    Packet p{10, {1.0f, 2.0f, 3.0f, 4.0f}};
    double d = 0.5;
    const infinirtKernelArg_t args[] = {pointer(reinterpret_cast<void *const *>(&out)), value(&p), value(&d)};
    ASSERT_OK(infinirtLaunchKernel(k, &one, args, 3, stream_));
    p.tag = 1000;
    d = 1000.0;
    ASSERT_OK(infinirtStreamSynchronize(stream_)); // 7 from the kernel if the copy is misaligned
    EXPECT_FLOAT_EQ(out[0], 20.5f) << "the launch saw the argument values of the call";
}

TEST_F(CpuKernels, FailingBlockFailsTheNextSynchronisingCallOnce) {
    infinirtKernel_t k = kernel("fail_on_block");
    const int32_t bad = 2;
    const infinirtKernelArg_t args[] = {value(&bad)};
    const infinirtLaunchConfig_t cfg = config(8);

    // stream_synchronize
    ASSERT_OK(infinirtLaunchKernel(k, &cfg, args, 1, stream_));
    ASSERT_EQ(infinirtStreamSynchronize(stream_), INFINI_STATUS_DRIVER_ERROR);
    const std::string message = lastError();
    EXPECT_NE(message.find("kernel fail_on_block failed in block (2,0,0) with 3"), std::string::npos) << message;
    EXPECT_OK(infinirtStreamSynchronize(stream_)) << "reported once";

    // event_synchronize: an event recorded before the launch does not report it, one after does.
    infinirtEvent_t before = nullptr;
    infinirtEvent_t after = nullptr;
    ASSERT_OK(infinirtEventCreate(&before));
    ASSERT_OK(infinirtEventCreate(&after));
    ASSERT_OK(infinirtEventRecord(before, stream_));
    ASSERT_OK(infinirtLaunchKernel(k, &cfg, args, 1, stream_));
    ASSERT_OK(infinirtEventRecord(after, stream_));
    EXPECT_OK(infinirtEventSynchronize(before));
    EXPECT_EQ(infinirtEventSynchronize(after), INFINI_STATUS_DRIVER_ERROR);
    EXPECT_NE(lastError().find("(2,0,0)"), std::string::npos) << lastError();
    EXPECT_OK(infinirtEventSynchronize(after)) << "reported once";
    EXPECT_OK(infinirtStreamSynchronize(stream_));
    EXPECT_OK(infinirtEventDestroy(before));
    EXPECT_OK(infinirtEventDestroy(after));

    // device_synchronize
    ASSERT_OK(infinirtLaunchKernel(k, &cfg, args, 1, stream_));
    EXPECT_EQ(infinirtDeviceSynchronize(), INFINI_STATUS_DRIVER_ERROR);
    EXPECT_NE(lastError().find("fail_on_block"), std::string::npos) << lastError();
    EXPECT_OK(infinirtDeviceSynchronize()) << "reported once";
    EXPECT_OK(infinirtStreamSynchronize(stream_));

    // A launch that does not fail leaves the stream clean.
    const int32_t none = -1;
    const infinirtKernelArg_t fine[] = {value(&none)};
    ASSERT_OK(infinirtLaunchKernel(k, &cfg, fine, 1, stream_));
    EXPECT_OK(infinirtStreamSynchronize(stream_));
}

TEST_F(CpuKernels, UnloadWhileLaunchesAreQueuedIsSafe) {
    infinirtKernel_t slow = kernel("spin");
    infinirtKernel_t add = kernel("vector_add");
    const int32_t n = 4096;
    float *a = deviceArray<float>(n + 1);
    float *c = deviceArray<float>(n);
    for (int32_t i = 0; i < n; ++i) {
        a[i] = static_cast<float>(i);
    }
    const uint64_t iterations = 50000000;
    float *sink = a + n;
    const infinirtKernelArg_t spin_args[] = {value(&iterations), pointer(reinterpret_cast<void *const *>(&sink))};
    const infinirtKernelArg_t add_args[] = {pointer(reinterpret_cast<void *const *>(&a)),
                                            pointer(reinterpret_cast<void *const *>(&a)),
                                            pointer(reinterpret_cast<void *const *>(&c)), value(&n)};
    const infinirtLaunchConfig_t one = config(1);
    const infinirtLaunchConfig_t many = config(n / 64, 64);
    ASSERT_OK(infinirtLaunchKernel(slow, &one, spin_args, 2, stream_));
    ASSERT_OK(infinirtLaunchKernel(add, &many, add_args, 4, stream_));
    ASSERT_OK(infinirtModuleUnload(module_));
    module_ = nullptr;
    ASSERT_OK(infinirtStreamSynchronize(stream_));
    EXPECT_GT(a[n], 0.0f) << "spin ran";
    for (int32_t i = 0; i < n; ++i) {
        ASSERT_FLOAT_EQ(c[i], 2.0f * static_cast<float>(i)) << "at " << i;
    }
}

TEST_F(CpuKernels, GlobalsAreExportedDataObjectsOfTheirOwnModule) {
    void *ptr = nullptr;
    size_t size = 0;
    ASSERT_OK(infinirtModuleGetGlobal(&ptr, &size, module_, "g_value"));
    EXPECT_EQ(size, sizeof(int32_t));
    EXPECT_EQ(*static_cast<int32_t *>(ptr), 7);
    void *table = nullptr;
    ASSERT_OK(infinirtModuleGetGlobal(&table, &size, module_, "g_table"));
    EXPECT_EQ(size, 5 * sizeof(double));
    EXPECT_EQ(static_cast<double *>(table)[4], 5.0);

    // A second module from the same bytes is another copy, with its own globals; a kernel reads
    // the global of its own module.
    *static_cast<int32_t *>(ptr) = 42;
    for (int round = 0; round < 20; ++round) {
        infinirtModule_t other = load();
        ASSERT_NE(other, nullptr);
        void *other_ptr = nullptr;
        ASSERT_OK(infinirtModuleGetGlobal(&other_ptr, nullptr, other, "g_value"));
        ASSERT_NE(other_ptr, ptr);
        ASSERT_EQ(*static_cast<int32_t *>(other_ptr), 7) << "round " << round << ": a fresh copy";
        *static_cast<int32_t *>(other_ptr) = 100 + round;
        int32_t *out = deviceArray<int32_t>(1);
        const infinirtKernelArg_t args[] = {pointer(reinterpret_cast<void *const *>(&out))};
        const infinirtLaunchConfig_t one = config(1);
        ASSERT_OK(infinirtLaunchKernel(kernel("read_global", other), &one, args, 1, stream_));
        ASSERT_OK(infinirtStreamSynchronize(stream_));
        EXPECT_EQ(*out, 100 + round);
        ASSERT_OK(infinirtModuleUnload(other));
    }
    EXPECT_EQ(*static_cast<int32_t *>(ptr), 42);
}

TEST_F(CpuKernels, ConcurrentLaunchesFromManyStreams) {
    infinirtKernel_t k = kernel("block_ids");
    constexpr int kThreads = 6;
    const uint32_t gx = 500;
    const uint32_t gy = 4;
    std::vector<int32_t *> outs;
    for (int t = 0; t < kThreads; ++t) {
        outs.push_back(deviceArray<int32_t>(size_t{gx} * gy));
    }
    std::vector<std::thread> threads;
    std::vector<int> failures(kThreads, 0);
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            infinirtStream_t s = nullptr;
            if (infinirtSetDevice(INFINI_DEVICE_CPU, 0) != INFINI_STATUS_SUCCESS ||
                infinirtStreamCreate(&s) != INFINI_STATUS_SUCCESS) {
                failures[t] = -1;
                return;
            }
            int32_t *out = outs[t];
            for (int round = 0; round < 20; ++round) {
                std::memset(out, 0xff, size_t{gx} * gy * sizeof(int32_t));
                const infinirtKernelArg_t args[] = {pointer(reinterpret_cast<void *const *>(&out))};
                const infinirtLaunchConfig_t cfg = config(gx, 1, gy);
                if (infinirtLaunchKernel(k, &cfg, args, 1, s) != INFINI_STATUS_SUCCESS ||
                    infinirtStreamSynchronize(s) != INFINI_STATUS_SUCCESS) {
                    failures[t] = -2;
                    break;
                }
                for (uint32_t y = 0; y < gy; ++y) {
                    for (uint32_t x = 0; x < gx; ++x) {
                        failures[t] += out[size_t{y} * gx + x] != static_cast<int32_t>(x | y << 10);
                    }
                }
            }
            infinirtStreamDestroy(s);
        });
    }
    for (std::thread &t : threads) {
        t.join();
    }
    for (int t = 0; t < kThreads; ++t) {
        EXPECT_EQ(failures[t], 0) << "thread " << t;
    }
}

TEST_F(CpuKernels, Attributes) {
    infinirtKernel_t k = kernel("vector_add");
    int64_t v = 0;
    ASSERT_OK(infinirtKernelGetAttribute(&v, INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK, k));
    if (std::getenv("INFINIRT_CPU_MAX_THREADS_PER_BLOCK") == nullptr) {
        EXPECT_EQ(v, 1024);
    }
    ASSERT_OK(infinirtKernelGetAttribute(&v, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, k));
    EXPECT_EQ(v, 48 * 1024);
    ASSERT_OK(infinirtKernelGetAttribute(&v, INFINIRT_KERNEL_ATTR_NUM_PARAMS, k));
    EXPECT_EQ(v, -1);
    ASSERT_OK(infinirtKernelGetAttribute(&v, INFINIRT_KERNEL_ATTR_NUM_REGISTERS, k));
    EXPECT_EQ(v, -1);
    ASSERT_OK(infinirtKernelGetAttribute(&v, INFINIRT_KERNEL_ATTR_STATIC_SHARED_BYTES, k));
    EXPECT_EQ(v, 0);
    ASSERT_OK(infinirtKernelGetAttribute(&v, INFINIRT_KERNEL_ATTR_PREFERRED_BLOCK_MULTIPLE, k));
    EXPECT_GE(v, 1);
    ASSERT_OK(infinirtKernelSetAttribute(k, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, 1 << 20));
    ASSERT_OK(infinirtKernelGetAttribute(&v, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, k));
    EXPECT_EQ(v, 1 << 20);
    EXPECT_EQ(infinirtKernelSetAttribute(k, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, (1 << 20) + 1),
              INFINI_STATUS_BAD_PARAM);
    EXPECT_NE(lastError().find("1048577"), std::string::npos) << lastError();

    // A launch using the raised limit runs, with its scratch.
    infinirtKernel_t layout = kernel("local_layout");
    ASSERT_OK(infinirtKernelSetAttribute(layout, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, 1 << 20));
    int64_t *out = deviceArray<int64_t>(9);
    std::memset(out, 0, 9 * sizeof(int64_t));
    out[0] = 16;
    out[1] = 16;
    const infinirtKernelArg_t args[] = {pointer(reinterpret_cast<void *const *>(&out)), local(16), local(16)};
    infinirtLaunchConfig_t cfg = config(4);
    cfg.dynamic_shared_bytes = (1 << 20) - 64;
    ASSERT_OK(infinirtLaunchKernel(layout, &cfg, args, 3, stream_));
    ASSERT_OK(infinirtStreamSynchronize(stream_));
    EXPECT_EQ(out[8], (1 << 20) - 32) << "(1 MiB - 64) + 16 + 16";
}

TEST_F(CpuKernels, LoadRefusals) {
    infinirtModule_t module = nullptr;
    char log[512];

    infinirtModuleImage_t ptx = image(INFINIRT_MODULE_FORMAT_PTX);
    EXPECT_EQ(infinirtModuleLoad(&module, INFINI_DEVICE_CPU, 0, &ptx, 1, log, sizeof log), INFINI_STATUS_BAD_PARAM);
    EXPECT_NE(lastError().find("HOST_SO"), std::string::npos) << lastError();

    const infinirtModuleImage_t two[] = {image(), image()};
    EXPECT_EQ(infinirtModuleLoad(&module, INFINI_DEVICE_CPU, 0, two, 2, log, sizeof log), INFINI_STATUS_BAD_PARAM);
    EXPECT_NE(lastError().find("link"), std::string::npos) << lastError();

    infinirtModuleImage_t options = image();
    options.options = "-O3";
    EXPECT_EQ(infinirtModuleLoad(&module, INFINI_DEVICE_CPU, 0, &options, 1, log, sizeof log), INFINI_STATUS_BAD_PARAM);
    EXPECT_NE(lastError().find("-O3"), std::string::npos) << lastError();
    options.options = "";
    ASSERT_OK(infinirtModuleLoad(&module, INFINI_DEVICE_CPU, 0, &options, 1, log, sizeof log));
    EXPECT_OK(infinirtModuleUnload(module));
    module = nullptr;

    // Bytes dlopen cannot load: BUILD_FAILED, the reason in the log and the last error. A truncated
    // object and one for another machine are refused before dlopen (which would fault reading past
    // the end of a truncated one).
    struct Bad {
        std::vector<char> bytes;
        const char *expected;
    };
    std::vector<Bad> cases;
    cases.push_back({std::vector<char>(image_.begin(), image_.begin() + 64), "dlopen"});
    cases.back().bytes.resize(4096, '\x5a'); // an ELF header, then garbage
    cases.push_back({std::vector<char>(image_.begin(), image_.begin() + static_cast<long>(image_.size() / 3)),
                     "outside the image"});
    cases.push_back({std::vector<char>(image_), "machine 190"});
    const uint16_t cuda_machine = 190; // EM_CUDA
    std::memcpy(cases.back().bytes.data() + 18, &cuda_machine, sizeof cuda_machine);
    const std::string text = "__global__ void k() {}";
    cases.push_back({std::vector<char>(text.begin(), text.end()), "not an ELF object"});
    for (const Bad &bad : cases) {
        infinirtModuleImage_t img = image();
        img.data = bad.bytes.data();
        img.size = bad.bytes.size();
        std::memset(log, 0, sizeof log);
        EXPECT_EQ(infinirtModuleLoad(&module, INFINI_DEVICE_CPU, 0, &img, 1, log, sizeof log),
                  INFINI_STATUS_BUILD_FAILED)
            << bad.expected;
        EXPECT_NE(lastError().find(bad.expected), std::string::npos) << lastError();
        EXPECT_GT(std::strlen(log), 0u) << "the log has the reason";
        EXPECT_EQ(module, nullptr);
    }
}

TEST_F(CpuKernels, SymbolRefusals) {
    infinirtKernel_t k = nullptr;
    EXPECT_EQ(infinirtModuleGetKernel(&k, module_, "no_such_kernel"), INFINI_STATUS_SYMBOL_NOT_FOUND);
    std::string message = lastError();
    EXPECT_NE(message.find("no_such_kernel"), std::string::npos) << message;
    EXPECT_NE(message.find("exports 9 functions: block_ids, empty, fail_on_block"), std::string::npos)
        << "lists functions that exist, sorted: " << message;
    // A data object is not a kernel, and a function of a dependency (libc) is not the module's.
    EXPECT_EQ(infinirtModuleGetKernel(&k, module_, "g_value"), INFINI_STATUS_SYMBOL_NOT_FOUND);
    EXPECT_NE(lastError().find("data object"), std::string::npos) << lastError();
    EXPECT_EQ(infinirtModuleGetKernel(&k, module_, "memset"), INFINI_STATUS_SYMBOL_NOT_FOUND);
    void *ptr = nullptr;
    EXPECT_EQ(infinirtModuleGetGlobal(&ptr, nullptr, module_, "no_such_global"), INFINI_STATUS_SYMBOL_NOT_FOUND);
    EXPECT_NE(lastError().find("no_such_global"), std::string::npos) << lastError();
    EXPECT_EQ(infinirtModuleGetGlobal(&ptr, nullptr, module_, "vector_add"), INFINI_STATUS_SYMBOL_NOT_FOUND);
    EXPECT_EQ(ptr, nullptr);
    EXPECT_EQ(k, nullptr);
}

} // namespace
