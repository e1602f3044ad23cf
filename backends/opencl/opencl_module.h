// An opencl module (opencl_module.cpp) and its kernels, which opencl_launch.cpp launches.
#pragma once

#include <CL/cl.h>

#include "infinirt.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace infinirt::opencl {

struct CodeTraits;
struct Device;
struct Module;

// What a kernel parameter takes, from clGetKernelArgInfo; numbered as the infinirtKernelArgKind_t
// that fits it, so that a launch checks an argument with one comparison.
enum class Param : uint8_t {
    Value = INFINIRT_KERNEL_ARG_VALUE,     // __private: scalars, vectors, structs
    Pointer = INFINIRT_KERNEL_ARG_POINTER, // a __global or __constant pointer
    Local = INFINIRT_KERNEL_ARG_LOCAL,     // a __local pointer
    Object = 3, // an image, pipe, sampler_t or queue_t: an OpenCL object infinirt cannot pass
};

// One cl_kernel of a module, created on the first module_get_kernel of its name and released
// with the module. Fields above launch_mutex are immutable after creation.
struct Kernel {
    Module *module = nullptr;
    int device = 0;
    cl_kernel kernel = nullptr;
    std::string name;
    cl_uint num_args = 0;                 // CL_KERNEL_NUM_ARGS
    size_t work_group_size = 0;           // CL_KERNEL_WORK_GROUP_SIZE for the device
    size_t preferred_multiple = 0;        // CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE
    cl_ulong static_local = 0;            // CL_KERNEL_LOCAL_MEM_SIZE
    cl_ulong private_bytes = 0;           // CL_KERNEL_PRIVATE_MEM_SIZE
    cl_ulong local_capacity = 0;          // the device's local memory less static_local
    size_t max_item_sizes[3] = {0, 0, 0}; // CodeTraits::max_item_sizes
    bool flush = true;                    // CodeTraits::flush_launches
    // One per parameter (describeKernel); empty where the implementation gives no argument
    // information (SPIR-V, device binaries built without -cl-kernel-arg-info). A launch refuses
    // an argument of another kind: OpenCL implementations read the bytes of a VALUE argument
    // given to a __global parameter as a cl_mem handle (PoCL 3.1 then aborts or crashes).
    std::vector<Param> params;
    // MAX_DYNAMIC_SHARED_BYTES: local_capacity until kernel_set_attribute lowers it.
    std::atomic<int64_t> max_dynamic_local{0};
    // clSetKernelArg is not thread-safe per cl_kernel, and the arguments a command uses are
    // those set when it is enqueued: a launch holds this from its first clSetKernelArg to its
    // clEnqueueNDRangeKernel, so launches of one kernel from many threads each enqueue their own
    // arguments. Uncontended it costs one atomic exchange pair; a clone per thread would cost a
    // clCloneKernel (OpenCL 2.1) and an allocation on a thread's first launch.
    std::mutex launch_mutex;
};

// A built cl_program of one device, with the kernels taken from it (one per name).
struct Module {
    int device = 0;
    cl_program program = nullptr;
    // False when the program was built without -cl-kernel-arg-info because the build with it
    // failed (moduleLoad): its kernels' Kernel::params stay empty.
    bool args_described = true;
    std::mutex mutex; // guards `kernels`
    std::map<std::string, std::unique_ptr<Kernel>> kernels;
};

// The device's CodeTraits, queried on first use. Thread-safe.
const CodeTraits &codeTraits(Device &dev);

} // namespace infinirt::opencl
