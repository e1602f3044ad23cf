// Modules and kernel launch: the kernel set (kernels/) loaded on every device and run, each
// result checked on the host; kernel attributes; module globals; stream order and events around
// launches; one kernel launched from many threads.
#include "kernel_images.h"

#include <cmath>
#include <cstring>
#include <string>
#include <thread>

namespace infinirt_test {
namespace {

class Kernels : public KernelTest {};

constexpr int32_t kN = 1000; // not a multiple of the block size: the last block is partial

// a[i] + b[i] for the inputs the tests use: small integers, exact in float in any order.
std::vector<float> Iota(size_t n, float scale, float offset) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) {
        v[i] = scale * static_cast<float>(i % 1024) + offset;
    }
    return v;
}

TEST_P(Kernels, VectorAdd) {
    infinirtKernel_t add = nullptr;
    ASSERT_OK(GetKernel(&add, "vector_add"));
    ASSERT_NE(add, nullptr);
    infinirtKernel_t again = nullptr;
    ASSERT_OK(GetKernel(&again, "vector_add"));
    EXPECT_EQ(again, add) << "one name gives the same kernel handle each time";

    const std::vector<float> a = Iota(kN, 1.0f, 0.0f);
    const std::vector<float> b = Iota(kN, 2.0f, 1.0f);
    const size_t bytes = (kN + 64) * sizeof(float); // 64 floats past n that the kernel must not touch
    DeviceBuffer da;
    DeviceBuffer db;
    DeviceBuffer dc;
    ASSERT_OK(MallocFrom(&da, a));
    ASSERT_OK(MallocFrom(&db, b));
    ASSERT_OK(dc.Malloc(bytes));
    ScopedStream s;
    ASSERT_OK(s.Create());

    // On a created stream and on the default stream (NULL).
    for (infinirtStream_t stream : {static_cast<infinirtStream_t>(s), static_cast<infinirtStream_t>(nullptr)}) {
        SCOPED_TRACE(stream == nullptr ? "default stream" : "created stream");
        ASSERT_OK(infinirtMemset(dc, 0x7f, bytes));
        ASSERT_OK(LaunchVectorAdd(add, da, db, dc, kN, stream));
        ASSERT_OK(infinirtStreamSynchronize(stream));
        std::vector<float> c(kN + 64, 0.0f);
        ASSERT_OK(Download(&c, dc));
        for (int32_t i = 0; i < kN; ++i) {
            ASSERT_EQ(c[i], a[i] + b[i]) << "c[" << i << "]";
        }
        std::vector<uint8_t> tail(64 * sizeof(float));
        std::memcpy(tail.data(), c.data() + kN, tail.size());
        EXPECT_EQ(tail, std::vector<uint8_t>(tail.size(), 0x7f)) << "the kernel wrote past n";
    }
}

// The kernel set holds `empty(void)` beside kernels with parameters (NVIDIA's OpenCL compiler
// once failed the whole program over it): the module loaded, and both kinds launch and run from it.
TEST_P(Kernels, ParameterlessKernelBesideKernelsWithParameters) {
    infinirtKernel_t empty = nullptr;
    ASSERT_OK(GetKernel(&empty, "empty"));
    int64_t params = -1;
    ASSERT_OK(infinirtKernelGetAttribute(&params, INFINIRT_KERNEL_ATTR_NUM_PARAMS, empty));
    EXPECT_TRUE(params == 0 || params == -1) << params << " (-1: the backend cannot tell, as on cpu)";
    infinirtKernel_t add = nullptr;
    ASSERT_OK(GetKernel(&add, "vector_add"));
    ScopedStream s;
    ASSERT_OK(s.Create());
    const infinirtLaunchConfig_t config = LaunchConfig({4, 1, 1}, {32, 1, 1});
    ASSERT_OK(infinirtLaunchKernel(empty, &config, nullptr, 0, s));
    const std::vector<float> a = Iota(kN, 1.0f, 3.0f);
    const std::vector<float> b = Iota(kN, 4.0f, 0.0f);
    DeviceBuffer da;
    DeviceBuffer db;
    DeviceBuffer dc;
    ASSERT_OK(MallocFrom(&da, a));
    ASSERT_OK(MallocFrom(&db, b));
    ASSERT_OK(dc.Malloc(kN * sizeof(float)));
    ASSERT_OK(LaunchVectorAdd(add, da, db, dc, kN, s));
    ASSERT_OK(infinirtLaunchKernel(empty, &config, nullptr, 0, s));
    ASSERT_OK(infinirtStreamSynchronize(s));
    std::vector<float> c(kN, 0.0f);
    ASSERT_OK(Download(&c, dc));
    for (int32_t i = 0; i < kN; ++i) {
        ASSERT_EQ(c[i], a[i] + b[i]) << "c[" << i << "]";
    }
}

