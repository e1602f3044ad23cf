/*
 * kernels_opencl_bench - what an infinirt kernel launch costs over OpenCL, measured side by side
 * in one run on the same objects, for every opencl device infinirt finds (or the one named by
 * INFINIRT_BENCH_DEVICE=<opencl index>): the cl_command_queue behind an infinirt stream
 * (infinirtStreamGetNativeHandle) and a cl_kernel of the same source built with clBuildProgram
 * on the device's cl_context (infinirtDeviceGetNativeContext).
 *  - launch overhead of an empty kernel (1 work-group of 1 work-item): infinirtLaunchKernel
 *    against clEnqueueNDRangeKernel, + clFlush where the plugin flushes launches (on devices that
 *    hold commands until a flush; see pluginFlushes), in batches drained with clFinish between
 *    them (untimed); limit: added <= max(2%, 50 ns). The other raw variant is an info row, and so
 *    is the limit's comparison made call by call (kernel_bench.h, interleaved);
 *  - launch + synchronise latency: infinirtLaunchKernel + infinirtStreamSynchronize against
 *    clEnqueueNDRangeKernel + clFinish.
 * Batches alternate infinirt and raw OpenCL (ABBA); each figure is the median over batches, and a
 * limit is judged on the median of the per-round differences (kernel_bench.h, Pair::added).
 * Prints a table per device and PASS/FAIL per limit; exits 0 whatever the timings (1 when a call
 * fails).
 * Usage: infinirt-kernels-opencl-bench [--quick] [--launches=N]   (--quick: a smoke run with tiny
 *   counts; --launches: launches per timed batch of the overhead rows, default 256)
 */
#include <CL/cl.h>

#include "kernel_bench.h"

#include <dlfcn.h>

#include <string>
#include <thread>
#include <vector>

namespace {

/* Both sides build the kernel with the same options: the plugin otherwise adds the -cl-std= its
 * module globals need (OpenCL C 2.0 or 3.0), and a kernel compiled for another OpenCL C version
 * launches at another cost. The plugin adds -cl-kernel-arg-info (its launches check arguments)
 * and builds again without it where the implementation fails with it (NVIDIA's, on this
 * parameterless kernel): the anchor's build does the same. */
const char *const kBuildOptions = "-cl-std=CL1.2";
const char *const kBuildOptionsArgInfo = "-cl-std=CL1.2 -cl-kernel-arg-info";

using namespace infinirt_bench;

#define BENCH_CL_SYMBOLS(X)                                                                                            \
    X(clGetCommandQueueInfo)                                                                                           \
    X(clCreateProgramWithSource)                                                                                       \
    X(clBuildProgram)                                                                                                  \
    X(clCreateKernel)                                                                                                  \
    X(clEnqueueNDRangeKernel)                                                                                          \
    X(clFlush)                                                                                                         \
    X(clFinish)                                                                                                        \
    X(clGetEventInfo)                                                                                                  \
    X(clReleaseEvent)                                                                                                  \
    X(clReleaseKernel)                                                                                                 \
    X(clReleaseProgram)

struct Raw {
#define BENCH_CL_DECLARE(name) decltype(&::name) name = nullptr;
    BENCH_CL_SYMBOLS(BENCH_CL_DECLARE)
#undef BENCH_CL_DECLARE
};
Raw cl;

bool checkCl(cl_int err, const char *what) {
    if (err != CL_SUCCESS) {
        std::fprintf(stderr, "%s failed: %d\n", what, err);
        g_failed = true;
        return false;
    }
    return true;
}

bool loadOpenCl() {
    // The plugin already loaded the ICD loader; dlopen returns the same instance.
    void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
        std::fprintf(stderr, "kernels_opencl_bench: dlopen(libOpenCL.so.1): %s\n", dlerror());
        return false;
    }
#define BENCH_CL_RESOLVE(name)                                                                                         \
    cl.name = reinterpret_cast<decltype(cl.name)>(dlsym(lib, #name));                                                  \
    if (cl.name == nullptr) {                                                                                          \
        std::fprintf(stderr, "kernels_opencl_bench: libOpenCL.so.1 lacks " #name "\n");                                \
        return false;                                                                                                  \
    }
    BENCH_CL_SYMBOLS(BENCH_CL_RESOLVE)
#undef BENCH_CL_RESOLVE
    return true;
}

/* Whether the plugin flushes after each launch on this device: INFINIRT_OPENCL_FLUSH_LAUNCHES=0/1
 * where set, else the plugin's own probe (opencl_module.cpp) repeated here: a command enqueued
 * without a flush that is still CL_QUEUED 2 ms later means the implementation holds commands
 * until a flush, and launches are flushed. */
bool pluginFlushes(cl_command_queue queue, cl_kernel kernel) {
    const char *env = std::getenv("INFINIRT_OPENCL_FLUSH_LAUNCHES");
    if (env != nullptr && (std::strcmp(env, "0") == 0 || std::strcmp(env, "1") == 0)) {
        return env[0] == '1';
    }
    const size_t one = 1;
    cl_event done = nullptr;
    cl_int state = CL_QUEUED;
    if (cl.clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &one, &one, 0, nullptr, &done) == CL_SUCCESS) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        if (cl.clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, nullptr) != CL_SUCCESS) {
            state = CL_QUEUED;
        }
        cl.clReleaseEvent(done);
    }
    cl.clFinish(queue);
    return !(state >= CL_COMPLETE && state <= CL_SUBMITTED);
}

