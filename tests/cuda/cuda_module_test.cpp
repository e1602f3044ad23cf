/*
 * Modules and kernel launch on the cuda plugin, through the public C API, with device code nvcc
 * compiled at build time (module_test_kernels.cu, embedded as PTX, cubin and fatbin): loading
 * each format, JIT options and logs, build failures, linking, kernels and globals by name,
 * attributes, the LOCAL argument rule, cluster and cooperative launches, launches from threads
 * with no or another current context, native capture, and unload while work is queued.
 * Skips without a CUDA device.
 */
#include <infinirt.h>

#include "cuda_test_support.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

extern const unsigned char module_test_ptx[];
extern const size_t module_test_ptx_size;
extern const unsigned char module_test_cubin[];
extern const size_t module_test_cubin_size;
extern const unsigned char module_test_fatbin[];
extern const size_t module_test_fatbin_size;

namespace {

// The driver's JIT cache (~/.nv/ComputeCache) would serve a PTX image built by an earlier run
// without compiling it, and so without an info log: every run here compiles (set before main,
// so before the driver reads its environment).
[[maybe_unused]] const int kJitCacheOff = setenv("CUDA_CACHE_DISABLE", "1", 1);

using cuda_test::nativeApi;

/* Two PTX images only linked together make a working module: call_answer calls `answer`, which
 * the other image defines. */
const char kCallerPtx[] = R"(.version 7.0
.target sm_75
.address_size 64
.extern .func (.param .b32 result) answer();
.visible .entry call_answer(.param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    {
        .param .b32 retval;
        call.uni (retval), answer, ();
        ld.param.b32 %r1, [retval];
    }
    st.global.u32 [%rd2], %r1;
    ret;
}
)";
const char kAnswerPtx[] = R"(.version 7.0
.target sm_75
.address_size 64
.visible .func (.param .b32 result) answer()
{
    st.param.b32 [result], 42;
    ret;
}
)";
/* Line 6 uses a register it never declared. */
const char kBrokenPtx[] = ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry broken()\n{\n"
                          "    mov.u32 %undeclared, 1;\n    ret;\n}\n";

infinirtModuleImage_t Image(infinirtModuleFormat_t format, const void *data, size_t size,
                            const char *options = nullptr) {
    infinirtModuleImage_t image{};
    image.struct_size = sizeof image;
    image.format = format;
    image.data = data;
    image.size = size;
    image.options = options;
    return image;
}

infinirtLaunchConfig_t Config(uint32_t grid, uint32_t block, size_t dynamic_shared = 0) {
    infinirtLaunchConfig_t c{};
    c.struct_size = sizeof c;
    c.grid[0] = grid, c.grid[1] = 1, c.grid[2] = 1;
    c.block[0] = block, c.block[1] = 1, c.block[2] = 1;
    c.dynamic_shared_bytes = dynamic_shared;
    return c;
}

infinirtKernelArg_t Pointer(void *const *p) { return {INFINIRT_KERNEL_ARG_POINTER, sizeof(void *), p}; }
template <class T>
infinirtKernelArg_t Value(const T *v) {
    return {INFINIRT_KERNEL_ARG_VALUE, sizeof(T), v};
}
infinirtKernelArg_t Local(size_t bytes) { return {INFINIRT_KERNEL_ARG_LOCAL, bytes, nullptr}; }

std::string LastError() { return infinirtGetLastErrorMessage(); }

class CudaModule : public ::testing::Test {
protected:
    void SetUp() override {
        SKIP_WITHOUT_CUDA_DEVICE();
        ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_NVIDIA, 0), INFINI_STATUS_SUCCESS);
        infinirtDeviceProperties_t props{};
        props.struct_size = sizeof props;
        ASSERT_EQ(infinirtGetDeviceProperties(INFINI_DEVICE_NVIDIA, 0, &props), INFINI_STATUS_SUCCESS);
        cc_ = props.compute_capability_major * 10 + props.compute_capability_minor;
        ASSERT_EQ(nativeApi().cuDriverGetVersion(&driver_version_), CUDA_SUCCESS);
    }
    void TearDown() override {
        for (infinirtModule_t m : modules_) {
            EXPECT_EQ(infinirtModuleUnload(m), INFINI_STATUS_SUCCESS) << LastError();
        }
    }

    infinirtModule_t Load(const infinirtModuleImage_t *images, size_t count, std::string *log_out = nullptr) {
        char log[8192] = "x";
        infinirtModule_t m = nullptr;
        infiniStatus_t st = infinirtModuleLoad(&m, INFINI_DEVICE_NVIDIA, 0, images, count, log, sizeof log);
        EXPECT_EQ(st, INFINI_STATUS_SUCCESS) << LastError() << "\nlog:\n" << log;
        if (log_out) {
            *log_out = log;
        }
        if (st == INFINI_STATUS_SUCCESS) {
            modules_.push_back(m);
        }
        return m;
    }
    infinirtModule_t LoadPtx(const char *options = nullptr, std::string *log = nullptr) {
        const infinirtModuleImage_t image =
            Image(INFINIRT_MODULE_FORMAT_PTX, module_test_ptx, module_test_ptx_size, options);
        return Load(&image, 1, log);
    }
    void Unload(infinirtModule_t m) {
        for (auto it = modules_.begin(); it != modules_.end(); ++it) {
            if (*it == m) {
                modules_.erase(it);
                break;
            }
        }
        EXPECT_EQ(infinirtModuleUnload(m), INFINI_STATUS_SUCCESS) << LastError();
    }
    static infinirtKernel_t Kernel(infinirtModule_t m, const char *name) {
        infinirtKernel_t k = nullptr;
        EXPECT_EQ(infinirtModuleGetKernel(&k, m, name), INFINI_STATUS_SUCCESS) << name << ": " << LastError();
        return k;
    }
    static int64_t Attribute(infinirtKernel_t k, infinirtKernelAttribute_t attr) {
        int64_t v = -2;
        EXPECT_EQ(infinirtKernelGetAttribute(&v, attr, k), INFINI_STATUS_SUCCESS) << LastError();
        return v;
    }

    /* Runs vector_add of module `m` on `stream` and checks every element. */
    static void ExpectVectorAdd(infinirtModule_t m, infinirtStream_t stream, uint32_t flags = 0) {
        const int n = 1000;
        std::vector<float> a(n), b(n), c(n, -1.0f);
        for (int i = 0; i < n; ++i) {
            a[i] = static_cast<float>(i);
            b[i] = 0.5f * static_cast<float>(i);
        }
        void *da = nullptr, *db = nullptr, *dc = nullptr;
        ASSERT_EQ(infinirtMalloc(&da, n * sizeof(float)), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtMalloc(&db, n * sizeof(float)), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtMalloc(&dc, n * sizeof(float)), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtMemcpy(da, a.data(), n * sizeof(float), INFINIRT_MEMCPY_H2D), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtMemcpy(db, b.data(), n * sizeof(float), INFINIRT_MEMCPY_H2D), INFINI_STATUS_SUCCESS);
        infinirtLaunchConfig_t config = Config((n + 255) / 256, 256);
        config.flags = flags;
        const infinirtKernelArg_t args[] = {Pointer(&da), Pointer(&db), Pointer(&dc), Value(&n)};
        EXPECT_EQ(infinirtLaunchKernel(Kernel(m, "vector_add"), &config, args, 4, stream), INFINI_STATUS_SUCCESS)
            << LastError();
        EXPECT_EQ(infinirtStreamSynchronize(stream), INFINI_STATUS_SUCCESS) << LastError();
        ASSERT_EQ(infinirtMemcpy(c.data(), dc, n * sizeof(float), INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
        for (int i = 0; i < n; ++i) {
            ASSERT_EQ(c[i], 1.5f * static_cast<float>(i)) << "element " << i;
        }
        for (void *p : {da, db, dc}) {
            EXPECT_EQ(infinirtFree(p), INFINI_STATUS_SUCCESS);
        }
    }

    int cc_ = 0;
    int driver_version_ = 0;
    std::vector<infinirtModule_t> modules_;
};

TEST_F(CudaModule, PtxLoadsWithAnInfoLogAndRuns) {
    std::string log;
    infinirtModule_t m = LoadPtx(nullptr, &log);
    ASSERT_NE(m, nullptr);
    std::printf("JIT log (first 300 bytes): %.300s\n", log.c_str());
    EXPECT_NE(log.find("vector_add"), std::string::npos) << "the verbose info log names the kernels: " << log;
    ExpectVectorAdd(m, nullptr);
    infinirtStream_t stream = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&stream), INFINI_STATUS_SUCCESS);
    ExpectVectorAdd(m, stream);
    EXPECT_EQ(infinirtStreamDestroy(stream), INFINI_STATUS_SUCCESS);
}

