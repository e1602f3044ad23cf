// opencl modules and kernel launch through the C ABI: OpenCL C builds and their logs, linking,
// kernel lookup, attributes, launches from many threads, SPIR-V where the device takes IL, and
// device binaries read back from a program. Runs on every OpenCL device found (PoCL in CI);
// skipped without one. The kernel set every backend shares is tested in tests/conformance.
#include <CL/cl.h>

#include "infinirt.h"
#include "opencl_test_devices.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

// Raw OpenCL through the same ICD loader instance the plugin uses, for what the C ABI does not
// show: the device's IL versions and extensions, and device binaries of a program built here.
struct RawCl {
    decltype(&::clGetContextInfo) getContextInfo = nullptr;
    decltype(&::clGetDeviceInfo) getDeviceInfo = nullptr;
    decltype(&::clCreateProgramWithSource) createProgramWithSource = nullptr;
    decltype(&::clBuildProgram) buildProgram = nullptr;
    decltype(&::clGetProgramInfo) getProgramInfo = nullptr;
    decltype(&::clReleaseProgram) releaseProgram = nullptr;
    RawCl() {
        void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            return;
        }
        getContextInfo = reinterpret_cast<decltype(getContextInfo)>(dlsym(lib, "clGetContextInfo"));
        getDeviceInfo = reinterpret_cast<decltype(getDeviceInfo)>(dlsym(lib, "clGetDeviceInfo"));
        createProgramWithSource =
            reinterpret_cast<decltype(createProgramWithSource)>(dlsym(lib, "clCreateProgramWithSource"));
        buildProgram = reinterpret_cast<decltype(buildProgram)>(dlsym(lib, "clBuildProgram"));
        getProgramInfo = reinterpret_cast<decltype(getProgramInfo)>(dlsym(lib, "clGetProgramInfo"));
        releaseProgram = reinterpret_cast<decltype(releaseProgram)>(dlsym(lib, "clReleaseProgram"));
    }
    bool ok() const {
        return getContextInfo && getDeviceInfo && createProgramWithSource && buildProgram && getProgramInfo &&
               releaseProgram;
    }
};

const char kVectorAdd[] = R"CL(
kernel void vector_add(const global float *a, const global float *b, global float *c, int n) {
    const int i = (int)get_global_id(0);
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
kernel void fill(global int *out, int value, int n) {
    const int i = (int)get_global_id(0);
    if (i < n) {
        out[i] = value + i;
    }
}
)CL";

infinirtModuleImage_t image(infinirtModuleFormat_t format, const void *data, size_t size,
                            const char *options = nullptr) {
    infinirtModuleImage_t im{};
    im.struct_size = sizeof(im);
    im.format = format;
    im.data = data;
    im.size = size;
    im.options = options;
    return im;
}

infinirtModuleImage_t source(const char *text, const char *options = nullptr) {
    return image(INFINIRT_MODULE_FORMAT_OPENCL_C, text, std::strlen(text), options);
}

infinirtLaunchConfig_t config1d(uint32_t grid, uint32_t block) {
    infinirtLaunchConfig_t c{};
    c.struct_size = sizeof(c);
    c.grid[0] = grid;
    c.grid[1] = c.grid[2] = 1;
    c.block[0] = block;
    c.block[1] = c.block[2] = 1;
    return c;
}

infinirtKernelArg_t pointerArg(void *const *ptr) {
    return {INFINIRT_KERNEL_ARG_POINTER, sizeof(void *), ptr};
}

template <typename T> infinirtKernelArg_t valueArg(const T *value) {
    return {INFINIRT_KERNEL_ARG_VALUE, sizeof(T), value};
}

// Compilers name the place of an error on line 3 as "<file>:3:<column>" (clang-based ones),
// "(3)" or "line 3".
bool namesLine3(const std::string &text) {
    return text.find(":3:") != std::string::npos || text.find("(3)") != std::string::npos ||
           text.find("line 3") != std::string::npos;
}

std::string lastError() {
    const char *message = infinirtGetLastErrorMessage();
    return message ? message : "";
}

