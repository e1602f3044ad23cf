// anchor_cuda.cpp - the cuda backend's anchor: the CUDA driver API, loaded at run time through the
// cuda plugin's own symbol table (backends/cuda/cuda_native_api.h, as bench/cuda and
// bench/kernels do), on the CUstream behind the tool's stream and the primary context:
// cuMemcpyHtoD/DtoH/DtoD, cuEventRecord/cuEventQuery, cuStreamSynchronize, and cuLaunchKernel of
// the same PTX image (built in: it needs no nvcc, and the driver JIT-compiles it for any GPU).
#include "bench_anchor.h"

#include "kernel_bench.h"

#ifdef INFINIRT_BENCH_WITH_CUDA
#include "cuda_native_api.h"
#endif

namespace infinirt_bench_tool {

#ifndef INFINIRT_BENCH_WITH_CUDA

Anchor cudaAnchor(const Target &) {
    return noAnchor("infinirt-bench was built without the cuda backend (no CUDA 12 headers)");
}

#else

namespace {

using infinirt::cuda::nativeApi;

template <typename Fn> Fn resolved(const char *name, int version) {
    return reinterpret_cast<Fn>(infinirt::cuda::resolve(name, version));
}

} // namespace

Anchor cudaAnchor(const Target &target) {
    const char *why = nullptr;
    if (!infinirt::cuda::load(&why)) {
        return noAnchor(std::string("the CUDA driver did not load: ") + (why ? why : "?"));
    }
    auto htod = resolved<PFN_cuMemcpyHtoD_v3020>("cuMemcpyHtoD", 3020);
    auto dtoh = resolved<PFN_cuMemcpyDtoH_v3020>("cuMemcpyDtoH", 3020);
    auto dtod = resolved<PFN_cuMemcpyDtoD_v3020>("cuMemcpyDtoD", 3020);
    auto moduleLoadData = resolved<PFN_cuModuleLoadData_v2000>("cuModuleLoadData", 2000);
    auto moduleGetFunction = resolved<PFN_cuModuleGetFunction_v2000>("cuModuleGetFunction", 2000);
    auto launchKernel = resolved<PFN_cuLaunchKernel_v4000>("cuLaunchKernel", 4000);
    if (!htod || !dtoh || !dtod || !moduleLoadData || !moduleGetFunction || !launchKernel) {
        return noAnchor("the CUDA driver lacks cuMemcpyHtoD/DtoH/DtoD, cuModuleLoadData, cuModuleGetFunction or "
                    "cuLaunchKernel");
    }
    void *native = nullptr;
    if (infinirtStreamGetNativeHandle(target.stream, &native) != INFINI_STATUS_SUCCESS) {
        return noAnchor(std::string("infinirtStreamGetNativeHandle: ") + infinirtGetLastErrorMessage());
    }
    CUstream stream = static_cast<CUstream>(native);
    if (infinirtDeviceGetNativeContext(target.type, target.id, &native) != INFINI_STATUS_SUCCESS) {
        return noAnchor(std::string("infinirtDeviceGetNativeContext: ") + infinirtGetLastErrorMessage());
    }
    // The tool runs on one thread and infinirtSetDevice leaves this context current; set it anyway.
    CUcontext context = static_cast<CUcontext>(native);
    if (nativeApi().cuCtxSetCurrent(context) != CUDA_SUCCESS) {
        return noAnchor("cuCtxSetCurrent(the primary context) failed");
    }
    CUevent event = nullptr;
    CUmodule module = nullptr;
    CUfunction function = nullptr;
    if (nativeApi().cuEventCreate(&event, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
        moduleLoadData(&module, infinirt_bench::kEmptyKernelPtx) != CUDA_SUCCESS ||
        moduleGetFunction(&function, module, "empty") != CUDA_SUCCESS) {
        return noAnchor("cuEventCreate, cuModuleLoadData or cuModuleGetFunction failed");
    }
    // Leaked on purpose with the process: the tool measures once and exits.
    Anchor a;
    a.name = "CUDA driver API";
    a.describe = "cuMemcpyHtoD/DtoH/DtoD (+ cuStreamSynchronize of the NULL stream) on the same buffers; "
                 "cuEventRecord/cuEventQuery, cuStreamSynchronize "
                 "and cuLaunchKernel (the same PTX) on the CUstream behind the tool's stream";
    a.copy = [htod, dtoh, dtod](void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind) {
        if (kind == INFINIRT_MEMCPY_H2D) {
            htod(reinterpret_cast<CUdeviceptr>(dst), src, size);
        } else if (kind == INFINIRT_MEMCPY_D2H) {
            dtoh(dst, reinterpret_cast<CUdeviceptr>(src), size);
        } else {
            // cuMemcpyDtoD returns before the copy is done (no host synchronisation for device to
            // device); infinirtMemcpy returns complete, so the anchor waits for its copy too.
            dtod(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), size);
            nativeApi().cuStreamSynchronize(nullptr);
        }
    };
    a.event_record = [event, stream] { nativeApi().cuEventRecord(event, stream); };
    a.event_query = [event] { nativeApi().cuEventQuery(event); };
    a.stream_sync = [stream] { nativeApi().cuStreamSynchronize(stream); };
    a.launch = [launchKernel, function, stream] {
        launchKernel(function, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr);
    };
    a.drain = a.stream_sync;
    a.image_format = INFINIRT_MODULE_FORMAT_PTX;
    a.image = infinirt_bench::kEmptyKernelPtx;
    return a;
}

#endif

} // namespace infinirt_bench_tool