// Every image the build made for the backend (cuda: PTX, cubin, fatbin), named and as AUTO.
TEST_P(Kernels, EveryImageFormatLoadsAndRuns) {
    const std::vector<float> a = Iota(kN, 3.0f, 2.0f);
    const std::vector<float> b = Iota(kN, 1.0f, 5.0f);
    DeviceBuffer da;
    DeviceBuffer db;
    DeviceBuffer dc;
    ASSERT_OK(MallocFrom(&da, a));
    ASSERT_OK(MallocFrom(&db, b));
    ASSERT_OK(dc.Malloc(kN * sizeof(float)));
    for (const KernelImage &image : images_) {
        for (infinirtModuleFormat_t as : {image.format, INFINIRT_MODULE_FORMAT_AUTO}) {
            SCOPED_TRACE(image.what + (as == INFINIRT_MODULE_FORMAT_AUTO ? " as AUTO" : ""));
            const infinirtModuleImage_t described = image.Describe(as);
            char log[8];
            std::memset(log, 'x', sizeof log);
            ScopedModule module;
            ASSERT_OK(module.Load(GetParam(), &described, 1, log, sizeof log)) << LogText(log, sizeof log);
            EXPECT_TRUE(LogIsTerminated(log, sizeof log)) << "a log too long for its buffer is truncated";
            infinirtKernel_t add = nullptr;
            ASSERT_OK(infinirtModuleGetKernel(&add, module, "vector_add"));
            ASSERT_OK(infinirtMemset(dc, 0, kN * sizeof(float)));
            ASSERT_OK(LaunchVectorAdd(add, da, db, dc, kN, nullptr, 256));
            ASSERT_OK(infinirtStreamSynchronize(nullptr));
            std::vector<float> c(kN);
            ASSERT_OK(Download(&c, dc));
            for (int32_t i = 0; i < kN; ++i) {
                ASSERT_EQ(c[i], a[i] + b[i]) << "c[" << i << "]";
            }
        }
    }
    // A NULL log and a log of size 0 are allowed.
    const infinirtModuleImage_t described = images_[0].Describe();
    ScopedModule quiet;
    EXPECT_OK(quiet.Load(GetParam(), &described, 1, nullptr, 0));
    char untouched = 'u';
    ScopedModule sized0;
    EXPECT_OK(sized0.Load(GetParam(), &described, 1, &untouched, 0));
    EXPECT_EQ(untouched, 'u') << "a log of size 0 was written";
}