/* The embedded PTX has no trailing NUL (the other tests load it so); a size counting one works too. */
TEST_F(CudaModule, PtxWithATrailingNulCounted) {
    std::string text(reinterpret_cast<const char *>(module_test_ptx), module_test_ptx_size);
    ASSERT_NE(text.back(), '\0');
    const infinirtModuleImage_t with_nul = Image(INFINIRT_MODULE_FORMAT_PTX, text.c_str(), text.size() + 1);
    infinirtModule_t m = Load(&with_nul, 1);
    ASSERT_NE(m, nullptr);
    ExpectVectorAdd(m, nullptr);
}

TEST_F(CudaModule, CubinAndFatbinLoadAndRun) {
    const infinirtModuleImage_t fatbin =
        Image(INFINIRT_MODULE_FORMAT_FATBIN, module_test_fatbin, module_test_fatbin_size);
    infinirtModule_t m = Load(&fatbin, 1);
    ASSERT_NE(m, nullptr);
    ExpectVectorAdd(m, nullptr);
    if (cc_ != INFINIRT_TEST_CUBIN_ARCH) {
        GTEST_SKIP() << "the cubin is for sm_" << INFINIRT_TEST_CUBIN_ARCH << ", the device is sm_" << cc_;
    }
    const infinirtModuleImage_t cubin = Image(INFINIRT_MODULE_FORMAT_CUBIN, module_test_cubin, module_test_cubin_size);
    infinirtModule_t c = Load(&cubin, 1);
    ASSERT_NE(c, nullptr);
    ExpectVectorAdd(c, nullptr);
    const infinirtModuleImage_t automatic =
        Image(INFINIRT_MODULE_FORMAT_AUTO, module_test_cubin, module_test_cubin_size);
    ASSERT_NE(Load(&automatic, 1), nullptr) << "AUTO recognises a cubin";
}

