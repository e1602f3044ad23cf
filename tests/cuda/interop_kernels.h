/* interop_kernels.h - CUDA-runtime code (compiled by nvcc) that the interop test runs on
 * infinirt memory and streams. Plain C++ interface: the test itself is compiled by the C++
 * compiler. Every function returns a cudaError_t as int (0 = success). */
#ifndef INFINIRT_TESTS_CUDA_INTEROP_KERNELS_H
#define INFINIRT_TESTS_CUDA_INTEROP_KERNELS_H

#include <cstddef>

/* x[i] = x[i] * a + b for i < n, on `stream` (a cudaStream_t; NULL is the legacy stream 0). */
int interop_scale(float *x, int n, float a, float b, void *stream);
/* cudaSetDevice(device) then reports the runtime's current driver context in *ctx. */
int interop_runtime_context(int device, void **ctx);
int interop_cuda_malloc(void **p, size_t bytes);
int interop_cuda_free(void *p);

#endif