// Scalars of several types and a struct with a 16-byte aligned member, passed by value.
TEST_P(Kernels, SaxpyMixedScalarsAndAlignedStruct) {
    infinirtKernel_t saxpy = nullptr;
    ASSERT_OK(GetKernel(&saxpy, "saxpy_mixed"));
    int64_t num_params = 0;
    ASSERT_OK(infinirtKernelGetAttribute(&num_params, INFINIRT_KERNEL_ATTR_NUM_PARAMS, saxpy));
    EXPECT_TRUE(num_params == 8 || num_params == -1) << num_params;

    const std::vector<float> x = Iota(kN, 1.0f, 0.0f);
    DeviceBuffer dx;
    DeviceBuffer dy;
    ASSERT_OK(MallocFrom(&dx, x));
    ASSERT_OK(MallocFrom(&dy, std::vector<float>(kN, 0.0f)));

    void *y_ptr = dy;
    void *x_ptr = dx;
    const SaxpyScalars sc;
    const int32_t n = kN;
    const infinirtKernelArg_t args[] = {PointerArg(&y_ptr), PointerArg(&x_ptr), ValueArg(&sc.a),    ValueArg(&sc.b),
                                        ValueArg(&sc.k),    ValueArg(&sc.big),  ValueArg(&sc.p), ValueArg(&n)};
    const infinirtLaunchConfig_t config = LaunchConfig({(kN + 127) / 128, 1, 1}, {128, 1, 1});
    ScopedStream s;
    ASSERT_OK(s.Create());
    ASSERT_OK(infinirtLaunchKernel(saxpy, &config, args, 8, s));
    ASSERT_OK(infinirtStreamSynchronize(s));
    std::vector<float> y(kN);
    ASSERT_OK(Download(&y, dy));
    for (int32_t i = 0; i < kN; ++i) {
        ASSERT_EQ(y[i], sc.a * x[i] + SaxpyScalars::kAddend) << "y[" << i << "] (a wrong scalar or a misplaced struct member shows here)";
    }
}

// Every thread of a 3-D grid of 3-D blocks writes its global indices.
TEST_P(Kernels, GridIndices3D) {
    infinirtKernel_t kernel = nullptr;
    ASSERT_OK(GetKernel(&kernel, "grid_indices"));
    const std::array<uint32_t, 3> grids[] = {{3, 2, 2}, {2, 3, 4}};
    const std::array<uint32_t, 3> blocks[] = {{4, 2, 2}, {8, 1, 2}};
    for (int c = 0; c < 2; ++c) {
        const auto &grid = grids[c];
        const auto &block = blocks[c];
        SCOPED_TRACE("grid {" + std::to_string(grid[0]) + "," + std::to_string(grid[1]) + "," +
                     std::to_string(grid[2]) + "} block {" + std::to_string(block[0]) + "," +
                     std::to_string(block[1]) + "," + std::to_string(block[2]) + "}");
        const uint32_t w = grid[0] * block[0];
        const uint32_t h = grid[1] * block[1];
        const uint32_t d = grid[2] * block[2];
        const size_t count = size_t{3} * w * h * d;
        DeviceBuffer out;
        ASSERT_OK(out.Malloc(count * sizeof(int32_t)));
        ASSERT_OK(infinirtMemset(out, 0xff, count * sizeof(int32_t)));
        void *out_ptr = out;
        const infinirtKernelArg_t args[] = {PointerArg(&out_ptr)};
        const infinirtLaunchConfig_t config = LaunchConfig(grid, block);
        ASSERT_OK(infinirtLaunchKernel(kernel, &config, args, 1, nullptr));
        ASSERT_OK(infinirtStreamSynchronize(nullptr));
        std::vector<int32_t> got(count);
        ASSERT_OK(Download(&got, out));
        for (uint32_t z = 0; z < d; ++z) {
            for (uint32_t y = 0; y < h; ++y) {
                for (uint32_t x = 0; x < w; ++x) {
                    const size_t linear = (size_t{z} * h + y) * w + x;
                    ASSERT_EQ(got[3 * linear + 0], static_cast<int32_t>(x)) << "x of " << x << "," << y << "," << z;
                    ASSERT_EQ(got[3 * linear + 1], static_cast<int32_t>(y)) << "y of " << x << "," << y << "," << z;
                    ASSERT_EQ(got[3 * linear + 2], static_cast<int32_t>(z)) << "z of " << x << "," << y << "," << z;
                }
            }
        }
    }
}

