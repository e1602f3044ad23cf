/*
 * hip_native_api.h - the HIP runtime API, loaded at run time from libamdhip64.
 *
 * Built against Debian's libamdhip64-dev headers (types and enums only): the signatures below
 * are spelled out rather than taken from the declarations, which C++ overloads, so the table is
 * the exact C ABI the plugin calls. Only entry points whose signature and argument structs are
 * the same in HIP 5 and 6 are required (no hipDeviceProp_t, no hipPointerAttribute_t). The
 * registration, virtual-memory and IPC ones follow ROCm 6's hip_runtime_api.h (MemAllocationProp
 * and the flag values below), which HIP 5 laid out differently: they are optional, and called only
 * on a runtime of ROCm 6 or newer.
 */
#ifndef INFINIRT_HIP_NATIVE_API_H
#define INFINIRT_HIP_NATIVE_API_H

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#include <hip/hip_runtime_api.h>

namespace infinirt::hip {

/* hipMemAllocationProp as ROCm 6 lays it out (the HIP 5.2 headers declare an older layout). */
struct MemAllocationProp {
    hipMemAllocationType type;
    hipMemAllocationHandleType requestedHandleType;
    hipMemLocation location;
    void *win32HandleMetaData;
    struct {
        unsigned char compressionType;
        unsigned char gpuDirectRDMACapable;
        unsigned short usage;
    } allocFlags;
};

/* ROCm 6's flag values: HIP 5.2 has no hipHostRegisterReadOnly and spells
 * hipIpcMemLazyEnablePeerAccess 0. */
constexpr unsigned kHostRegisterPortable = 0x1;
constexpr unsigned kHostRegisterReadOnly = 0x8;
constexpr unsigned kIpcMemLazyEnablePeerAccess = 0x1;

/* X(name, parameter list): the entry points load() requires; they and those below all return
 * hipError_t, as hipGetErrorName (kept out of the lists) does not. */
#define INFINIRT_HIP_SYMBOLS(X)                                                                                        \
    X(hipInit, (unsigned int))                                                                                         \
    X(hipDriverGetVersion, (int *))                                                                                    \
    X(hipGetDeviceCount, (int *))                                                                                      \
    X(hipSetDevice, (int))                                                                                             \
    X(hipGetDevice, (int *))                                                                                           \
    X(hipDeviceGetName, (char *, int, hipDevice_t))                                                                    \
    X(hipDeviceGetAttribute, (int *, hipDeviceAttribute_t, int))                                                       \
    X(hipDeviceTotalMem, (size_t *, hipDevice_t))                                                                      \
    X(hipDeviceGetPCIBusId, (char *, int, int))                                                                        \
    X(hipDeviceGetUuid, (hipUUID *, hipDevice_t))                                                                      \
    X(hipDevicePrimaryCtxRetain, (hipCtx_t *, hipDevice_t))                                                            \
    X(hipDeviceSynchronize, (void))                                                                                    \
    X(hipMemGetInfo, (size_t *, size_t *))                                                                             \
    X(hipStreamCreateWithFlags, (hipStream_t *, unsigned int))                                                         \
    X(hipStreamDestroy, (hipStream_t))                                                                                 \
    X(hipStreamSynchronize, (hipStream_t))                                                                             \
    X(hipStreamQuery, (hipStream_t))                                                                                   \
    X(hipStreamWaitEvent, (hipStream_t, hipEvent_t, unsigned int))                                                     \
    X(hipEventCreateWithFlags, (hipEvent_t *, unsigned int))                                                           \
    X(hipEventDestroy, (hipEvent_t))                                                                                   \
    X(hipEventRecord, (hipEvent_t, hipStream_t))                                                                       \
    X(hipEventQuery, (hipEvent_t))                                                                                     \
    X(hipEventSynchronize, (hipEvent_t))                                                                               \
    X(hipEventElapsedTime, (float *, hipEvent_t, hipEvent_t))                                                          \
    X(hipMalloc, (void **, size_t))                                                                                    \
    X(hipFree, (void *))                                                                                               \
    X(hipHostMalloc, (void **, size_t, unsigned int))                                                                  \
    X(hipHostFree, (void *))                                                                                           \
    X(hipMemcpyAsync, (void *, const void *, size_t, hipMemcpyKind, hipStream_t))                                      \
    X(hipMemcpyPeerAsync, (void *, int, const void *, int, size_t, hipStream_t))                                       \
    X(hipDeviceCanAccessPeer, (int *, int, int))                                                                       \
    X(hipDeviceGetP2PAttribute, (int *, hipDeviceP2PAttr, int, int))                                                   \
    X(hipDeviceEnablePeerAccess, (int, unsigned int))                                                                  \
    X(hipDeviceDisablePeerAccess, (int))                                                                               \
    X(hipMemsetAsync, (void *, int, size_t, hipStream_t))                                                              \
    X(hipMallocAsync, (void **, size_t, hipStream_t))                                                                  \
    X(hipFreeAsync, (void *, hipStream_t))                                                                             \
    X(hipDeviceGetDefaultMemPool, (hipMemPool_t *, int))                                                               \
    X(hipMemPoolSetAttribute, (hipMemPool_t, hipMemPoolAttr, void *))                                                  \
    X(hipMemPoolGetAttribute, (hipMemPool_t, hipMemPoolAttr, void *))                                                  \
    X(hipStreamBeginCapture, (hipStream_t, hipStreamCaptureMode))                                                      \
    X(hipStreamEndCapture, (hipStream_t, hipGraph_t *))                                                                \
    X(hipGraphDestroy, (hipGraph_t))                                                                                   \
    X(hipGraphInstantiateWithFlags, (hipGraphExec_t *, hipGraph_t, unsigned long long))                                \
    X(hipGraphExecDestroy, (hipGraphExec_t))                                                                           \
    X(hipGraphLaunch, (hipGraphExec_t, hipStream_t))                                                                   \
    X(hipModuleLoadData, (hipModule_t *, const void *))                                                                \
    X(hipModuleUnload, (hipModule_t))                                                                                  \
    X(hipModuleGetFunction, (hipFunction_t *, hipModule_t, const char *))                                              \
    X(hipModuleGetGlobal, (hipDeviceptr_t *, size_t *, hipModule_t, const char *))                                     \
    X(hipFuncGetAttribute, (int *, hipFunction_attribute, hipFunction_t))                                              \
    X(hipModuleLaunchKernel, (hipFunction_t, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,     \
                              unsigned int, unsigned int, hipStream_t, void **, void **))

/* X(name, parameter list): the entry points with ROCm 6's argument layouts. Resolved without
 * failing: NULL when the library lacks them; before calling any, check rocm6Unavailable(). */
#define INFINIRT_HIP_ROCM6_SYMBOLS(X)                                                                                  \
    X(hipHostRegister, (void *, size_t, unsigned int))                                                                 \
    X(hipHostUnregister, (void *))                                                                                     \
    X(hipMemGetAllocationGranularity, (size_t *, const MemAllocationProp *, hipMemAllocationGranularity_flags))        \
    X(hipMemAddressReserve, (void **, size_t, size_t, void *, unsigned long long))                                     \
    X(hipMemAddressFree, (void *, size_t))                                                                             \
    X(hipMemCreate, (hipMemGenericAllocationHandle_t *, size_t, const MemAllocationProp *, unsigned long long))        \
    X(hipMemRelease, (hipMemGenericAllocationHandle_t))                                                                \
    X(hipMemExportToShareableHandle, (void *, hipMemGenericAllocationHandle_t, hipMemAllocationHandleType,             \
                                      unsigned long long))                                                             \
    X(hipMemImportFromShareableHandle, (hipMemGenericAllocationHandle_t *, void *, hipMemAllocationHandleType))        \
    X(hipMemMap, (void *, size_t, size_t, hipMemGenericAllocationHandle_t, unsigned long long))                        \
    X(hipMemUnmap, (void *, size_t))                                                                                   \
    X(hipMemSetAccess, (void *, size_t, const hipMemAccessDesc *, size_t))                                             \
    X(hipIpcGetMemHandle, (hipIpcMemHandle_t *, void *))                                                               \
    X(hipIpcOpenMemHandle, (void **, hipIpcMemHandle_t, unsigned int))                                                 \
    X(hipIpcCloseMemHandle, (void *))                                                                                  \
    X(hipIpcGetEventHandle, (hipIpcEventHandle_t *, hipEvent_t))                                                       \
    X(hipIpcOpenEventHandle, (hipEvent_t *, hipIpcEventHandle_t))

struct NativeApi {
#define INFINIRT_HIP_MEMBER(name, params) hipError_t(*name) params;
    INFINIRT_HIP_SYMBOLS(INFINIRT_HIP_MEMBER)
    INFINIRT_HIP_ROCM6_SYMBOLS(INFINIRT_HIP_MEMBER)
#undef INFINIRT_HIP_MEMBER
    const char *(*hipGetErrorName)(hipError_t);
};

/* The resolved table; all NULL until load() succeeded. Written once, read-only after. */
extern NativeApi g_native_api;
inline const NativeApi &nativeApi() { return g_native_api; }

/* Loads libamdhip64 and resolves the table, once per process (thread-safe; later calls return
 * the first outcome). On failure `reason` says why in one line (static storage). Never calls
 * hipInit. */
bool load(const char **reason);

/* The first HIP_VERSION (major * 10000000 + minor * 100000 + patch) of ROCm 6. */
constexpr int kHipVersionRocm6 = 60000000;

/* Why the INFINIRT_HIP_ROCM6_SYMBOLS may not be called on a runtime that reports `hip_version`
 * (a HIP_VERSION; 0 when unknown): one line naming the symbol the library lacks or the runtime's
 * version, written to `why` (`capacity` bytes). Returns false, leaving `why` alone, when every one
 * was resolved and the runtime is ROCm 6 or newer. After a successful load(). */
bool rocm6Unavailable(int hip_version, char *why, size_t capacity);

} // namespace infinirt::hip

#endif
