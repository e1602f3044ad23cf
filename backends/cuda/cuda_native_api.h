/*
 * cuda_native_api.h - the CUDA driver API, loaded at run time.
 *
 * The plugin never links libcuda: it dlopens "libcuda.so.1" and resolves every entry point it
 * uses through cuGetProcAddress_v2 (CUDA 12.0+), asking for the ABI version whose signature is
 * spelled below (PFN_<name>_v<version> from cudaTypedefs.h). So the plugin builds with the
 * toolkit's headers only, loads on a machine without a driver, and keeps calling the ABI it was
 * written for when a newer driver adds versions of a symbol.
 *
 * A static library of its own (infinirt_cuda_native_api), also linked by tests/cuda and
 * bench/cuda, which resolve the extra entry points they need (cuCtxCreate, ...) through
 * resolve() rather than linking libcuda themselves.
 */
#ifndef INFINIRT_CUDA_NATIVE_API_H
#define INFINIRT_CUDA_NATIVE_API_H

#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstddef>

namespace infinirt::cuda {

/* X(name, abi_version): the one table of entry points the plugin uses. `name` is what
 * cuGetProcAddress takes; the member has type PFN_<name>_v<abi_version>. */
#define INFINIRT_CUDA_DRIVER_SYMBOLS(X)                                                                               \
    X(cuInit, 2000)                                                                                                    \
    X(cuDriverGetVersion, 2020)                                                                                        \
    X(cuGetErrorName, 6000)                                                                                            \
    X(cuDeviceGetCount, 2000)                                                                                          \
    X(cuDeviceGet, 2000)                                                                                               \
    X(cuDeviceGetName, 2000)                                                                                           \
    X(cuDeviceGetAttribute, 2000)                                                                                      \
    X(cuDeviceTotalMem, 3020)                                                                                          \
    X(cuDeviceGetUuid, 11040)                                                                                          \
    X(cuDeviceGetPCIBusId, 4010)                                                                                       \
    X(cuDevicePrimaryCtxRetain, 7000)                                                                                  \
    X(cuCtxGetCurrent, 4000)                                                                                           \
    X(cuCtxSetCurrent, 4000)                                                                                           \
    X(cuCtxPushCurrent, 4000)                                                                                          \
    X(cuCtxPopCurrent, 4000)                                                                                           \
    X(cuCtxSynchronize, 2000)                                                                                          \
    X(cuCtxGetLimit, 3010)                                                                                             \
    X(cuCtxSetLimit, 3010)                                                                                             \
    X(cuCtxGetStreamPriorityRange, 5050)                                                                               \
    X(cuMemGetInfo, 3020)                                                                                              \
    X(cuStreamCreate, 2000)                                                                                            \
    X(cuStreamCreateWithPriority, 5050)                                                                                \
    X(cuStreamDestroy, 4000)                                                                                           \
    X(cuStreamSynchronize, 2000)                                                                                       \
    X(cuStreamQuery, 2000)                                                                                             \
    X(cuStreamWaitEvent, 3020)                                                                                         \
    X(cuEventCreate, 2000)                                                                                             \
    X(cuEventDestroy, 4000)                                                                                            \
    X(cuEventRecord, 2000)                                                                                             \
    X(cuEventRecordWithFlags, 11010)                                                                                   \
    X(cuStreamIsCapturing, 10000)                                                                                      \
    X(cuEventQuery, 2000)                                                                                              \
    X(cuEventSynchronize, 2000)                                                                                        \
    X(cuEventElapsedTime, 2000)                                                                                        \
    X(cuMemAlloc, 3020)                                                                                                \
    X(cuMemFree, 3020)                                                                                                 \
    X(cuMemHostAlloc, 2020)                                                                                            \
    X(cuMemFreeHost, 2000)                                                                                             \
    X(cuMemcpyAsync, 4000)                                                                                             \
    X(cuMemcpyPeerAsync, 4000)                                                                                         \
    X(cuDeviceCanAccessPeer, 4000)                                                                                     \
    X(cuDeviceGetP2PAttribute, 8000)                                                                                   \
    X(cuCtxEnablePeerAccess, 4000)                                                                                     \
    X(cuCtxDisablePeerAccess, 4000)                                                                                    \
    X(cuMemsetD8Async, 3020)                                                                                           \
    X(cuMemAllocAsync, 11020)                                                                                          \
    X(cuMemFreeAsync, 11020)                                                                                           \
    X(cuDeviceGetDefaultMemPool, 11020)                                                                                \
    X(cuMemPoolSetAttribute, 11020)                                                                                    \
    X(cuMemPoolGetAttribute, 11020)                                                                                    \
    X(cuStreamBeginCapture, 10010)                                                                                     \
    X(cuStreamEndCapture, 10000)                                                                                       \
    X(cuGraphDestroy, 10000)                                                                                           \
    X(cuGraphInstantiateWithFlags, 11040)                                                                              \
    X(cuGraphExecDestroy, 10000)                                                                                       \
    X(cuGraphLaunch, 10000)                                                                                            \
    X(cuPointerGetAttributes, 7000)                                                                                    \
    X(cuModuleLoadDataEx, 2010)                                                                                        \
    X(cuModuleUnload, 2000)                                                                                            \
    X(cuModuleGetFunction, 2000)                                                                                       \
    X(cuModuleGetGlobal, 3020)                                                                                         \
    X(cuLinkCreate, 6050)                                                                                              \
    X(cuLinkAddData, 6050)                                                                                             \
    X(cuLinkComplete, 5050)                                                                                            \
    X(cuLinkDestroy, 5050)                                                                                             \
    X(cuFuncGetAttribute, 2020)                                                                                        \
    X(cuFuncSetAttribute, 9000)                                                                                        \
    X(cuLaunchKernel, 4000)                                                                                            \
    X(cuLaunchKernelEx, 11060)                                                                                         \
    X(cuMemHostRegister, 6050)                                                                                         \
    X(cuMemHostUnregister, 4000)                                                                                       \
    X(cuMemGetAllocationGranularity, 10020)                                                                            \
    X(cuMemAddressReserve, 10020)                                                                                      \
    X(cuMemAddressFree, 10020)                                                                                         \
    X(cuMemCreate, 10020)                                                                                              \
    X(cuMemRelease, 10020)                                                                                             \
    X(cuMemExportToShareableHandle, 10020)                                                                             \
    X(cuMemImportFromShareableHandle, 10020)                                                                           \
    X(cuMemMap, 10020)                                                                                                 \
    X(cuMemUnmap, 10020)                                                                                               \
    X(cuMemSetAccess, 10020)                                                                                           \
    X(cuIpcGetMemHandle, 4010)                                                                                         \
    X(cuIpcOpenMemHandle, 11000)                                                                                       \
    X(cuIpcCloseMemHandle, 4010)                                                                                       \
    X(cuIpcGetEventHandle, 4010)                                                                                       \
    X(cuIpcOpenEventHandle, 4010)

/* Entry points of newer drivers than the plugin requires: NULL when the driver lacks them, and
 * every use checks. cuFuncGetParamInfo (12.4) gives kernels' parameter counts; the others (12.3,
 * 12.4) list a module's kernels for the detail of SYMBOL_NOT_FOUND. */
#define INFINIRT_CUDA_OPTIONAL_DRIVER_SYMBOLS(X)                                                                      \
    X(cuFuncGetParamInfo, 12040)                                                                                       \
    X(cuFuncGetName, 12030)                                                                                            \
    X(cuModuleGetFunctionCount, 12040)                                                                                 \
    X(cuModuleEnumerateFunctions, 12040)

struct NativeApi {
#define INFINIRT_CUDA_MEMBER(name, version) PFN_##name##_v##version name;
    INFINIRT_CUDA_DRIVER_SYMBOLS(INFINIRT_CUDA_MEMBER)
    INFINIRT_CUDA_OPTIONAL_DRIVER_SYMBOLS(INFINIRT_CUDA_MEMBER)
#undef INFINIRT_CUDA_MEMBER
};

/* The resolved table; all NULL until load() succeeded. Written once by load(), read-only after. */
extern NativeApi g_native_api;
inline const NativeApi &nativeApi() { return g_native_api; }

/* Loads libcuda.so.1 and resolves the table, once per process (thread-safe; later calls return
 * the first outcome). Returns true on success; otherwise `reason` says why in one line, e.g.
 * "libcuda.so.1 not found: <dlerror text>" ("" on success; static storage). Never calls cuInit. */
bool load(const char **reason);

/* Resolves one more entry point with the ABI of `abi_version` (after a successful load()).
 * Returns NULL if the driver has no such symbol at that version. */
void *resolve(const char *name, int abi_version);

} // namespace infinirt::cuda

#endif