TEST_F(CudaModule, InvalidPtxIsBuildFailedWithTheLogNamingTheLine) {
    const infinirtModuleImage_t image = Image(INFINIRT_MODULE_FORMAT_PTX, kBrokenPtx, std::strlen(kBrokenPtx));
    char log[4096] = "x";
    infinirtModule_t m = reinterpret_cast<infinirtModule_t>(0x1);
    EXPECT_EQ(infinirtModuleLoad(&m, INFINI_DEVICE_NVIDIA, 0, &image, 1, log, sizeof log), INFINI_STATUS_BUILD_FAILED);
    EXPECT_EQ(m, reinterpret_cast<infinirtModule_t>(0x1)) << "outputs are written only on success";
    const std::string message = LastError();
    std::printf("detail: %s\nlog: %s\n", message.c_str(), log);
    EXPECT_NE(std::string(log).find("line 6"), std::string::npos) << log;
    EXPECT_NE(message.find("cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX"), std::string::npos) << message;
    EXPECT_NE(message.find("line 6"), std::string::npos) << "the detail carries the log's first lines: " << message;

    /* A tiny log buffer is truncated and terminated. */
    char tiny[8];
    std::memset(tiny, 'x', sizeof tiny);
    EXPECT_EQ(infinirtModuleLoad(&m, INFINI_DEVICE_NVIDIA, 0, &image, 1, tiny, sizeof tiny),
              INFINI_STATUS_BUILD_FAILED);
    EXPECT_EQ(std::strlen(tiny), sizeof tiny - 1);
}