// A tree reduction in per-block shared memory given as a LOCAL argument, with and without
// dynamic_shared_bytes before it (the LOCAL region starts after it, 16-aligned).
TEST_P(Kernels, BlockSumWithLocalMemory) {
    infinirtKernel_t sum = nullptr;
    ASSERT_OK(GetKernel(&sum, "block_sum"));
    constexpr uint32_t kBlocks = 8;
    for (uint32_t block : {64u, 256u}) {
        for (size_t dynamic_shared : {size_t{0}, size_t{48}, size_t{20}}) {
            SCOPED_TRACE("block " + std::to_string(block) + ", dynamic_shared_bytes " + std::to_string(dynamic_shared));
            std::vector<float> in(size_t{kBlocks} * block);
            for (size_t i = 0; i < in.size(); ++i) {
                in[i] = static_cast<float>((i * 7) % 17);
            }
            DeviceBuffer din;
            DeviceBuffer dout;
            ASSERT_OK(MallocFrom(&din, in));
            ASSERT_OK(MallocFrom(&dout, std::vector<float>(kBlocks, 0.0f)));
            void *in_ptr = din;
            void *out_ptr = dout;
            const infinirtKernelArg_t args[] = {PointerArg(&in_ptr), PointerArg(&out_ptr),
                                                LocalArg(block * sizeof(float))};
            const infinirtLaunchConfig_t config = LaunchConfig({kBlocks, 1, 1}, {block, 1, 1}, dynamic_shared);
            ASSERT_OK(infinirtLaunchKernel(sum, &config, args, 3, nullptr));
            ASSERT_OK(infinirtStreamSynchronize(nullptr));
            std::vector<float> out(kBlocks);
            ASSERT_OK(Download(&out, dout));
            for (uint32_t b = 0; b < kBlocks; ++b) {
                float expected = 0.0f;
                for (uint32_t t = 0; t < block; ++t) {
                    expected += in[size_t{b} * block + t];
                }
                EXPECT_EQ(out[b], expected) << "block " << b;
            }
        }
    }
}

