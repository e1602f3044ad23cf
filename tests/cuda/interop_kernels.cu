#include "interop_kernels.h"

#include <cuda.h>
#include <cuda_runtime.h>

namespace {
__global__ void scale_kernel(float *x, int n, float a, float b) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = x[i] * a + b;
    }
}
} // namespace

int interop_scale(float *x, int n, float a, float b, void *stream) {
    scale_kernel<<<(n + 255) / 256, 256, 0, static_cast<cudaStream_t>(stream)>>>(x, n, a, b);
    return static_cast<int>(cudaGetLastError());
}

int interop_runtime_context(int device, void **ctx) {
    cudaError_t rc = cudaSetDevice(device);
    if (rc != cudaSuccess) {
        return static_cast<int>(rc);
    }
    /* The runtime's context is whatever the driver has current for this thread now. */
    void *fn = nullptr;
    cudaDriverEntryPointQueryResult found;
    rc = cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 4000, cudaEnableDefault, &found);
    if (rc != cudaSuccess || fn == nullptr) {
        return rc != cudaSuccess ? static_cast<int>(rc) : static_cast<int>(cudaErrorSymbolNotFound);
    }
    CUcontext current = nullptr;
    if (reinterpret_cast<CUresult (*)(CUcontext *)>(fn)(&current) != CUDA_SUCCESS) {
        return static_cast<int>(cudaErrorUnknown);
    }
    *ctx = current;
    return 0;
}

int interop_cuda_malloc(void **p, size_t bytes) { return static_cast<int>(cudaMalloc(p, bytes)); }
int interop_cuda_free(void *p) { return static_cast<int>(cudaFree(p)); }
