// opencl_launch.cpp - kernel launch: arguments set on the cl_kernel and an NDRange enqueued on the
// stream's in-order queue, both under the kernel's launch mutex.
#include "opencl_backend.h"
#include "opencl_module.h"
#include "opencl_stream.h"

#include "opencl_native_api.h"

#include "common/kernel_args.hpp"

#include <mutex>

namespace infinirt::opencl {
namespace {

// Cold: the detail of a refused argument.
__attribute__((noinline, cold)) infiniStatus_t
argFailure(const Kernel &k, uint32_t index, const infinirtKernelArg_t &arg, const char *call, cl_int err) {
    if (arg.kind == INFINIRT_KERNEL_ARG_POINTER) {
        return nativeFailure(call, err,
                             "for argument %u (POINTER %p) of kernel \"%s\" on opencl:%d: not memory the kernel can "
                             "use there (device memory of this device, from infinirtMalloc, is)",
                             index, *static_cast<void *const *>(arg.value), k.name.c_str(), k.device);
    }
    return nativeFailure(call, err, "for argument %u (%s, %zu bytes) of kernel \"%s\" on opencl:%d", index,
                         common::kernelArgKindName(arg.kind), arg.size, k.name.c_str(), k.device);
}

const char *paramName(Param param) {
    switch (param) {
    case Param::Value: return "a __private value, which takes a VALUE argument";
    case Param::Pointer: return "a __global or __constant pointer, which takes a POINTER argument (device memory)";
    case Param::Local: return "a __local pointer, which takes a LOCAL argument";
    case Param::Object: break;
    }
    return "an OpenCL image, pipe, sampler or queue, which infinirt cannot pass";
}

// Cold: an argument whose kind does not fit its parameter. VALUE bytes given to a __global
// parameter would be read by the implementation as a cl_mem handle.
__attribute__((noinline, cold)) infiniStatus_t paramMismatch(const Kernel &k, uint32_t index,
                                                             const infinirtKernelArg_t &arg) {
    char type[128] = {};
    nativeApi().clGetKernelArgInfo(k.kernel, index, CL_KERNEL_ARG_TYPE_NAME, sizeof(type) - 1, type, nullptr);
    return common::fail(INFINI_STATUS_BAD_PARAM,
                        "argument %u (%s, %zu bytes) of kernel \"%s\" on opencl:%d: parameter %u (%s) is %s", index,
                        common::kernelArgKindName(arg.kind), arg.size, k.name.c_str(), k.device, index,
                        type[0] ? type : "type unknown", paramName(k.params[index]));
}

// Sets argument `index`; CL_SUCCESS or the failing call's code (*call names it).
inline cl_int setArg(const Kernel &k, uint32_t index, const infinirtKernelArg_t &arg, const char **call) {
    const NativeApi &cl = nativeApi();
    switch (arg.kind) {
    case INFINIRT_KERNEL_ARG_POINTER: {
        const void *ptr = *static_cast<void *const *>(arg.value);
        if (ptr) {
            *call = "clSetKernelArgSVMPointer";
            return cl.clSetKernelArgSVMPointer(k.kernel, index, ptr);
        }
        // A NULL pointer is a NULL buffer, which every implementation takes (not every one takes
        // a NULL SVM pointer).
        const cl_mem none = nullptr;
        *call = "clSetKernelArg";
        return cl.clSetKernelArg(k.kernel, index, sizeof(none), &none);
    }
    case INFINIRT_KERNEL_ARG_LOCAL:
        *call = "clSetKernelArg";
        return cl.clSetKernelArg(k.kernel, index, arg.size, nullptr);
    case INFINIRT_KERNEL_ARG_VALUE:
    default: *call = "clSetKernelArg"; return cl.clSetKernelArg(k.kernel, index, arg.size, arg.value);
    }
}

__attribute__((noinline, cold)) infiniStatus_t refuseConfig(const Kernel &k, const infinirtLaunchConfig_t &config) {
    if (config.flags & INFINIRT_LAUNCH_COOPERATIVE) {
        return common::fail(INFINI_STATUS_NOT_IMPLEMENTED,
                            "cooperative launch of kernel \"%s\" on opencl:%d: OpenCL cannot guarantee that all "
                            "work-groups run together",
                            k.name.c_str(), k.device);
    }
    for (int i = 0; i < 3; ++i) {
        if (config.block[i] > k.max_item_sizes[i]) {
            return common::fail(INFINI_STATUS_BAD_PARAM,
                                "block %ux%ux%u for kernel \"%s\" on opencl:%d: dimension %c is over the device's "
                                "limit of %zu work-items (CL_DEVICE_MAX_WORK_ITEM_SIZES %zux%zux%zu)",
                                config.block[0], config.block[1], config.block[2], k.name.c_str(), k.device, "xyz"[i],
                                k.max_item_sizes[i], k.max_item_sizes[0], k.max_item_sizes[1], k.max_item_sizes[2]);
        }
    }
    return common::fail(INFINI_STATUS_NOT_IMPLEMENTED,
                        "cluster %ux%ux%u for kernel \"%s\" on opencl:%d: OpenCL has no thread-block clusters",
                        config.cluster[0], config.cluster[1], config.cluster[2], k.name.c_str(), k.device);
}

} // namespace

// Each argument's kind must fit its parameter where Kernel::params knows it (BAD_PARAM naming
// both otherwise); then clSetKernelArg (VALUE: the bytes; LOCAL: size with NULL), clSetKernelArgSVMPointer (POINTER;
// a NULL pointer is set as a NULL buffer), then clEnqueueNDRangeKernel with global = grid x block
// and local = block, in as few dimensions as cover the sizes above 1, on the stream's in-order
// queue (numbered like every command of the stream; flushed where CodeTraits::flush_launches
// says so), under Kernel::launch_mutex.
// dynamic_shared_bytes has no meaning for an OpenCL kernel (local memory reaches it only as
// LOCAL arguments) and is ignored. COOPERATIVE and a non-zero cluster are NOT_IMPLEMENTED; a block over
// the device's per-dimension work-item limits is BAD_PARAM with the figures.
infiniStatus_t launchKernel(int device, void *handle, const infinirtLaunchConfig_t *config,
                            const infinirtKernelArg_t *args, uint32_t num_args, void *stream_handle) {
    Kernel &k = *static_cast<Kernel *>(handle);
    const infinirtLaunchConfig_t &c = *config;
    if (__builtin_expect((c.flags & INFINIRT_LAUNCH_COOPERATIVE) || (c.cluster[0] | c.cluster[1] | c.cluster[2]) != 0 ||
                             c.block[0] > k.max_item_sizes[0] || c.block[1] > k.max_item_sizes[1] ||
                             c.block[2] > k.max_item_sizes[2],
                         0)) {
        return refuseConfig(k, c);
    }
    Stream *stream = nullptr;
    infiniStatus_t status = resolveStream(device, stream_handle, &stream);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    const size_t global[3] = {size_t{c.grid[0]} * c.block[0], size_t{c.grid[1]} * c.block[1],
                              size_t{c.grid[2]} * c.block[2]};
    const size_t local[3] = {c.block[0], c.block[1], c.block[2]};
    const cl_uint dims = global[2] > 1 ? 3 : global[1] > 1 ? 2 : 1;

    cl_int err = CL_SUCCESS;
    uint64_t number = 0;
    {
        // Without arguments there is nothing to guard: only clSetKernelArg is unsafe to share.
        std::unique_lock<std::mutex> lock(k.launch_mutex, std::defer_lock);
        if (num_args > 0) {
            lock.lock();
        }
        const bool checked = k.params.size() == num_args;
        for (uint32_t i = 0; i < num_args; ++i) {
            if (checked && __builtin_expect(static_cast<int>(k.params[i]) != static_cast<int>(args[i].kind), 0)) {
                return paramMismatch(k, i, args[i]);
            }
            const char *call = nullptr;
            err = setArg(k, i, args[i], &call);
            if (__builtin_expect(err != CL_SUCCESS, 0)) {
                return argFailure(k, i, args[i], call, err);
            }
        }
        // The command takes the arguments as they are now; the lock may go once it is enqueued.
        err = submit(
            *stream,
            [&] {
                return nativeApi().clEnqueueNDRangeKernel(stream->queue, k.kernel, dims, nullptr, global, local, 0, nullptr,
                                                    nullptr);
            },
            &number);
    }
    if (err != CL_SUCCESS) {
        return nativeFailure("clEnqueueNDRangeKernel", err,
                             "launching kernel \"%s\" on opencl:%d (grid %ux%ux%u, block %ux%ux%u)", k.name.c_str(),
                             device, c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1], c.block[2]);
    }
    return k.flush ? flushStream(*stream, "clEnqueueNDRangeKernel") : INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::opencl

INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::opencl::launchKernel);
