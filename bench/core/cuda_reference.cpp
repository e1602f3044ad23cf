// The CUDA driver's stream-ordered pool allocator (cuMemAllocAsync, what cudaMallocAsync wraps)
// and its uncached calls, loaded at run time so that the benchmark starts on machines without a
// driver (it then runs without these references).
#include "reference.hpp"

#include <cuda.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace bench_ref {

namespace {

struct Driver {
    CUresult (*init)(unsigned);
    CUresult (*deviceGetCount)(int *);
    CUresult (*deviceGet)(CUdevice *, int);
    CUresult (*primaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*ctxSetCurrent)(CUcontext);
    CUresult (*streamCreate)(CUstream *, unsigned);
    CUresult (*streamSynchronize)(CUstream);
    CUresult (*memAlloc)(CUdeviceptr *, size_t);
    CUresult (*memFree)(CUdeviceptr);
    CUresult (*memAllocAsync)(CUdeviceptr *, size_t, CUstream);
    CUresult (*memFreeAsync)(CUdeviceptr, CUstream);
    CUresult (*memHostAlloc)(void **, size_t, unsigned);
    CUresult (*memFreeHost)(void *);
    CUresult (*deviceGetDefaultMemPool)(CUmemoryPool *, CUdevice);
    CUresult (*memPoolTrimTo)(CUmemoryPool, size_t);
    CUresult (*memPoolSetAttribute)(CUmemoryPool, CUmemPool_attribute, void *);
    CUresult (*memPoolGetAttribute)(CUmemoryPool, CUmemPool_attribute, void *);
};

Driver d;
CUcontext g_context = nullptr;
CUstream g_stream = nullptr;
CUmemoryPool g_pool = nullptr;

void check(const char *call, CUresult e) {
    if (e != CUDA_SUCCESS) {
        std::fprintf(stderr, "%s failed: CUresult %d\n", call, static_cast<int>(e));
        std::abort();
    }
}

// Driver calls need a current context on the calling thread.
void bindThread() {
    static thread_local bool bound = d.ctxSetCurrent(g_context) == CUDA_SUCCESS;
    (void)bound;
}

template <typename F>
bool load(void *lib, F &fn, const char *name) {
    fn = reinterpret_cast<F>(dlsym(lib, name));
    return fn != nullptr;
}

} // namespace

bool cudaInit(const char **why) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (lib == nullptr) {
        *why = "libcuda.so.1 not found";
        return false;
    }
    bool ok = load(lib, d.init, "cuInit") && load(lib, d.deviceGetCount, "cuDeviceGetCount") &&
              load(lib, d.deviceGet, "cuDeviceGet") && load(lib, d.primaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
              load(lib, d.ctxSetCurrent, "cuCtxSetCurrent") && load(lib, d.streamCreate, "cuStreamCreate") &&
              load(lib, d.streamSynchronize, "cuStreamSynchronize") && load(lib, d.memAlloc, "cuMemAlloc_v2") &&
              load(lib, d.memFree, "cuMemFree_v2") && load(lib, d.memAllocAsync, "cuMemAllocAsync") &&
              load(lib, d.memFreeAsync, "cuMemFreeAsync") && load(lib, d.memHostAlloc, "cuMemHostAlloc") &&
              load(lib, d.memFreeHost, "cuMemFreeHost") &&
              load(lib, d.deviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool") &&
              load(lib, d.memPoolTrimTo, "cuMemPoolTrimTo") &&
              load(lib, d.memPoolSetAttribute, "cuMemPoolSetAttribute") &&
              load(lib, d.memPoolGetAttribute, "cuMemPoolGetAttribute");
    int count = 0;
    CUdevice device = 0;
    if (!ok || d.init(0) != CUDA_SUCCESS || d.deviceGetCount(&count) != CUDA_SUCCESS || count == 0 ||
        d.deviceGet(&device, 0) != CUDA_SUCCESS || d.primaryCtxRetain(&g_context, device) != CUDA_SUCCESS) {
        *why = "no usable CUDA device";
        return false;
    }
    bindThread();
    check("cuStreamCreate", d.streamCreate(&g_stream, CU_STREAM_NON_BLOCKING));
    check("cuDeviceGetDefaultMemPool", d.deviceGetDefaultMemPool(&g_pool, device));
    return true;
}

void *cudaAsyncAlloc(size_t size) {
    bindThread();
    CUdeviceptr ptr = 0;
    check("cuMemAllocAsync", d.memAllocAsync(&ptr, size, g_stream));
    return reinterpret_cast<void *>(ptr);
}

void cudaAsyncFree(void *ptr) { check("cuMemFreeAsync", d.memFreeAsync(reinterpret_cast<CUdeviceptr>(ptr), g_stream)); }

void cudaAsyncTrim() {
    bindThread();
    check("cuStreamSynchronize", d.streamSynchronize(g_stream));
    check("cuMemPoolTrimTo", d.memPoolTrimTo(g_pool, 0));
}

void cudaAsyncResetPeak() {
    cuuint64_t zero = 0;
    check("cuMemPoolSetAttribute", d.memPoolSetAttribute(g_pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &zero));
}

size_t cudaAsyncPeakReserved() {
    cuuint64_t high = 0;
    check("cuMemPoolGetAttribute", d.memPoolGetAttribute(g_pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &high));
    return static_cast<size_t>(high);
}

void *cuAlloc(size_t size) {
    bindThread();
    CUdeviceptr ptr = 0;
    check("cuMemAlloc", d.memAlloc(&ptr, size));
    return reinterpret_cast<void *>(ptr);
}

void cuFree(void *ptr) { check("cuMemFree", d.memFree(reinterpret_cast<CUdeviceptr>(ptr))); }

void *cuHostAlloc(size_t size) {
    bindThread();
    void *ptr = nullptr;
    check("cuMemHostAlloc", d.memHostAlloc(&ptr, size, 0));
    return ptr;
}

void cuHostFree(void *ptr) { check("cuMemFreeHost", d.memFreeHost(ptr)); }

} // namespace bench_ref