/* Measures one device; returns false when a call failed. */
bool benchDevice(int device, const std::string &source, bool quick, int launches) {
    const int rounds = quick ? 2 : 51;
    /* Calls per timed batch: `launches` (drained between batches), launch + sync. */
    const int syncs = quick ? 5 : 100;

    if (!check(infinirtSetDevice(INFINI_DEVICE_OPENCL, device), "infinirtSetDevice")) {
        return false;
    }
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof props;
    check(infinirtGetDeviceProperties(INFINI_DEVICE_OPENCL, device, &props), "infinirtGetDeviceProperties");
    infinirtStream_t stream = nullptr;
    if (!check(infinirtStreamCreate(&stream), "infinirtStreamCreate")) {
        return false;
    }
    void *native = nullptr;
    check(infinirtStreamGetNativeHandle(stream, &native), "infinirtStreamGetNativeHandle");
    cl_command_queue queue = static_cast<cl_command_queue>(native);
    check(infinirtDeviceGetNativeContext(INFINI_DEVICE_OPENCL, device, &native), "infinirtDeviceGetNativeContext");
    cl_context context = static_cast<cl_context>(native);
    cl_device_id cl_device = nullptr;
    if (!g_failed) {
        checkCl(cl.clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof cl_device, &cl_device, nullptr),
                "clGetCommandQueueInfo(CL_QUEUE_DEVICE)");
    }

    /* The same source on both sides. */
    infinirtModule_t module = nullptr;
    infinirtKernel_t kernel = nullptr;
    if (!g_failed) {
        g_failed = !loadModule(&module, INFINI_DEVICE_OPENCL, device, INFINIRT_MODULE_FORMAT_OPENCL_C, source,
                               kBuildOptions) ||
                   !check(infinirtModuleGetKernel(&kernel, module, "empty"), "infinirtModuleGetKernel(empty)");
    }
    cl_program program = nullptr;
    cl_kernel cl_kernel_ = nullptr;
    if (!g_failed) {
        const char *text = source.c_str();
        const size_t length = source.size();
        cl_int err = CL_SUCCESS;
        program = cl.clCreateProgramWithSource(context, 1, &text, &length, &err);
        if (checkCl(err, "clCreateProgramWithSource") &&
            (cl.clBuildProgram(program, 1, &cl_device, kBuildOptionsArgInfo, nullptr, nullptr) == CL_SUCCESS ||
             checkCl(cl.clBuildProgram(program, 1, &cl_device, kBuildOptions, nullptr, nullptr), "clBuildProgram"))) {
            cl_kernel_ = cl.clCreateKernel(program, "empty", &err);
            checkCl(err, "clCreateKernel(empty)");
        }
    }
    if (g_failed) {
        return false;
    }

    const infinirtLaunchConfig_t config = launchConfig(1, 1);
    const size_t one = 1;
    auto ours = [&] { infinirtLaunchKernel(kernel, &config, nullptr, 0, stream); };
    auto enqueue = [&] { cl.clEnqueueNDRangeKernel(queue, cl_kernel_, 1, nullptr, &one, &one, 0, nullptr, nullptr); };
    auto enqueueFlush = [&] {
        enqueue();
        cl.clFlush(queue);
    };
    auto drain = [&] { cl.clFinish(queue); };
    /* Every call is checked once before timing; the timed loops ignore the statuses. */
    check(infinirtLaunchKernel(kernel, &config, nullptr, 0, stream), "infinirtLaunchKernel");
    checkCl(cl.clEnqueueNDRangeKernel(queue, cl_kernel_, 1, nullptr, &one, &one, 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel");
    check(infinirtStreamSynchronize(stream), "infinirtStreamSynchronize");
    checkCl(cl.clFinish(queue), "clFinish");
    if (g_failed) {
        return false;
    }

    /* The limit is taken against the raw calls that do what the plugin does on this device. */
    const bool flushes = pluginFlushes(queue, cl_kernel_);
    std::vector<Row> rows;
    const Pair with_flush = paired(rounds, launches, ours, enqueueFlush, drain);
    const Pair without_flush = paired(rounds, launches, ours, enqueue, drain);
    rows.push_back(addedAtMost(flushes ? "launch, empty kernel 1x1 (vs enqueue+flush)"
                                       : "launch, empty kernel 1x1 (vs enqueue alone)",
                               flushes ? with_flush : without_flush, 2.0, 50.0));
    rows.push_back(
        info(flushes ? "launch, empty kernel 1x1 (vs enqueue alone)" : "launch, empty kernel 1x1 (vs enqueue+flush)",
             "ns", flushes ? without_flush : with_flush));
    rows.push_back(info("launch 1x1, call by call (as the limit's)", "ns",
                        flushes ? interleaved(rounds, launches / 2, ours, enqueueFlush, drain)
                                : interleaved(rounds, launches / 2, ours, enqueue, drain)));
    rows.push_back(info("launch + sync, empty kernel 1x1", "ns", launchSync(rounds, syncs, kernel, config, stream, [&] {
                            enqueue();
                            cl.clFinish(queue);
                        })));
    const std::string title = format(
        "opencl kernel launch on opencl:%d %s (%s, driver %s), launches %sflushed by the plugin; median of %d "
        "batches per side of %d (launch), %d (launch + sync) calls",
        device, props.name, props.platform, props.driver_version, flushes ? "" : "not ", 2 * rounds, launches, syncs);
    printTable(title,
               "clEnqueueNDRangeKernel (+ clFlush) / clFinish on the same cl_command_queue, a cl_kernel of the same "
               "source built with clBuildProgram",
               rows);

    checkCl(cl.clReleaseKernel(cl_kernel_), "clReleaseKernel");
    checkCl(cl.clReleaseProgram(program), "clReleaseProgram");
    check(infinirtModuleUnload(module), "infinirtModuleUnload");
    check(infinirtStreamDestroy(stream), "infinirtStreamDestroy");
    return !g_failed;
}

} // namespace

int main(int argc, char **argv) {
    const bool quick = quickMode(argc, argv);
    const int launches = intOption(argc, argv, "--launches", quick ? 20 : 256);
    int count = 0;
    if (infinirtGetDeviceCount(INFINI_DEVICE_OPENCL, &count) != INFINI_STATUS_SUCCESS || count == 0) {
        std::printf("kernels_opencl_bench: no opencl device, nothing measured\n");
        return 0;
    }
    if (!loadOpenCl()) {
        return 1;
    }
    const std::string source = readFile(INFINIRT_BENCH_KERNELS_CL);
    if (source.empty()) {
        return 1;
    }
    const char *want = std::getenv("INFINIRT_BENCH_DEVICE");
    for (int device = 0; device < count; ++device) {
        if (want != nullptr && *want != '\0' && std::atoi(want) != device) {
            continue;
        }
        if (!benchDevice(device, source, quick, launches)) {
            return 1;
        }
    }
    return 0;
}