TEST_F(CudaModule, BadImagesAndOptionsAreBadParamNamingThem) {
    infinirtModule_t m = nullptr;
    const infinirtModuleImage_t hsaco = Image(INFINIRT_MODULE_FORMAT_HSACO, module_test_cubin, module_test_cubin_size);
    EXPECT_EQ(infinirtModuleLoad(&m, INFINI_DEVICE_NVIDIA, 0, &hsaco, 1, nullptr, 0), INFINI_STATUS_BAD_PARAM);
    EXPECT_NE(LastError().find("HSACO"), std::string::npos) << LastError();
    EXPECT_NE(LastError().find("PTX, CUBIN and FATBIN"), std::string::npos) << LastError();

    const infinirtModuleImage_t unknown =
        Image(INFINIRT_MODULE_FORMAT_PTX, module_test_ptx, module_test_ptx_size, "-O3 --use_fast_math");
    EXPECT_EQ(infinirtModuleLoad(&m, INFINI_DEVICE_NVIDIA, 0, &unknown, 1, nullptr, 0), INFINI_STATUS_BAD_PARAM);
    EXPECT_NE(LastError().find("'--use_fast_math'"), std::string::npos) << LastError();

    const infinirtModuleImage_t short_cubin = Image(INFINIRT_MODULE_FORMAT_CUBIN, module_test_cubin, 100);
    EXPECT_EQ(infinirtModuleLoad(&m, INFINI_DEVICE_NVIDIA, 0, &short_cubin, 1, nullptr, 0), INFINI_STATUS_BAD_PARAM);
    EXPECT_NE(LastError().find("cut short"), std::string::npos) << LastError();
}

TEST_F(CudaModule, MaxRegCountCapsTheRegisters) {
    infinirtModule_t free_module = LoadPtx();
    infinirtModule_t capped_module = LoadPtx("-maxrregcount=32 -O3 -lineinfo");
    infinirtModule_t spaced_module = LoadPtx("--maxrregcount 40");
    ASSERT_TRUE(free_module && capped_module && spaced_module);
    const int64_t free_regs = Attribute(Kernel(free_module, "reg_heavy"), INFINIRT_KERNEL_ATTR_NUM_REGISTERS);
    const int64_t capped = Attribute(Kernel(capped_module, "reg_heavy"), INFINIRT_KERNEL_ATTR_NUM_REGISTERS);
    const int64_t spaced = Attribute(Kernel(spaced_module, "reg_heavy"), INFINIRT_KERNEL_ATTR_NUM_REGISTERS);
    std::printf("reg_heavy: %lld registers free, %lld with -maxrregcount=32, %lld with --maxrregcount 40\n",
                static_cast<long long>(free_regs), static_cast<long long>(capped), static_cast<long long>(spaced));
    EXPECT_GT(free_regs, 40) << "the kernel is meant to need more than the caps";
    EXPECT_GT(capped, 0);
    EXPECT_LE(capped, 32);
    EXPECT_LE(spaced, 40);
    EXPECT_GT(Attribute(Kernel(capped_module, "reg_heavy"), INFINIRT_KERNEL_ATTR_PRIVATE_BYTES_PER_THREAD), 0)
        << "capped registers spill to local memory";
}

