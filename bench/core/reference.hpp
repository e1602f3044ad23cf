// The allocators we compare against, behind plain C-style functions so that each lives in its own
// translation unit (libtorch's is compiled with libtorch's own flags) and is optional.
#ifndef INFINICORE_BENCH_REFERENCE_HPP
#define INFINICORE_BENCH_REFERENCE_HPP

#include <cstddef>

namespace bench_ref {

// PyTorch's CUDA caching allocator from C++ (libc10_cuda.so: raw_alloc / raw_delete after init).
// *why is set (static string) when it cannot run.
bool torchInit(const char **why);
void *torchAlloc(size_t size);
void torchFree(void *ptr);
void torchEmptyCache();
void torchResetPeak();
size_t torchPeakReserved();

// The CUDA runtime and driver on device 0.
bool cudaInit(const char **why);
// cudaMallocAsync / cudaFreeAsync on one stream, the device's default memory pool.
void *cudaAsyncAlloc(size_t size);
void cudaAsyncFree(void *ptr);
void cudaAsyncTrim();
void cudaAsyncResetPeak();
size_t cudaAsyncPeakReserved();
// Uncached: cuMemAlloc / cuMemFree, cudaMalloc / cudaFree.
void *cuAlloc(size_t size);
void cuFree(void *ptr);
// Uncached page-locked host memory: cuMemHostAlloc / cuMemFreeHost.
void *cuHostAlloc(size_t size);
void cuHostFree(void *ptr);

} // namespace bench_ref

#endif // INFINICORE_BENCH_REFERENCE_HPP