class OpenclKernel : public ::testing::TestWithParam<int> {
protected:
    void SetUp() override { ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_OPENCL, GetParam()), INFINI_STATUS_SUCCESS); }
    void TearDown() override {
        for (void *p : buffers_) {
            EXPECT_EQ(infinirtFree(p), INFINI_STATUS_SUCCESS);
        }
        if (module_) {
            EXPECT_EQ(infinirtModuleUnload(module_), INFINI_STATUS_SUCCESS);
        }
    }

    infiniStatus_t load(const infinirtModuleImage_t *images, size_t count, char *log = nullptr, size_t log_size = 0) {
        return infinirtModuleLoad(&module_, INFINI_DEVICE_OPENCL, GetParam(), images, count, log, log_size);
    }

    void *deviceBuffer(size_t bytes) {
        void *p = nullptr;
        EXPECT_EQ(infinirtMalloc(&p, bytes), INFINI_STATUS_SUCCESS);
        buffers_.push_back(p);
        return p;
    }

    // The device's cl_device_id (the one device of the plugin's context).
    cl_device_id deviceId(const RawCl &cl) {
        void *context = nullptr;
        EXPECT_EQ(infinirtDeviceGetNativeContext(INFINI_DEVICE_OPENCL, GetParam(), &context), INFINI_STATUS_SUCCESS);
        cl_device_id id = nullptr;
        EXPECT_EQ(cl.getContextInfo(static_cast<cl_context>(context), CL_CONTEXT_DEVICES, sizeof(id), &id, nullptr),
                  CL_SUCCESS);
        return id;
    }

    std::string deviceString(const RawCl &cl, cl_device_info what) {
        const cl_device_id id = deviceId(cl);
        size_t size = 0;
        if (cl.getDeviceInfo(id, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) {
            return "";
        }
        std::string value(size, '\0');
        cl.getDeviceInfo(id, what, size, value.data(), nullptr);
        value.resize(std::strlen(value.c_str()));
        return value;
    }

    // Runs vector_add of `kernel` over n elements on the default stream and checks every sum.
    void checkVectorAdd(infinirtKernel_t kernel, int n) {
        std::vector<float> a(n), b(n), c(n, -1.0f);
        for (int i = 0; i < n; ++i) {
            a[i] = static_cast<float>(i);
            b[i] = 0.5f * static_cast<float>(i) + 1.0f;
        }
        const size_t bytes = n * sizeof(float);
        void *da = deviceBuffer(bytes), *db = deviceBuffer(bytes), *dc = deviceBuffer(bytes);
        ASSERT_EQ(infinirtMemcpy(da, a.data(), bytes, INFINIRT_MEMCPY_H2D), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtMemcpy(db, b.data(), bytes, INFINIRT_MEMCPY_H2D), INFINI_STATUS_SUCCESS);
        const infinirtKernelArg_t args[] = {pointerArg(&da), pointerArg(&db), pointerArg(&dc), valueArg(&n)};
        const uint32_t block = 64;
        const infinirtLaunchConfig_t cfg = config1d((n + block - 1) / block, block);
        ASSERT_EQ(infinirtLaunchKernel(kernel, &cfg, args, 4, nullptr), INFINI_STATUS_SUCCESS) << lastError();
        ASSERT_EQ(infinirtMemcpy(c.data(), dc, bytes, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
        for (int i = 0; i < n; ++i) {
            ASSERT_EQ(c[i], a[i] + b[i]) << "element " << i;
        }
    }

    infinirtModule_t module_ = nullptr;
    std::vector<void *> buffers_;
};

using infinirt_opencl_test::openclDevices;

TEST_P(OpenclKernel, SourceBuildsAndVectorAddRuns) {
    const infinirtModuleImage_t im = source(kVectorAdd);
    char log[256];
    std::memset(log, 'x', sizeof log);
    ASSERT_EQ(load(&im, 1, log, sizeof log), INFINI_STATUS_SUCCESS) << lastError();
    EXPECT_LT(std::strlen(log), sizeof log); // written and terminated, even when empty
    infinirtKernel_t kernel = nullptr;
    ASSERT_EQ(infinirtModuleGetKernel(&kernel, module_, "vector_add"), INFINI_STATUS_SUCCESS) << lastError();
    checkVectorAdd(kernel, 1000); // 16 blocks of 64: the last one partly past n
}

TEST_P(OpenclKernel, TrailingNulAndOptionsReachTheCompiler) {
    const char text[] = "kernel void k(global int *out) { out[get_global_id(0)] = SCALE * (int)get_global_id(0); }";
    const infinirtModuleImage_t im = image(INFINIRT_MODULE_FORMAT_OPENCL_C, text, sizeof text, "-DSCALE=3");
    ASSERT_EQ(load(&im, 1), INFINI_STATUS_SUCCESS) << lastError();
    infinirtKernel_t kernel = nullptr;
    ASSERT_EQ(infinirtModuleGetKernel(&kernel, module_, "k"), INFINI_STATUS_SUCCESS);
    int *out = static_cast<int *>(deviceBuffer(8 * sizeof(int)));
    const infinirtKernelArg_t arg = pointerArg(reinterpret_cast<void *const *>(&out));
    const infinirtLaunchConfig_t cfg = config1d(2, 4);
    ASSERT_EQ(infinirtLaunchKernel(kernel, &cfg, &arg, 1, nullptr), INFINI_STATUS_SUCCESS) << lastError();
    int host[8] = {};
    ASSERT_EQ(infinirtMemcpy(host, out, sizeof host, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(host[i], 3 * i);
    }
}

TEST_P(OpenclKernel, SyntaxErrorIsBuildFailedWithTheLineInDetailAndLog) {
    const char text[] = "kernel void ok(global int *p) { p[0] = 1; }\n"
                        "\n"
                        "kernel void broken(global int *p) { p[0] = 1 }\n";
    const infinirtModuleImage_t im = source(text);
    char log[4096] = "untouched";
    ASSERT_EQ(load(&im, 1, log, sizeof log), INFINI_STATUS_BUILD_FAILED);
    EXPECT_EQ(module_, nullptr);
    const std::string detail = lastError();
    EXPECT_TRUE(namesLine3(detail)) << detail;
    EXPECT_NE(detail.find("clBuildProgram"), std::string::npos) << detail;
    EXPECT_TRUE(namesLine3(log)) << log;

    // A log buffer too small for the log still ends in a NUL.
    char tiny[8];
    std::memset(tiny, 'x', sizeof tiny);
    ASSERT_EQ(load(&im, 1, tiny, sizeof tiny), INFINI_STATUS_BUILD_FAILED);
    EXPECT_EQ(tiny[sizeof tiny - 1], '\0');
}

TEST_P(OpenclKernel, UnknownKernelNameIsSymbolNotFoundListingTheKernels) {
    const infinirtModuleImage_t im = source(kVectorAdd);
    ASSERT_EQ(load(&im, 1), INFINI_STATUS_SUCCESS) << lastError();
    infinirtKernel_t kernel = nullptr;
    ASSERT_EQ(infinirtModuleGetKernel(&kernel, module_, "vector_sub"), INFINI_STATUS_SYMBOL_NOT_FOUND);
    const std::string detail = lastError();
    EXPECT_NE(detail.find("vector_sub"), std::string::npos) << detail;
    EXPECT_NE(detail.find("vector_add"), std::string::npos) << detail;
    EXPECT_NE(detail.find("fill"), std::string::npos) << detail;
}

TEST_P(OpenclKernel, AttributesComeFromTheKernelAndTheDevice) {
    const char text[] = "kernel void k(global float *out, float a, local float *scratch) {\n"
                        "    local float fixed[16];\n"
                        "    fixed[get_local_id(0) % 16] = a;\n"
                        "    scratch[get_local_id(0)] = a;\n"
                        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                        "    out[get_global_id(0)] = scratch[get_local_id(0)] + fixed[0];\n"
                        "}\n";
    const infinirtModuleImage_t im = source(text);
    ASSERT_EQ(load(&im, 1), INFINI_STATUS_SUCCESS) << lastError();
    infinirtKernel_t kernel = nullptr;
    ASSERT_EQ(infinirtModuleGetKernel(&kernel, module_, "k"), INFINI_STATUS_SUCCESS);
    int64_t v = 0;
    ASSERT_EQ(infinirtKernelGetAttribute(&v, INFINIRT_KERNEL_ATTR_NUM_PARAMS, kernel), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(v, 3);
    ASSERT_EQ(infinirtKernelGetAttribute(&v, INFINIRT_KERNEL_ATTR_NUM_REGISTERS, kernel), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(v, -1);
    int64_t max_threads = 0, multiple = 0, static_local = 0, dynamic = 0;
    ASSERT_EQ(infinirtKernelGetAttribute(&max_threads, INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK, kernel),
              INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtKernelGetAttribute(&multiple, INFINIRT_KERNEL_ATTR_PREFERRED_BLOCK_MULTIPLE, kernel),
              INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtKernelGetAttribute(&static_local, INFINIRT_KERNEL_ATTR_STATIC_SHARED_BYTES, kernel),
              INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtKernelGetAttribute(&dynamic, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, kernel),
              INFINI_STATUS_SUCCESS);
    EXPECT_GE(max_threads, 1);
    EXPECT_GE(multiple, 1);
    EXPECT_GE(static_local, 0);
    EXPECT_GT(dynamic, 0);

    // The device's local memory bounds the settable limit: device - static.
    RawCl cl;
    ASSERT_TRUE(cl.ok());
    cl_ulong local_mem = 0;
    ASSERT_EQ(cl.getDeviceInfo(deviceId(cl), CL_DEVICE_LOCAL_MEM_SIZE, sizeof(local_mem), &local_mem, nullptr),
              CL_SUCCESS);
    EXPECT_EQ(static_cast<uint64_t>(dynamic + static_local), local_mem);
    EXPECT_EQ(infinirtKernelSetAttribute(kernel, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, dynamic + 1),
              INFINI_STATUS_BAD_PARAM);
    EXPECT_NE(lastError().find(std::to_string(dynamic)), std::string::npos) << lastError();

    // Lowered, the limit refuses a LOCAL argument over it; within it the launch runs.
    ASSERT_EQ(infinirtKernelSetAttribute(kernel, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, 64),
              INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtKernelGetAttribute(&v, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, kernel),
              INFINI_STATUS_SUCCESS);
    EXPECT_EQ(v, 64);
    float *out = static_cast<float *>(deviceBuffer(32 * sizeof(float)));
    const float a = 2.5f;
    infinirtKernelArg_t args[] = {pointerArg(reinterpret_cast<void *const *>(&out)),
                                  valueArg(&a),
                                  {INFINIRT_KERNEL_ARG_LOCAL, 16 * sizeof(float), nullptr}};
    const infinirtLaunchConfig_t cfg = config1d(2, 16);
    ASSERT_EQ(infinirtLaunchKernel(kernel, &cfg, args, 3, nullptr), INFINI_STATUS_SUCCESS) << lastError();
    args[2].size = 65;
    EXPECT_EQ(infinirtLaunchKernel(kernel, &cfg, args, 3, nullptr), INFINI_STATUS_BAD_PARAM);
    float host[32] = {};
    ASSERT_EQ(infinirtMemcpy(host, out, sizeof host, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    for (float x : host) {
        EXPECT_EQ(x, 5.0f);
    }
}

TEST_P(OpenclKernel, EightThreadsLaunchOneKernelWithTheirOwnArguments) {
    const infinirtModuleImage_t im = source(kVectorAdd);
    ASSERT_EQ(load(&im, 1), INFINI_STATUS_SUCCESS) << lastError();
    infinirtKernel_t kernel = nullptr;
    ASSERT_EQ(infinirtModuleGetKernel(&kernel, module_, "fill"), INFINI_STATUS_SUCCESS);
    constexpr int kThreads = 8, kLaunches = 40, kN = 256;
    // One buffer per launch, so a launch that took another launch's arguments leaves a buffer
    // unwritten or written with the wrong values.
    std::vector<int *> out(kThreads * kLaunches);
    for (int *&p : out) {
        p = static_cast<int *>(deviceBuffer(kN * sizeof(int)));
        ASSERT_EQ(infinirtMemset(p, 0xff, kN * sizeof(int)), INFINI_STATUS_SUCCESS);
    }
    std::vector<infiniStatus_t> results(kThreads, INFINI_STATUS_SUCCESS);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            infiniStatus_t &result = results[t];
            result = infinirtSetDevice(INFINI_DEVICE_OPENCL, GetParam());
            infinirtStream_t stream = nullptr;
            if (result == INFINI_STATUS_SUCCESS) {
                result = infinirtStreamCreate(&stream);
            }
            for (int l = 0; l < kLaunches && result == INFINI_STATUS_SUCCESS; ++l) {
                int *dst = out[t * kLaunches + l];
                const int value = t * 100000 + l * 1000;
                const int n = kN;
                const infinirtKernelArg_t args[] = {pointerArg(reinterpret_cast<void *const *>(&dst)), valueArg(&value),
                                                    valueArg(&n)};
                const infinirtLaunchConfig_t cfg = config1d(kN / 32, 32);
                result = infinirtLaunchKernel(kernel, &cfg, args, 3, stream);
            }
            if (stream) {
                const infiniStatus_t synced = infinirtStreamSynchronize(stream);
                if (result == INFINI_STATUS_SUCCESS) {
                    result = synced;
                }
                infinirtStreamDestroy(stream);
            }
        });
    }
    for (std::thread &th : threads) {
        th.join();
    }
    for (int t = 0; t < kThreads; ++t) {
        ASSERT_EQ(results[t], INFINI_STATUS_SUCCESS) << "thread " << t;
    }
    std::vector<int> host(kN);
    for (int t = 0; t < kThreads; ++t) {
        for (int l = 0; l < kLaunches; ++l) {
            ASSERT_EQ(infinirtMemcpy(host.data(), out[t * kLaunches + l], kN * sizeof(int), INFINIRT_MEMCPY_D2H),
                      INFINI_STATUS_SUCCESS);
            for (int i = 0; i < kN; ++i) {
                ASSERT_EQ(host[i], t * 100000 + l * 1000 + i) << "thread " << t << " launch " << l << " element " << i;
            }
        }
    }
}

TEST_P(OpenclKernel, LaunchIsOrderedWithCopiesAndEventsOnItsStream) {
    const infinirtModuleImage_t im = source(kVectorAdd);
    ASSERT_EQ(load(&im, 1), INFINI_STATUS_SUCCESS) << lastError();
    infinirtKernel_t kernel = nullptr;
    ASSERT_EQ(infinirtModuleGetKernel(&kernel, module_, "fill"), INFINI_STATUS_SUCCESS);
    infinirtStream_t stream = nullptr;
    infinirtEvent_t done = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&stream), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtEventCreate(&done), INFINI_STATUS_SUCCESS);
    constexpr int kN = 4096;
    int *dst = static_cast<int *>(deviceBuffer(kN * sizeof(int)));
    std::vector<int> host(kN, -1);
    // Launches interleaved with copies of the previous result: each copy sees the launch before it.
    for (int round = 0; round < 4; ++round) {
        const int value = round * 10000, n = kN;
        const infinirtKernelArg_t args[] = {pointerArg(reinterpret_cast<void *const *>(&dst)), valueArg(&value),
                                            valueArg(&n)};
        const infinirtLaunchConfig_t cfg = config1d(kN / 64, 64);
        ASSERT_EQ(infinirtLaunchKernel(kernel, &cfg, args, 3, stream), INFINI_STATUS_SUCCESS) << lastError();
        ASSERT_EQ(infinirtMemcpyAsync(host.data(), dst, kN * sizeof(int), INFINIRT_MEMCPY_D2H, stream),
                  INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtEventRecord(done, stream), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtEventSynchronize(done), INFINI_STATUS_SUCCESS);
        for (int i = 0; i < kN; ++i) {
            ASSERT_EQ(host[i], value + i) << "round " << round;
        }
    }
    EXPECT_EQ(infinirtStreamQuery(stream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtEventDestroy(done), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtStreamDestroy(stream), INFINI_STATUS_SUCCESS);
}

TEST_P(OpenclKernel, LaunchShapesOpenclCannotRunAreRefused) {
    const infinirtModuleImage_t im = source(kVectorAdd);
    ASSERT_EQ(load(&im, 1), INFINI_STATUS_SUCCESS) << lastError();
    infinirtKernel_t kernel = nullptr;
    ASSERT_EQ(infinirtModuleGetKernel(&kernel, module_, "fill"), INFINI_STATUS_SUCCESS);
    // A NULL buffer is a valid argument (the kernel writes nothing with n = 0).
    void *none = nullptr;
    const int value = 1, n = 0;
    const infinirtKernelArg_t args[] = {pointerArg(&none), valueArg(&value), valueArg(&n)};
    infinirtLaunchConfig_t cfg = config1d(1, 1);
    ASSERT_EQ(infinirtLaunchKernel(kernel, &cfg, args, 3, nullptr), INFINI_STATUS_SUCCESS) << lastError();
    ASSERT_EQ(infinirtDeviceSynchronize(), INFINI_STATUS_SUCCESS);

    cfg.flags = INFINIRT_LAUNCH_COOPERATIVE;
    EXPECT_EQ(infinirtLaunchKernel(kernel, &cfg, args, 3, nullptr), INFINI_STATUS_NOT_IMPLEMENTED);
    EXPECT_NE(lastError().find("cooperative"), std::string::npos) << lastError();
    cfg.flags = 0;
    cfg.cluster[0] = 2;
    EXPECT_EQ(infinirtLaunchKernel(kernel, &cfg, args, 3, nullptr), INFINI_STATUS_NOT_IMPLEMENTED);
    EXPECT_NE(lastError().find("cluster"), std::string::npos) << lastError();
    cfg.cluster[0] = 0;

    // A block within the kernel's work-group size but over a per-dimension limit (NVIDIA: z <= 64).
    RawCl cl;
    ASSERT_TRUE(cl.ok());
    size_t items[3] = {0, 0, 0};
    ASSERT_EQ(cl.getDeviceInfo(deviceId(cl), CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, nullptr), CL_SUCCESS);
    int64_t max_threads = 0;
    ASSERT_EQ(infinirtKernelGetAttribute(&max_threads, INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK, kernel),
              INFINI_STATUS_SUCCESS);
    if (items[2] >= static_cast<size_t>(max_threads)) {
        return; // every block the loader lets through fits (PoCL: 4096 in each dimension)
    }
    cfg.block[0] = 1;
    cfg.block[2] = static_cast<uint32_t>(items[2] + 1);
    EXPECT_EQ(infinirtLaunchKernel(kernel, &cfg, args, 3, nullptr), INFINI_STATUS_BAD_PARAM);
    EXPECT_NE(lastError().find(std::to_string(items[2])), std::string::npos) << lastError();
}

// Each argument's kind must fit its parameter (from clGetKernelArgInfo: the plugin builds OpenCL C
// with -cl-kernel-arg-info). The bytes of a VALUE argument given to a __global parameter are read
// as a cl_mem handle: with a device address there, PoCL 3.1 aborted the process ("PTHREAD ERROR
// in can_run_command(): Invalid argument") or crashed inside clEnqueueNDRangeKernel (the bounded
// libFuzzer run, tests/fuzz/corpus/calls/regression-opencl-value-for-global-pointer).
TEST_P(OpenclKernel, ArgumentsThatDoNotFitTheirParameterAreRefused) {
    const char text[] = R"CL(
kernel void kinds(global int *out, int value, local int *scratch, constant int *add) {
    scratch[get_local_id(0)] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = scratch[get_local_id(0)] + add[0];
}
)CL";
    const infinirtModuleImage_t im = source(text);
    ASSERT_EQ(load(&im, 1), INFINI_STATUS_SUCCESS) << lastError();
    infinirtKernel_t kernel = nullptr;
    ASSERT_EQ(infinirtModuleGetKernel(&kernel, module_, "kinds"), INFINI_STATUS_SUCCESS);
    const uint32_t block = 4;
    int *out = static_cast<int *>(deviceBuffer(block * sizeof(int)));
    int *add = static_cast<int *>(deviceBuffer(sizeof(int)));
    const int one = 1;
    ASSERT_EQ(infinirtMemcpy(add, &one, sizeof one, INFINIRT_MEMCPY_H2D), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemset(out, 0, block * sizeof(int)), INFINI_STATUS_SUCCESS);
    const int value = 41;
    const infinirtKernelArg_t pointer = pointerArg(reinterpret_cast<void *const *>(&out));
    const infinirtKernelArg_t by_value = valueArg(&value);
    const infinirtKernelArg_t local = {INFINIRT_KERNEL_ARG_LOCAL, block * sizeof(int), nullptr};
    const infinirtKernelArg_t constant = pointerArg(reinterpret_cast<void *const *>(&add));
    const infinirtLaunchConfig_t cfg = config1d(1, block);

    // The device address as VALUE bytes (what the fuzzer did), and every other misfit.
    const infinirtKernelArg_t address_as_value = valueArg(&out);
    const infinirtKernelArg_t pointer_as_local = {INFINIRT_KERNEL_ARG_LOCAL, sizeof(void *), nullptr};
    struct Misfit {
        unsigned index;
        infinirtKernelArg_t arg;
        const char *names; // what the message must say of the parameter
    };
    const Misfit misfits[] = {
        {0, address_as_value, "POINTER"}, {0, pointer_as_local, "POINTER"}, {1, pointer, "VALUE"},
        {2, by_value, "LOCAL"},           {2, pointer, "LOCAL"},            {3, address_as_value, "POINTER"},
    };
    for (const Misfit &m : misfits) {
        infinirtKernelArg_t args[] = {pointer, by_value, local, constant};
        args[m.index] = m.arg;
        EXPECT_EQ(infinirtLaunchKernel(kernel, &cfg, args, 4, nullptr), INFINI_STATUS_BAD_PARAM)
            << "argument " << m.index;
        const std::string message = lastError();
        EXPECT_NE(message.find("parameter " + std::to_string(m.index)), std::string::npos) << message;
        EXPECT_NE(message.find(m.names), std::string::npos) << message;
    }
    ASSERT_EQ(infinirtDeviceSynchronize(), INFINI_STATUS_SUCCESS);
    std::vector<int> host(block, -1);
    ASSERT_EQ(infinirtMemcpy(host.data(), out, block * sizeof(int), INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(host, std::vector<int>(block, 0)) << "a refused launch ran";

    // The arguments that fit still launch, after the refusals.
    const infinirtKernelArg_t args[] = {pointer, by_value, local, constant};
    ASSERT_EQ(infinirtLaunchKernel(kernel, &cfg, args, 4, nullptr), INFINI_STATUS_SUCCESS) << lastError();
    ASSERT_EQ(infinirtMemcpy(host.data(), out, block * sizeof(int), INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(host, std::vector<int>(block, value + 1));

    // An image parameter takes no argument infinirt can give (where the device has images).
    const char image_text[] = "kernel void width(read_only image2d_t im, global int *out) { out[0] = get_image_width(im); }";
    const infinirtModuleImage_t image_im = source(image_text);
    infinirtModule_t image_module = nullptr;
    if (infinirtModuleLoad(&image_module, INFINI_DEVICE_OPENCL, GetParam(), &image_im, 1, nullptr, 0) ==
        INFINI_STATUS_SUCCESS) {
        infinirtKernel_t width = nullptr;
        ASSERT_EQ(infinirtModuleGetKernel(&width, image_module, "width"), INFINI_STATUS_SUCCESS);
        for (const infinirtKernelArg_t &arg : {address_as_value, pointer}) {
            const infinirtKernelArg_t image_args[] = {arg, pointer};
            EXPECT_EQ(infinirtLaunchKernel(width, &cfg, image_args, 2, nullptr), INFINI_STATUS_BAD_PARAM);
            EXPECT_NE(lastError().find("image2d_t"), std::string::npos) << lastError();
        }
        EXPECT_EQ(infinirtModuleUnload(image_module), INFINI_STATUS_SUCCESS);
    }
}

TEST_P(OpenclKernel, SeveralSourcesAreCompiledAndLinked) {
    const char helper[] = "int scaled(int x) { return FACTOR * x; }\n";
    const char main_source[] =
        "int scaled(int x);\n"
        "kernel void k(global int *out) { out[get_global_id(0)] = scaled((int)get_global_id(0)); }\n";
    const infinirtModuleImage_t images[] = {source(helper, "-DFACTOR=5"), source(main_source)};
    char log[1024];
    ASSERT_EQ(load(images, 2, log, sizeof log), INFINI_STATUS_SUCCESS) << lastError() << "\n" << log;
    infinirtKernel_t kernel = nullptr;
    ASSERT_EQ(infinirtModuleGetKernel(&kernel, module_, "k"), INFINI_STATUS_SUCCESS) << lastError();
    int *out = static_cast<int *>(deviceBuffer(16 * sizeof(int)));
    const infinirtKernelArg_t arg = pointerArg(reinterpret_cast<void *const *>(&out));
    const infinirtLaunchConfig_t cfg = config1d(4, 4);
    ASSERT_EQ(infinirtLaunchKernel(kernel, &cfg, &arg, 1, nullptr), INFINI_STATUS_SUCCESS) << lastError();
    int host[16] = {};
    ASSERT_EQ(infinirtMemcpy(host, out, sizeof host, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    for (int i = 0; i < 16; ++i) {
        EXPECT_EQ(host[i], 5 * i);
    }
}

TEST_P(OpenclKernel, ACompileErrorInOneOfSeveralSourcesNamesTheImage) {
    const char good[] = "int scaled(int x) { return 2 * x; }\n";
    const char bad[] = "kernel void k(global int *out) {\n  out[0] = undeclared_thing;\n}\n";
    const infinirtModuleImage_t images[] = {source(good), source(bad)};
    char log[2048] = "";
    ASSERT_EQ(load(images, 2, log, sizeof log), INFINI_STATUS_BUILD_FAILED);
    const std::string detail = lastError();
    EXPECT_NE(detail.find("clCompileProgram"), std::string::npos) << detail;
    EXPECT_NE(detail.find("image 1"), std::string::npos) << detail;
    EXPECT_NE(std::string(log).find("undeclared_thing"), std::string::npos) << log;
}

TEST_P(OpenclKernel, FormatsOtherThanTheThreeAreRefusedByName) {
    const char ptx[] = ".version 7.0\n.target sm_80\n";
    const infinirtModuleImage_t im = image(INFINIRT_MODULE_FORMAT_PTX, ptx, sizeof ptx);
    ASSERT_EQ(load(&im, 1), INFINI_STATUS_BAD_PARAM);
    const std::string detail = lastError();
    for (const char *name : {"PTX", "OPENCL_C", "SPIRV", "DEVICE_BINARY"}) {
        EXPECT_NE(detail.find(name), std::string::npos) << detail;
    }
}

// The smallest OpenCL SPIR-V module: an empty kernel "empty" (SPIR-V 1.0, hand-assembled).
const uint32_t kEmptyKernelSpirv[] = {
    0x07230203,       0x00010000, 0, 5,          0,    // magic, version 1.0, generator, id bound, schema
    (2u << 16) | 17,  4,                               // OpCapability Addresses
    (2u << 16) | 17,  6,                               // OpCapability Kernel
    (3u << 16) | 14,  2,          2,                   // OpMemoryModel Physical64 OpenCL
    (5u << 16) | 15,  6,          1, 0x74706d65, 0x79, // OpEntryPoint Kernel %1 "empty"
    (2u << 16) | 19,  3,                               // %3 = OpTypeVoid
    (3u << 16) | 33,  4,          3,                   // %4 = OpTypeFunction %3
    (5u << 16) | 54,  3,          1, 0,          4,    // %1 = OpFunction %3 None %4
    (2u << 16) | 248, 2,                               // %2 = OpLabel
    (1u << 16) | 253,                                  // OpReturn
    (1u << 16) | 56,                                   // OpFunctionEnd
};

TEST_P(OpenclKernel, SpirvLoadsWhereTheDeviceTakesIlAndIsNotImplementedElsewhere) {
    RawCl cl;
    ASSERT_TRUE(cl.ok());
    const std::string il = deviceString(cl, CL_DEVICE_IL_VERSION);
    const infinirtModuleImage_t im = image(INFINIRT_MODULE_FORMAT_SPIRV, kEmptyKernelSpirv, sizeof kEmptyKernelSpirv);
    const infiniStatus_t status = load(&im, 1);
    if (il.empty()) {
        ASSERT_EQ(status, INFINI_STATUS_NOT_IMPLEMENTED);
        EXPECT_NE(lastError().find("none"), std::string::npos) << lastError();
        return;
    }
    ASSERT_EQ(status, INFINI_STATUS_SUCCESS) << "IL versions " << il << ": " << lastError();
    infinirtKernel_t kernel = nullptr;
    ASSERT_EQ(infinirtModuleGetKernel(&kernel, module_, "empty"), INFINI_STATUS_SUCCESS) << lastError();
    const infinirtLaunchConfig_t cfg = config1d(4, 1);
    ASSERT_EQ(infinirtLaunchKernel(kernel, &cfg, nullptr, 0, nullptr), INFINI_STATUS_SUCCESS) << lastError();
    ASSERT_EQ(infinirtDeviceSynchronize(), INFINI_STATUS_SUCCESS);
}

TEST_P(OpenclKernel, DeviceBinaryOfABuiltProgramLoadsAndRuns) {
    RawCl cl;
    ASSERT_TRUE(cl.ok());
    void *context = nullptr;
    ASSERT_EQ(infinirtDeviceGetNativeContext(INFINI_DEVICE_OPENCL, GetParam(), &context), INFINI_STATUS_SUCCESS);
    cl_device_id id = deviceId(cl);
    const char *text = kVectorAdd;
    cl_int err = CL_SUCCESS;
    cl_program program = cl.createProgramWithSource(static_cast<cl_context>(context), 1, &text, nullptr, &err);
    ASSERT_NE(program, nullptr) << err;
    ASSERT_EQ(cl.buildProgram(program, 1, &id, nullptr, nullptr, nullptr), CL_SUCCESS);
    size_t size = 0;
    ASSERT_EQ(cl.getProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr), CL_SUCCESS);
    std::vector<unsigned char> binary(size);
    unsigned char *slot = binary.data();
    const cl_int read =
        size ? cl.getProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(slot), &slot, nullptr) : CL_SUCCESS;
    cl.releaseProgram(program);
    if (size == 0) {
        GTEST_SKIP() << "the implementation gives no binary for a built program";
    }
    ASSERT_EQ(read, CL_SUCCESS);

    const infinirtModuleImage_t im = image(INFINIRT_MODULE_FORMAT_DEVICE_BINARY, binary.data(), binary.size());
    ASSERT_EQ(load(&im, 1), INFINI_STATUS_SUCCESS) << lastError();
    infinirtKernel_t kernel = nullptr;
    ASSERT_EQ(infinirtModuleGetKernel(&kernel, module_, "vector_add"), INFINI_STATUS_SUCCESS) << lastError();
    checkVectorAdd(kernel, 300);

    // Bytes that are no binary of this device are refused, not crashed on.
    std::vector<unsigned char> garbage(256, 0x5a);
    infinirtModule_t other = nullptr;
    const infinirtModuleImage_t bad = image(INFINIRT_MODULE_FORMAT_DEVICE_BINARY, garbage.data(), garbage.size());
    const infiniStatus_t status = infinirtModuleLoad(&other, INFINI_DEVICE_OPENCL, GetParam(), &bad, 1, nullptr, 0);
    EXPECT_NE(status, INFINI_STATUS_SUCCESS);
    EXPECT_EQ(other, nullptr);
}

TEST_P(OpenclKernel, ModuleGlobalNeedsTheIntelExtension) {
    RawCl cl;
    ASSERT_TRUE(cl.ok());
    const std::string extensions = " " + deviceString(cl, CL_DEVICE_EXTENSIONS) + " ";
    const infinirtModuleImage_t im = source(kVectorAdd);
    ASSERT_EQ(load(&im, 1), INFINI_STATUS_SUCCESS) << lastError();
    void *ptr = nullptr;
    const infiniStatus_t status = infinirtModuleGetGlobal(&ptr, nullptr, module_, "g_value");
    if (extensions.find(" cl_intel_global_variable_pointers ") == std::string::npos) {
        EXPECT_EQ(status, INFINI_STATUS_NOT_IMPLEMENTED);
        EXPECT_NE(lastError().find("buffer argument"), std::string::npos) << lastError();
    } else {
        EXPECT_EQ(status, INFINI_STATUS_SYMBOL_NOT_FOUND) << lastError();
    }
}

INSTANTIATE_TEST_SUITE_P(Devices, OpenclKernel, ::testing::ValuesIn(openclDevices()),
                         [](const ::testing::TestParamInfo<int> &info) {
                             return "opencl" + std::to_string(info.param);
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpenclKernel);

} // namespace