TEST_F(CudaModule, LinkedPtxImagesResolveEachOther) {
    const infinirtModuleImage_t images[] = {Image(INFINIRT_MODULE_FORMAT_PTX, kCallerPtx, sizeof kCallerPtx - 1),
                                            Image(INFINIRT_MODULE_FORMAT_PTX, kAnswerPtx, sizeof kAnswerPtx - 1)};
    std::string log;
    infinirtModule_t m = Load(images, 2, &log);
    ASSERT_NE(m, nullptr);
    std::printf("link log: %.300s\n", log.c_str());
    void *out = nullptr;
    ASSERT_EQ(infinirtMalloc(&out, sizeof(int)), INFINI_STATUS_SUCCESS);
    const infinirtLaunchConfig_t config = Config(1, 1);
    const infinirtKernelArg_t args[] = {Pointer(&out)};
    ASSERT_EQ(infinirtLaunchKernel(Kernel(m, "call_answer"), &config, args, 1, nullptr), INFINI_STATUS_SUCCESS)
        << LastError();
    int answer = 0;
    ASSERT_EQ(infinirtMemcpy(&answer, out, sizeof answer, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(answer, 42);
    EXPECT_EQ(infinirtFree(out), INFINI_STATUS_SUCCESS);

    /* The module PTX linked with a cubin-free third image still has its kernels. */
    const infinirtModuleImage_t three[] = {images[0], images[1],
                                           Image(INFINIRT_MODULE_FORMAT_PTX, module_test_ptx, module_test_ptx_size)};
    infinirtModule_t all = Load(three, 3);
    ASSERT_NE(all, nullptr);
    ExpectVectorAdd(all, nullptr);

    /* Alone, the caller does not link. */
    infinirtModule_t lone = nullptr;
    const infiniStatus_t st = infinirtModuleLoad(&lone, INFINI_DEVICE_NVIDIA, 0, images, 1, nullptr, 0);
    std::printf("caller alone: %s: %s\n", infinirtGetErrorName(st), LastError().c_str());
    EXPECT_EQ(st, INFINI_STATUS_BUILD_FAILED);
}

TEST_F(CudaModule, UnknownNamesAreSymbolNotFound) {
    infinirtModule_t m = LoadPtx();
    ASSERT_NE(m, nullptr);
    infinirtKernel_t k = nullptr;
    EXPECT_EQ(infinirtModuleGetKernel(&k, m, "no_such_kernel"), INFINI_STATUS_SYMBOL_NOT_FOUND);
    const std::string message = LastError();
    std::printf("detail: %s\n", message.c_str());
    EXPECT_NE(message.find("no_such_kernel"), std::string::npos) << message;
    if (driver_version_ >= 12040) {
        EXPECT_NE(message.find("vector_add"), std::string::npos) << "drivers from 12.4 list the kernels: " << message;
    }
    void *p = nullptr;
    EXPECT_EQ(infinirtModuleGetGlobal(&p, nullptr, m, "no_such_global"), INFINI_STATUS_SYMBOL_NOT_FOUND);
    EXPECT_NE(LastError().find("no_such_global"), std::string::npos) << LastError();
}

TEST_F(CudaModule, GlobalsAreReadAndWrittenThroughTheirAddress) {
    infinirtModule_t m = LoadPtx();
    ASSERT_NE(m, nullptr);
    void *address = nullptr;
    size_t size = 0;
    ASSERT_EQ(infinirtModuleGetGlobal(&address, &size, m, "g_counter"), INFINI_STATUS_SUCCESS) << LastError();
    EXPECT_EQ(size, sizeof(int));
    int value = 0;
    ASSERT_EQ(infinirtMemcpy(&value, address, sizeof value, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(value, 7);
    value = 9;
    ASSERT_EQ(infinirtMemcpy(address, &value, sizeof value, INFINIRT_MEMCPY_H2D), INFINI_STATUS_SUCCESS);
    void *out = nullptr;
    ASSERT_EQ(infinirtMalloc(&out, sizeof(int)), INFINI_STATUS_SUCCESS);
    const infinirtLaunchConfig_t config = Config(1, 1);
    const infinirtKernelArg_t args[] = {Pointer(&out)};
    ASSERT_EQ(infinirtLaunchKernel(Kernel(m, "read_counter"), &config, args, 1, nullptr), INFINI_STATUS_SUCCESS)
        << LastError();
    ASSERT_EQ(infinirtMemcpy(&value, out, sizeof value, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(value, 9);
    EXPECT_EQ(infinirtFree(out), INFINI_STATUS_SUCCESS);
}

TEST_F(CudaModule, AttributesAreTheDriversFigures) {
    infinirtModule_t m = LoadPtx();
    ASSERT_NE(m, nullptr);
    infinirtKernel_t add = Kernel(m, "vector_add");
    infinirtKernel_t shared = Kernel(m, "static_shared");
    const int64_t max_threads = Attribute(add, INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK);
    EXPECT_GT(max_threads, 0);
    EXPECT_LE(max_threads, 1024);
    EXPECT_EQ(Attribute(add, INFINIRT_KERNEL_ATTR_PREFERRED_BLOCK_MULTIPLE), 32);
    EXPECT_EQ(Attribute(shared, INFINIRT_KERNEL_ATTR_STATIC_SHARED_BYTES), 1024);
    EXPECT_EQ(Attribute(add, INFINIRT_KERNEL_ATTR_STATIC_SHARED_BYTES), 0);
    EXPECT_GT(Attribute(add, INFINIRT_KERNEL_ATTR_NUM_REGISTERS), 0);
    EXPECT_EQ(Attribute(add, INFINIRT_KERNEL_ATTR_PRIVATE_BYTES_PER_THREAD), 0);
    const int64_t params = Attribute(add, INFINIRT_KERNEL_ATTR_NUM_PARAMS);
    if (driver_version_ >= 12040) {
        EXPECT_EQ(params, 4) << "cuFuncGetParamInfo counts vector_add's parameters";
        EXPECT_EQ(Attribute(Kernel(m, "read_counter"), INFINIRT_KERNEL_ATTR_NUM_PARAMS), 1);
        /* The loader refuses a wrong argument count where the count is known. */
        void *p = nullptr;
        const infinirtLaunchConfig_t config = Config(1, 1);
        const infinirtKernelArg_t args[] = {Pointer(&p)};
        EXPECT_EQ(infinirtLaunchKernel(add, &config, args, 1, nullptr), INFINI_STATUS_BAD_PARAM);
    } else {
        EXPECT_EQ(params, -1);
    }
}

TEST_F(CudaModule, DynamicSharedMemoryIsRaisedToTheOptInLimit) {
    infinirtModule_t m = LoadPtx();
    ASSERT_NE(m, nullptr);
    infinirtKernel_t k = Kernel(m, "static_shared");
    CUdevice dev = 0;
    ASSERT_EQ(nativeApi().cuDeviceGet(&dev, 0), CUDA_SUCCESS);
    int optin = 0;
    ASSERT_EQ(nativeApi().cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev),
              CUDA_SUCCESS);
    const int64_t room = optin - 1024;
    const int64_t before = Attribute(k, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES);
    std::printf("opt-in limit %d, default dynamic limit %lld\n", optin, static_cast<long long>(before));
    ASSERT_LT(before, room) << "the default limit is below the opt-in one on every GPU since Volta";

    void *out = nullptr;
    ASSERT_EQ(infinirtMalloc(&out, 256 * sizeof(float)), INFINI_STATUS_SUCCESS);
    const int floats = static_cast<int>(room / sizeof(float));
    const infinirtLaunchConfig_t config = Config(1, 256, static_cast<size_t>(floats) * sizeof(float));
    const infinirtKernelArg_t args[] = {Pointer(&out), Value(&floats)};
    EXPECT_EQ(infinirtLaunchKernel(k, &config, args, 2, nullptr), INFINI_STATUS_BAD_PARAM)
        << "over the kernel's current limit";

    EXPECT_EQ(infinirtKernelSetAttribute(k, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, room + 1),
              INFINI_STATUS_BAD_PARAM);
    EXPECT_NE(LastError().find(std::to_string(optin)), std::string::npos) << LastError();
    ASSERT_EQ(infinirtKernelSetAttribute(k, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, room),
              INFINI_STATUS_SUCCESS)
        << LastError();
    EXPECT_EQ(Attribute(k, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES), room);
    EXPECT_EQ(infinirtLaunchKernel(k, &config, args, 2, nullptr), INFINI_STATUS_SUCCESS) << LastError();
    EXPECT_EQ(infinirtDeviceSynchronize(), INFINI_STATUS_SUCCESS) << LastError();
    float first = 0.0f;
    ASSERT_EQ(infinirtMemcpy(&first, out, sizeof first, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(first, 2.0f) << "buffer[1] + the last dynamic float";
    EXPECT_EQ(infinirtFree(out), INFINI_STATUS_SUCCESS);
}

TEST_F(CudaModule, LocalArgumentsAreOffsetsAfterDynamicSharedMemory) {
    infinirtModule_t m = LoadPtx();
    ASSERT_NE(m, nullptr);
    void *out = nullptr;
    ASSERT_EQ(infinirtMalloc(&out, 4 * sizeof(unsigned long long)), INFINI_STATUS_SUCCESS);
    const int marker = 5;
    const infinirtKernelArg_t args[] = {Pointer(&out), Local(8), Value(&marker), Local(40)};
    const struct {
        size_t dynamic;
        unsigned long long first, second, total;
    } cases[] = {{100, 112, 128, 168}, {0, 0, 16, 56}, {16, 16, 32, 72}};
    for (const auto &c : cases) {
        const infinirtLaunchConfig_t config = Config(1, 32, c.dynamic);
        ASSERT_EQ(infinirtLaunchKernel(Kernel(m, "local_offsets"), &config, args, 4, nullptr), INFINI_STATUS_SUCCESS)
            << LastError();
        unsigned long long seen[4] = {};
        ASSERT_EQ(infinirtMemcpy(seen, out, sizeof seen, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
        EXPECT_EQ(seen[0], c.first) << "dynamic_shared_bytes " << c.dynamic;
        EXPECT_EQ(seen[1], c.second) << "dynamic_shared_bytes " << c.dynamic;
        EXPECT_EQ(seen[2], c.total) << "the launch's dynamic shared memory ends with the last LOCAL";
        EXPECT_EQ(seen[3], 2u * marker + 1) << "both offsets address usable shared memory";
    }
    EXPECT_EQ(infinirtFree(out), INFINI_STATUS_SUCCESS);
}

TEST_F(CudaModule, ClusterAndCooperativeLaunches) {
    infinirtModule_t m = LoadPtx();
    ASSERT_NE(m, nullptr);
    ExpectVectorAdd(m, nullptr, INFINIRT_LAUNCH_COOPERATIVE);

    /* A cooperative grid must fit on the device at once. */
    void *p = nullptr;
    int n = 0;
    infinirtLaunchConfig_t huge = Config(1u << 20, 1024);
    huge.flags = INFINIRT_LAUNCH_COOPERATIVE;
    const infinirtKernelArg_t args[] = {Pointer(&p), Pointer(&p), Pointer(&p), Value(&n)};
    EXPECT_EQ(infinirtLaunchKernel(Kernel(m, "vector_add"), &huge, args, 4, nullptr), INFINI_STATUS_BAD_PARAM);
    EXPECT_NE(LastError().find("cuLaunchKernelEx"), std::string::npos) << LastError();

    if (cc_ < 90) {
        GTEST_SKIP() << "clusters need sm_90, the device is sm_" << cc_;
    }
    const infinirtModuleImage_t fatbin =
        Image(INFINIRT_MODULE_FORMAT_FATBIN, module_test_fatbin, module_test_fatbin_size);
    infinirtModule_t f = Load(&fatbin, 1);
    ASSERT_NE(f, nullptr);
    void *out = nullptr;
    ASSERT_EQ(infinirtMalloc(&out, 8 * sizeof(unsigned)), INFINI_STATUS_SUCCESS);
    infinirtLaunchConfig_t config = Config(8, 32);
    config.cluster[0] = 2;
    const infinirtKernelArg_t out_arg[] = {Pointer(&out)};
    ASSERT_EQ(infinirtLaunchKernel(Kernel(f, "cluster_size"), &config, out_arg, 1, nullptr), INFINI_STATUS_SUCCESS)
        << LastError();
    unsigned sizes[8] = {};
    ASSERT_EQ(infinirtMemcpy(sizes, out, sizeof sizes, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    for (unsigned s : sizes) {
        EXPECT_EQ(s, 2u);
    }
    config.cluster[0] = 0;
    ASSERT_EQ(infinirtLaunchKernel(Kernel(f, "cluster_size"), &config, out_arg, 1, nullptr), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemcpy(sizes, out, sizeof sizes, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(sizes[0], 1u) << "without a cluster each block is its own";
    EXPECT_EQ(infinirtFree(out), INFINI_STATUS_SUCCESS);
}

/* The hot path makes no context call on an explicit stream: it must work from a thread with no
 * current context, and from one whose current context is another (the caller's own). */
TEST_F(CudaModule, LaunchesOnExplicitStreamsNeedNoCurrentContext) {
    infinirtModule_t m = LoadPtx();
    ASSERT_NE(m, nullptr);
    infinirtStream_t stream = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&stream), INFINI_STATUS_SUCCESS);
    std::thread bare([&] {
        ASSERT_TRUE(cuda_test::ContextStack().empty());
        ExpectVectorAdd(m, stream);
        EXPECT_TRUE(cuda_test::ContextStack().empty()) << "the launch left a context behind";
    });
    bare.join();
    std::thread foreign([&] {
        const cuda_test::Extra extra = cuda_test::ExtraEntryPoints();
        ASSERT_NE(extra.cuCtxCreate, nullptr);
        CUdevice dev = 0;
        ASSERT_EQ(nativeApi().cuDeviceGet(&dev, 0), CUDA_SUCCESS);
        CUcontext own = nullptr;
        ASSERT_EQ(extra.cuCtxCreate(&own, 0, dev), CUDA_SUCCESS);
        ExpectVectorAdd(m, stream);
        EXPECT_EQ(cuda_test::ContextStack(), std::vector<CUcontext>{own});
        CUcontext popped = nullptr;
        EXPECT_EQ(nativeApi().cuCtxPopCurrent(&popped), CUDA_SUCCESS);
        EXPECT_EQ(extra.cuCtxDestroy(own), CUDA_SUCCESS);
    });
    foreign.join();
    EXPECT_EQ(infinirtStreamDestroy(stream), INFINI_STATUS_SUCCESS);
}

TEST_F(CudaModule, LaunchesAreCapturedNatively) {
    infinirtModule_t m = LoadPtx();
    ASSERT_NE(m, nullptr);
    void *out = nullptr;
    ASSERT_EQ(infinirtMalloc(&out, sizeof(int)), INFINI_STATUS_SUCCESS);
    void *address = nullptr;
    ASSERT_EQ(infinirtModuleGetGlobal(&address, nullptr, m, "g_counter"), INFINI_STATUS_SUCCESS);
    infinirtStream_t stream = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&stream), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtStreamBeginCapture(stream, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL), INFINI_STATUS_SUCCESS);
    const infinirtLaunchConfig_t config = Config(1, 1);
    const infinirtKernelArg_t args[] = {Pointer(&out)};
    ASSERT_EQ(infinirtLaunchKernel(Kernel(m, "read_counter"), &config, args, 1, stream), INFINI_STATUS_SUCCESS)
        << LastError();
    infinirtGraph_t graph = nullptr;
    ASSERT_EQ(infinirtStreamEndCapture(stream, &graph), INFINI_STATUS_SUCCESS) << LastError();
    int value = -1;
    ASSERT_EQ(infinirtMemcpy(&value, out, sizeof value, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    EXPECT_NE(value, 7) << "a captured launch does not run at capture";
    infinirtGraphExec_t exec = nullptr;
    ASSERT_EQ(infinirtGraphInstantiate(&exec, graph, nullptr, nullptr, 0), INFINI_STATUS_SUCCESS) << LastError();
    for (int round : {11, 12}) {
        ASSERT_EQ(infinirtMemcpy(address, &round, sizeof round, INFINIRT_MEMCPY_H2D), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtGraphLaunch(exec, stream), INFINI_STATUS_SUCCESS) << LastError();
        ASSERT_EQ(infinirtStreamSynchronize(stream), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtMemcpy(&value, out, sizeof value, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
        EXPECT_EQ(value, round);
    }
    EXPECT_EQ(infinirtGraphExecDestroy(exec), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtGraphDestroy(graph), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtStreamDestroy(stream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFree(out), INFINI_STATUS_SUCCESS);
}

TEST_F(CudaModule, UnloadWaitsForQueuedLaunches) {
    infinirtModule_t m = LoadPtx();
    ASSERT_NE(m, nullptr);
    infinirtStream_t stream = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&stream), INFINI_STATUS_SUCCESS);
    const int n = 1 << 16;
    void *in = nullptr, *out = nullptr;
    ASSERT_EQ(infinirtMalloc(&in, (n + 64) * sizeof(float)), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMalloc(&out, 256 * sizeof(float)), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemset(in, 0, (n + 64) * sizeof(float)), INFINI_STATUS_SUCCESS);
    const infinirtLaunchConfig_t config = Config(64, 256);
    const infinirtKernelArg_t args[] = {Pointer(&in), Pointer(&out), Value(&n)};
    infinirtKernel_t k = Kernel(m, "reg_heavy");
    for (int i = 0; i < 8; ++i) {
        ASSERT_EQ(infinirtLaunchKernel(k, &config, args, 3, stream), INFINI_STATUS_SUCCESS) << LastError();
    }
    Unload(m);
    EXPECT_EQ(infinirtStreamQuery(stream), INFINI_STATUS_SUCCESS) << "the unload waited for the launches";
    EXPECT_EQ(infinirtStreamSynchronize(stream), INFINI_STATUS_SUCCESS) << LastError();
    EXPECT_EQ(infinirtLaunchKernel(k, &config, args, 3, stream), INFINI_STATUS_INVALID_HANDLE);
    EXPECT_EQ(infinirtStreamDestroy(stream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFree(in), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFree(out), INFINI_STATUS_SUCCESS);
}

} // namespace