// A module variable: its address and size, read and written by infinirtMemcpy and by kernels.
TEST_P(Kernels, ModuleGlobalIsSharedWithKernels) {
    REQUIRE_FEATURES(Feature::kModuleGlobals);
    void *g = nullptr;
    size_t size = 0;
    ASSERT_OK(infinirtModuleGetGlobal(&g, &size, module_, "g_value"));
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(size, sizeof(int32_t));
    void *g_again = nullptr;
    ASSERT_OK(infinirtModuleGetGlobal(&g_again, nullptr, module_, "g_value")) << "size may be NULL";
    EXPECT_EQ(g_again, g);

    int32_t value = 0;
    ASSERT_OK(infinirtMemcpy(&value, g, sizeof value, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(value, 7) << "the initial value";

    infinirtKernel_t write = nullptr;
    infinirtKernel_t read = nullptr;
    ASSERT_OK(GetKernel(&write, "write_global"));
    ASSERT_OK(GetKernel(&read, "read_global"));
    const infinirtLaunchConfig_t one = LaunchConfig({1, 1, 1}, {1, 1, 1});
    ScopedStream s;
    ASSERT_OK(s.Create());
    const int32_t v42 = 42;
    const infinirtKernelArg_t write_args[] = {ValueArg(&v42)};
    ASSERT_OK(infinirtLaunchKernel(write, &one, write_args, 1, s));
    ASSERT_OK(infinirtStreamSynchronize(s));
    ASSERT_OK(infinirtMemcpy(&value, g, sizeof value, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(value, 42) << "written by write_global, read by infinirtMemcpy D2H";
    value = 0;
    ASSERT_OK(infinirtMemcpy(&value, g, sizeof value, INFINIRT_MEMCPY_DEFAULT));
    EXPECT_EQ(value, 42) << "read by infinirtMemcpy DEFAULT";

    const int32_t v99 = 99;
    ASSERT_OK(infinirtMemcpy(g, &v99, sizeof v99, INFINIRT_MEMCPY_H2D));
    DeviceBuffer out;
    ASSERT_OK(out.Malloc(sizeof(int32_t)));
    ASSERT_OK(infinirtMemset(out, 0, sizeof(int32_t)));
    void *out_ptr = out;
    const infinirtKernelArg_t read_args[] = {PointerArg(&out_ptr)};
    ASSERT_OK(infinirtLaunchKernel(read, &one, read_args, 1, s));
    ASSERT_OK(infinirtStreamSynchronize(s));
    ASSERT_OK(infinirtMemcpy(&value, out, sizeof value, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(value, 99) << "written by infinirtMemcpy H2D, read by read_global";

    // A second load of the same image is another module with its own variable.
    ScopedModule second;
    ASSERT_OK(second.Load(GetParam(), images_[0]));
    void *g2 = nullptr;
    ASSERT_OK(infinirtModuleGetGlobal(&g2, nullptr, second, "g_value"));
    EXPECT_NE(g2, g);
    ASSERT_OK(infinirtMemcpy(&value, g2, sizeof value, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(value, 7) << "two loads of one image share their module variable";
}

// A long kernel is still running after the launch returns: an event recorded behind it is not
// ready until it ends.
TEST_P(Kernels, LongKernelKeepsItsEventPending) {
    REQUIRE_FEATURES(Feature::kEvents);
    infinirtKernel_t spin = nullptr;
    ASSERT_OK(GetKernel(&spin, "spin"));
    DeviceBuffer out;
    ASSERT_OK(out.Malloc(sizeof(float)));
    ASSERT_OK(infinirtMemset(out, 0, sizeof(float)));
    ScopedStream s;
    ASSERT_OK(s.Create());
    ScopedEvent e;
    ASSERT_OK(e.Create());
    Defer drain([&] { infinirtStreamSynchronize(s); });

    const uint64_t iterations = 100000000; // ~0.1-0.3 s on every device
    void *out_ptr = out;
    const infinirtKernelArg_t args[] = {ValueArg(&iterations), PointerArg(&out_ptr)};
    const infinirtLaunchConfig_t one = LaunchConfig({1, 1, 1}, {1, 1, 1});
    ASSERT_OK(infinirtLaunchKernel(spin, &one, args, 2, s));
    ASSERT_OK(infinirtEventRecord(e, s));
    infinirtEventStatus_t status = INFINIRT_EVENT_COMPLETE;
    ASSERT_OK(infinirtEventQuery(e, &status));
    EXPECT_EQ(status, INFINIRT_EVENT_NOT_READY) << "the event behind a long kernel completed at once";
    ASSERT_OK(infinirtEventSynchronize(e));
    ASSERT_OK(infinirtEventQuery(e, &status));
    EXPECT_EQ(status, INFINIRT_EVENT_COMPLETE);
    float acc = 0.0f;
    ASSERT_OK(infinirtMemcpy(&acc, out, sizeof acc, INFINIRT_MEMCPY_D2H));
    EXPECT_TRUE(std::isfinite(acc) && acc > 1000.0f) << acc << ": spin did not run its loop";
}

// Launches queued before an unload still run; the work after them on the stream sees their results.
TEST_P(Kernels, UnloadLetsQueuedLaunchesFinish) {
    infinirtKernel_t spin = nullptr;
    infinirtKernel_t add = nullptr;
    ASSERT_OK(GetKernel(&spin, "spin"));
    ASSERT_OK(GetKernel(&add, "vector_add"));
    const std::vector<float> a = Iota(kN, 1.0f, 1.0f);
    DeviceBuffer da;
    DeviceBuffer dc;
    DeviceBuffer scratch;
    ASSERT_OK(MallocFrom(&da, a));
    ASSERT_OK(MallocFrom(&dc, std::vector<float>(kN, 0.0f)));
    ASSERT_OK(scratch.Malloc(sizeof(float)));
    ScopedStream s;
    ASSERT_OK(s.Create());
    Defer drain([&] { infinirtStreamSynchronize(s); });

    const uint64_t iterations = 10000000;
    void *scratch_ptr = scratch;
    const infinirtKernelArg_t spin_args[] = {ValueArg(&iterations), PointerArg(&scratch_ptr)};
    const infinirtLaunchConfig_t one = LaunchConfig({1, 1, 1}, {1, 1, 1});
    ASSERT_OK(infinirtLaunchKernel(spin, &one, spin_args, 2, s));
    for (int i = 0; i < 3; ++i) {
        ASSERT_OK(LaunchVectorAdd(add, da, dc, dc, kN, s)); // c += a
    }
    module_.Disown();
    ASSERT_OK(infinirtModuleUnload(module_));
    ASSERT_OK(infinirtStreamSynchronize(s));
    std::vector<float> c(kN);
    ASSERT_OK(Download(&c, dc));
    for (int32_t i = 0; i < kN; ++i) {
        ASSERT_EQ(c[i], 3.0f * a[i]) << "c[" << i << "]";
    }
}

// One kernel handle launched from 8 threads, each on its own stream and buffers, many times.
TEST_P(Kernels, EightThreadsLaunchOneKernelOnTheirOwnStreams) {
    infinirtKernel_t add = nullptr;
    ASSERT_OK(GetKernel(&add, "vector_add"));
    constexpr int kThreads = 8;
    constexpr int kLaunches = 100;
    constexpr int32_t kCount = 2048;
    std::vector<std::string> errors(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            std::string &error = errors[t];
            auto check = [&](infiniStatus_t st, const char *what) {
                if (st != INFINI_STATUS_SUCCESS && error.empty()) {
                    error = std::string(what) + ": " + infinirtGetErrorName(st) + ": " + infinirtGetLastErrorMessage();
                }
                return st == INFINI_STATUS_SUCCESS;
            };
            if (!check(infinirtSetDevice(type(), id()), "SetDevice")) {
                return;
            }
            std::vector<float> a(kCount);
            for (int32_t i = 0; i < kCount; ++i) {
                a[i] = static_cast<float>(t + 1 + i % 5);
            }
            infinirtStream_t s = nullptr;
            void *da = nullptr;
            void *dc = nullptr;
            if (check(infinirtStreamCreate(&s), "StreamCreate") && check(infinirtMalloc(&da, kCount * 4), "Malloc") &&
                check(infinirtMalloc(&dc, kCount * 4), "Malloc") && check(Upload(da, a), "Memcpy H2D") &&
                check(infinirtMemsetAsync(dc, 0, kCount * 4, s), "MemsetAsync")) {
                for (int l = 0; l < kLaunches && error.empty(); ++l) {
                    check(LaunchVectorAdd(add, da, dc, dc, kCount, s, 64), "LaunchKernel"); // c += a
                }
                if (check(infinirtStreamSynchronize(s), "StreamSynchronize")) {
                    std::vector<float> c(kCount);
                    if (check(Download(&c, dc), "Memcpy D2H")) {
                        for (int32_t i = 0; i < kCount && error.empty(); ++i) {
                            if (c[i] != kLaunches * a[i]) {
                                error = "c[" + std::to_string(i) + "] is " + std::to_string(c[i]) + ", expected " +
                                        std::to_string(kLaunches * a[i]);
                            }
                        }
                    }
                }
            }
            if (s != nullptr) {
                infinirtStreamDestroy(s);
            }
            if (da != nullptr) {
                infinirtFree(da);
            }
            if (dc != nullptr) {
                infinirtFree(dc);
            }
        });
    }
    for (std::thread &th : threads) {
        th.join();
    }
    for (int t = 0; t < kThreads; ++t) {
        EXPECT_EQ(errors[t], "") << "thread " << t;
    }
}

TEST_P(Kernels, Attributes) {
    infinirtKernel_t add = nullptr;
    ASSERT_OK(GetKernel(&add, "vector_add"));
    int64_t max_threads = 0;
    ASSERT_OK(infinirtKernelGetAttribute(&max_threads, INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK, add));
    EXPECT_GE(max_threads, 1);
    EXPECT_LE(max_threads, int64_t{1} << 20) << "MAX_THREADS_PER_BLOCK must be finite";
    int64_t num_params = 0;
    ASSERT_OK(infinirtKernelGetAttribute(&num_params, INFINIRT_KERNEL_ATTR_NUM_PARAMS, add));
    EXPECT_TRUE(num_params == 4 || num_params == -1) << "vector_add takes 4 parameters, not " << num_params;
    int64_t multiple = 0;
    ASSERT_OK(infinirtKernelGetAttribute(&multiple, INFINIRT_KERNEL_ATTR_PREFERRED_BLOCK_MULTIPLE, add));
    EXPECT_GE(multiple, 1);
    int64_t value = -2;
    ASSERT_OK(infinirtKernelGetAttribute(&value, INFINIRT_KERNEL_ATTR_STATIC_SHARED_BYTES, add));
    EXPECT_GE(value, 0);
    value = -2;
    ASSERT_OK(infinirtKernelGetAttribute(&value, INFINIRT_KERNEL_ATTR_PRIVATE_BYTES_PER_THREAD, add));
    EXPECT_GE(value, 0);
    value = -2;
    ASSERT_OK(infinirtKernelGetAttribute(&value, INFINIRT_KERNEL_ATTR_NUM_REGISTERS, add));
    EXPECT_GE(value, -1);

    // MAX_DYNAMIC_SHARED_BYTES is settable, and launches are checked against the value set.
    infinirtKernel_t sum = nullptr;
    ASSERT_OK(GetKernel(&sum, "block_sum"));
    int64_t max_dynamic = -1;
    ASSERT_OK(infinirtKernelGetAttribute(&max_dynamic, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, sum));
    ASSERT_GE(max_dynamic, 1024 + 48) << "block_sum with 256 threads needs 1 KiB of LOCAL memory";
    EXPECT_OK(infinirtKernelSetAttribute(sum, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, max_dynamic));
    ASSERT_OK(infinirtKernelSetAttribute(sum, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, 1024));
    value = -1;
    ASSERT_OK(infinirtKernelGetAttribute(&value, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, sum));
    EXPECT_EQ(value, 1024);
    DeviceBuffer din;
    DeviceBuffer dout;
    ASSERT_OK(MallocFrom(&din, std::vector<float>(256, 1.0f)));
    ASSERT_OK(dout.Malloc(sizeof(float)));
    void *in_ptr = din;
    void *out_ptr = dout;
    const infinirtKernelArg_t args[] = {PointerArg(&in_ptr), PointerArg(&out_ptr), LocalArg(1024)};
    const infinirtLaunchConfig_t over = LaunchConfig({1, 1, 1}, {256, 1, 1}, 48);
    const Outcome refused = Capture(infinirtLaunchKernel(sum, &over, args, 3, nullptr));
    EXPECT_TRUE(Matches(refused, INFINI_STATUS_BAD_PARAM, "launch over the MAX_DYNAMIC_SHARED_BYTES set"));
    EXPECT_TRUE(Mentions(refused.message, "1024"));
    const infinirtLaunchConfig_t within = LaunchConfig({1, 1, 1}, {256, 1, 1});
    ASSERT_OK(infinirtLaunchKernel(sum, &within, args, 3, nullptr));
    ASSERT_OK(infinirtStreamSynchronize(nullptr));
    float total = 0.0f;
    ASSERT_OK(infinirtMemcpy(&total, dout, sizeof total, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(total, 256.0f);

    // Refused settings, each with its figures, leave the value alone.
    const Outcome negative = Capture(infinirtKernelSetAttribute(sum, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, -5));
    EXPECT_TRUE(Matches(negative, INFINI_STATUS_BAD_PARAM, "MAX_DYNAMIC_SHARED_BYTES -5"));
    EXPECT_TRUE(Mentions(negative.message, "-5"));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM,
                  infinirtKernelSetAttribute(sum, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, INT64_MAX));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtKernelSetAttribute(sum, INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK, 64));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtKernelSetAttribute(sum, INFINIRT_KERNEL_ATTR_NUM_PARAMS, 3));
    value = -1;
    ASSERT_OK(infinirtKernelGetAttribute(&value, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, sum));
    EXPECT_EQ(value, 1024);
}

// cpu: a kernel that reports failure fails the stream's next synchronising call, naming the
// kernel, the block and the value; the stream works again afterwards.
TEST_P(Kernels, CpuKernelFailureReachesTheNextSynchronize) {
    if (backend() != "cpu") {
        GTEST_SKIP() << "fail_on_block is a cpu kernel (kernels_cpu.c)";
    }
    infinirtKernel_t fail = nullptr;
    ASSERT_OK(GetKernel(&fail, "fail_on_block"));
    ScopedStream s;
    ASSERT_OK(s.Create());
    const int32_t bad_block = 5;
    const infinirtKernelArg_t args[] = {ValueArg(&bad_block)};
    const infinirtLaunchConfig_t config = LaunchConfig({8, 1, 1}, {4, 1, 1});
    ASSERT_OK(infinirtLaunchKernel(fail, &config, args, 1, s));
    const Outcome failed = Capture(infinirtStreamSynchronize(s));
    EXPECT_TRUE(FailsWithMessage(failed, "StreamSynchronize after fail_on_block(5)"));
    EXPECT_TRUE(Mentions(failed.message, "fail_on_block"));
    EXPECT_TRUE(Mentions(failed.message, "5"));
    EXPECT_TRUE(Mentions(failed.message, "3"));
    EXPECT_OK(infinirtStreamSynchronize(s)) << "the failure is reported once";

    infinirtKernel_t add = nullptr;
    ASSERT_OK(GetKernel(&add, "vector_add"));
    const std::vector<float> a = Iota(kN, 1.0f, 0.0f);
    DeviceBuffer da;
    DeviceBuffer dc;
    ASSERT_OK(MallocFrom(&da, a));
    ASSERT_OK(dc.Malloc(kN * sizeof(float)));
    ASSERT_OK(LaunchVectorAdd(add, da, da, dc, kN, s));
    ASSERT_OK(infinirtStreamSynchronize(s));
    std::vector<float> c(kN);
    ASSERT_OK(Download(&c, dc));
    EXPECT_EQ(c[kN - 1], 2.0f * a[kN - 1]);
}

// cpu: a pointer infinirt does not know is passed on (cpu kernels may take any host memory).
TEST_P(Kernels, CpuKernelsTakeHostMemory) {
    if (backend() != "cpu") {
        GTEST_SKIP() << "only cpu kernels can address plain host memory";
    }
    infinirtKernel_t add = nullptr;
    ASSERT_OK(GetKernel(&add, "vector_add"));
    const std::vector<float> a = Iota(kN, 1.0f, 0.0f);
    const std::vector<float> b = Iota(kN, 1.0f, 3.0f);
    std::vector<float> c(kN, 0.0f);
    ASSERT_OK(LaunchVectorAdd(add, a.data(), b.data(), c.data(), kN, nullptr));
    ASSERT_OK(infinirtStreamSynchronize(nullptr));
    for (int32_t i = 0; i < kN; ++i) {
        ASSERT_EQ(c[i], a[i] + b[i]) << "c[" << i << "]";
    }
}

INSTANTIATE_ON_ALL_DEVICES(Kernels);

} // namespace
} // namespace infinirt_test
