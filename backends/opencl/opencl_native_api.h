// opencl_native_api.h - the OpenCL entry points the plugin uses, resolved at run time from the Khronos
// ICD loader (libOpenCL.so.1) so that the plugin never links against it.
#pragma once

#include <CL/cl.h>

#include <string>

namespace infinirt::opencl {

// Every cl* function the plugin calls; add one here and it is resolved with the others.
#define INFINIRT_OPENCL_SYMBOLS(X)                                                                                \
    X(clGetPlatformIDs)                                                                                           \
    X(clGetPlatformInfo)                                                                                          \
    X(clGetDeviceIDs)                                                                                             \
    X(clGetDeviceInfo)                                                                                            \
    X(clCreateContext)                                                                                            \
    X(clCreateCommandQueueWithProperties)                                                                         \
    X(clReleaseCommandQueue)                                                                                      \
    X(clFlush)                                                                                                    \
    X(clFinish)                                                                                                   \
    X(clEnqueueMarkerWithWaitList)                                                                                \
    X(clEnqueueBarrierWithWaitList)                                                                               \
    X(clGetEventInfo)                                                                                             \
    X(clGetEventProfilingInfo)                                                                                    \
    X(clWaitForEvents)                                                                                            \
    X(clReleaseEvent)                                                                                             \
    X(clRetainEvent)                                                                                              \
    X(clCreateUserEvent)                                                                                          \
    X(clSetUserEventStatus)                                                                                       \
    X(clSetEventCallback)                                                                                         \
    X(clCreateBuffer)                                                                                             \
    X(clEnqueueMapBuffer)                                                                                         \
    X(clEnqueueUnmapMemObject)                                                                                    \
    X(clReleaseMemObject)                                                                                         \
    X(clSVMAlloc)                                                                                                 \
    X(clSVMFree)                                                                                                  \
    X(clEnqueueSVMMemcpy)                                                                                         \
    X(clEnqueueSVMMemFill)                                                                                        \
    X(clEnqueueSVMFree)                                                                                           \
    X(clGetExtensionFunctionAddressForPlatform)                                                                   \
    X(clCreateProgramWithSource)                                                                                  \
    X(clCreateProgramWithBinary)                                                                                  \
    X(clBuildProgram)                                                                                             \
    X(clCompileProgram)                                                                                           \
    X(clLinkProgram)                                                                                              \
    X(clGetProgramInfo)                                                                                           \
    X(clGetProgramBuildInfo)                                                                                      \
    X(clReleaseProgram)                                                                                           \
    X(clCreateKernel)                                                                                             \
    X(clReleaseKernel)                                                                                            \
    X(clGetKernelInfo)                                                                                            \
    X(clGetKernelWorkGroupInfo)                                                                                   \
    X(clGetKernelArgInfo)                                                                                         \
    X(clSetKernelArg)                                                                                             \
    X(clSetKernelArgSVMPointer)                                                                                   \
    X(clEnqueueNDRangeKernel)

// Entry points an ICD loader may lack (newer than OpenCL 2.0): NULL when it does, and the plugin
// answers what needs them with NOT_IMPLEMENTED instead of refusing to load.
#define INFINIRT_OPENCL_OPTIONAL_SYMBOLS(X) X(clCreateProgramWithIL)

// One function pointer per symbol, named like the symbol: nativeApi().clFinish(queue).
struct NativeApi {
#define INFINIRT_OPENCL_DECLARE(name) decltype(&::name) name = nullptr;
    INFINIRT_OPENCL_SYMBOLS(INFINIRT_OPENCL_DECLARE)
    INFINIRT_OPENCL_OPTIONAL_SYMBOLS(INFINIRT_OPENCL_DECLARE)
#undef INFINIRT_OPENCL_DECLARE
};

// Loads the ICD loader and resolves every symbol (the optional ones where present), once per process (thread-safe). The library is
// $INFINIRT_OPENCL_LIBRARY if set (read with secure_getenv), else "libOpenCL.so.1". Returns true
// when every symbol resolved; otherwise false and `reason` says which step failed (the library
// stays loaded but nativeApi() must not be used). Repeated calls return the first call's result.
bool loadNativeApi(std::string *reason);

// The resolved table. Only valid after loadNativeApi() returned true; never changes afterwards.
const NativeApi &nativeApi();

} // namespace infinirt::opencl
