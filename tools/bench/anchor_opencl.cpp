// anchor_opencl.cpp - the opencl backend's anchor: OpenCL through the ICD loader the plugin already
// loaded (dlopen returns the same instance), on the plugin's own objects: clEnqueueSVMMemcpy
// (blocking) on the device's default queue for the synchronous copies, as infinirtMemcpy uses it;
// on the cl_command_queue behind the tool's stream, clEnqueueMarkerWithWaitList (the previous
// marker released, as the plugin does) and clGetEventInfo, clFinish, and clEnqueueNDRangeKernel +
// clFlush of the same OpenCL C source built with the same options on the device's cl_context.
#include "bench_anchor.h"

#ifdef INFINIRT_BENCH_WITH_OPENCL
#include <CL/cl.h>

#include <dlfcn.h>
#endif

namespace infinirt_bench_tool {

#ifndef INFINIRT_BENCH_WITH_OPENCL

Anchor openclAnchor(const Target &) { return noAnchor("infinirt-bench was built without the opencl backend"); }

#else

namespace {

// Both sides build the kernel with the same options (bench/kernels found that the OpenCL C
// version changes what a launch costs on PoCL).
const char kEmptySource[] = "kernel void empty(void) {}\n";
const char kOptions[] = "-cl-std=CL1.2";

#define BENCH_TOOL_CL_SYMBOLS(X)                                                                                       \
    X(clGetCommandQueueInfo)                                                                                           \
    X(clCreateProgramWithSource)                                                                                       \
    X(clBuildProgram)                                                                                                  \
    X(clCreateKernel)                                                                                                  \
    X(clEnqueueNDRangeKernel)                                                                                          \
    X(clEnqueueSVMMemcpy)                                                                                              \
    X(clEnqueueMarkerWithWaitList)                                                                                     \
    X(clFlush)                                                                                                         \
    X(clFinish)                                                                                                        \
    X(clGetEventInfo)                                                                                                  \
    X(clReleaseEvent)

struct Api {
#define BENCH_TOOL_CL_DECLARE(name) decltype(&::name) name = nullptr;
    BENCH_TOOL_CL_SYMBOLS(BENCH_TOOL_CL_DECLARE)
#undef BENCH_TOOL_CL_DECLARE
};

} // namespace

Anchor openclAnchor(const Target &target) {
    void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
        return noAnchor(std::string("dlopen(libOpenCL.so.1): ") + dlerror());
    }
    static Api cl; // the lambdas below outlive this call
#define BENCH_TOOL_CL_RESOLVE(name)                                                                                    \
    cl.name = reinterpret_cast<decltype(cl.name)>(dlsym(lib, #name));                                                  \
    if (cl.name == nullptr) {                                                                                          \
        return noAnchor("libOpenCL.so.1 lacks " #name);                                                                    \
    }
    BENCH_TOOL_CL_SYMBOLS(BENCH_TOOL_CL_RESOLVE)
#undef BENCH_TOOL_CL_RESOLVE

    void *native = nullptr;
    if (infinirtStreamGetNativeHandle(target.stream, &native) != INFINI_STATUS_SUCCESS) {
        return noAnchor(std::string("infinirtStreamGetNativeHandle: ") + infinirtGetLastErrorMessage());
    }
    cl_command_queue queue = static_cast<cl_command_queue>(native);
    if (infinirtStreamGetNativeHandle(nullptr, &native) != INFINI_STATUS_SUCCESS) {
        return noAnchor(std::string("infinirtStreamGetNativeHandle(NULL): ") + infinirtGetLastErrorMessage());
    }
    cl_command_queue default_queue = static_cast<cl_command_queue>(native);
    if (infinirtDeviceGetNativeContext(target.type, target.id, &native) != INFINI_STATUS_SUCCESS) {
        return noAnchor(std::string("infinirtDeviceGetNativeContext: ") + infinirtGetLastErrorMessage());
    }
    cl_context context = static_cast<cl_context>(native);
    cl_device_id device = nullptr;
    if (cl.clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, nullptr) != CL_SUCCESS) {
        return noAnchor("clGetCommandQueueInfo(CL_QUEUE_DEVICE) failed");
    }
    const char *text = kEmptySource;
    cl_int err = CL_SUCCESS;
    cl_program program = cl.clCreateProgramWithSource(context, 1, &text, nullptr, &err);
    if (err != CL_SUCCESS || cl.clBuildProgram(program, 1, &device, kOptions, nullptr, nullptr) != CL_SUCCESS) {
        return noAnchor("clCreateProgramWithSource/clBuildProgram of the empty kernel failed");
    }
    cl_kernel kernel = cl.clCreateKernel(program, "empty", &err);
    if (err != CL_SUCCESS) {
        return noAnchor("clCreateKernel(empty) failed");
    }
    // The program, kernel and marker live until the process exits: the tool measures once.
    static cl_event marker = nullptr;
    Anchor a;
    a.name = "OpenCL";
    a.describe = "clEnqueueSVMMemcpy (blocking, default queue) on the same buffers; clEnqueueMarkerWithWaitList, "
                 "clGetEventInfo, clFinish and clEnqueueNDRangeKernel + clFlush (the same source and options) on "
                 "the cl_command_queue behind the tool's stream";
    a.copy = [default_queue](void *dst, const void *src, size_t size, infinirtMemcpyKind_t) {
        cl.clEnqueueSVMMemcpy(default_queue, CL_TRUE, dst, src, size, 0, nullptr, nullptr);
    };
    a.event_record = [queue] {
        if (marker != nullptr) {
            cl.clReleaseEvent(marker);
        }
        cl.clEnqueueMarkerWithWaitList(queue, 0, nullptr, &marker);
    };
    a.event_query = [] {
        cl_int state = CL_QUEUED;
        cl.clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, nullptr);
    };
    a.stream_sync = [queue] { cl.clFinish(queue); };
    a.launch = [queue, kernel] {
        const size_t one = 1;
        cl.clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &one, &one, 0, nullptr, nullptr);
        cl.clFlush(queue);
    };
    a.drain = a.stream_sync;
    a.image_format = INFINIRT_MODULE_FORMAT_OPENCL_C;
    a.image = kEmptySource;
    a.image_options = kOptions;
    return a;
}

#endif

} // namespace infinirt_bench_tool
