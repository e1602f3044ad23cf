/*
 * cuda_backend.h - what the cuda folder's files share: device state, errors, context binding,
 * the plugin entries of its own and the adapters that make the CUDA driver API a gpu_common
 * vendor table (assembled in cuda_plugin.cpp). Nothing here is visible outside the plugin.
 */
#ifndef INFINIRT_CUDA_BACKEND_H
#define INFINIRT_CUDA_BACKEND_H

#include "../gpu_common/gpu_backend.h"
#include "cuda_native_api.h"

#include <cstdint>

namespace infinirt::cuda {

using gpu::NativeStatus;

/* ---- errors (cuda_errors.cpp) ---- */
/* "CUDA_ERROR_OUT_OF_MEMORY" from the driver, or a generic name before it is loaded. */
const char *errorName(NativeStatus code);
/* The one table from CUresult to infiniStatus_t. */
infiniStatus_t toStatus(NativeStatus code);
/* Whether `code` says an image did not build or load for this device (invalid PTX or image, no
 * code for the GPU, JIT unavailable...): BUILD_FAILED when a module load answers it. */
bool isBuildError(NativeStatus code);

/* ---- devices (cuda_device.cpp) ---- */
infinirtPluginInitFn init;
infinirtPluginGetDeviceCountFn getDeviceCount;
infinirtPluginGetDevicePropertiesFn getDeviceProperties;
infinirtPluginPointerGetAttributesFn pointerGetAttributes;
/* The CUdevice of plugin device `device` (0 <= device < count; plugin index == CUDA ordinal). */
CUdevice nativeDevice(int device);

/* ---- contexts (cuda_context.cpp) ---- */
/* Sizes the per-device context table; called once by init() after counting devices. */
void prepareContexts(int device_count);
infiniStatus_t bind(int device, gpu::ContextScope *scope);
void unbind(const gpu::ContextScope &scope);
infinirtPluginSetDeviceFn setDevice;
infinirtPluginDeviceGetNativeContextFn deviceGetNativeContext;
/* The device's default memory pool (after its context was retained). */
CUmemoryPool defaultPool(int device);

/* ---- the adapters: VendorApi's native entries over the driver table ----
 * They only convert types (void* <-> CUstream/CUevent/CUdeviceptr, CUresult -> int); every
 * decision is made once, in backends/gpu_common. */
inline CUdeviceptr devicePointer(const void *p) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)); }
inline CUstream streamOf(void *s) { return static_cast<CUstream>(s); }
inline CUevent eventOf(void *e) { return static_cast<CUevent>(e); }
inline CUmodule moduleOf(void *m) { return static_cast<CUmodule>(m); }
inline CUfunction functionOf(void *f) { return static_cast<CUfunction>(f); }

/* cuda_device.cpp */
NativeStatus deviceSynchronize();
NativeStatus memGetInfo(size_t *free_bytes, size_t *total_bytes);
NativeStatus poolReserved(int device, uint64_t *bytes);

/* cuda_stream.cpp */
NativeStatus streamCreate(void **s, unsigned flags);
NativeStatus streamDestroy(void *s);
NativeStatus streamSynchronize(void *s);
NativeStatus streamQuery(void *s);
NativeStatus streamWaitEvent(void *s, void *e);
NativeStatus streamWaitEventInCapture(void *s, void *e);
NativeStatus streamIsCapturing(void *s, bool *capturing);

/* cuda_event.cpp */
NativeStatus eventCreate(void **e, unsigned flags);
NativeStatus eventDestroy(void *e);
NativeStatus eventRecord(void *e, void *s);
NativeStatus eventRecordInCapture(void *e, void *s);
NativeStatus eventQuery(void *e);
NativeStatus eventSynchronize(void *e);
NativeStatus eventElapsedTime(float *ms, void *start, void *end);

/* cuda_memory.cpp */
NativeStatus mallocDevice(void **p, size_t size);
NativeStatus freeDevice(void *p);
NativeStatus mallocHost(void **p, size_t size);
NativeStatus freeHost(void *p);
NativeStatus memcpyAsync(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind, void *s);
NativeStatus memsetAsync(void *p, int value, size_t count, void *s);
NativeStatus mallocAsync(void **p, size_t size, void *s);
NativeStatus freeAsync(void *p, void *s);

/* cuda_module.cpp: the module_load entry and the module and kernel adapters */
infinirtPluginModuleLoadFn moduleLoad;
infinirtPluginModuleRankImageFn moduleRankImage;
NativeStatus moduleUnload(void *module);
NativeStatus moduleGetFunction(void **function, void *module, const char *name);
NativeStatus moduleGetGlobal(void **ptr, size_t *size, void *module, const char *name);
NativeStatus moduleListFunctions(void *module, char *text, size_t capacity);
NativeStatus functionGetAttribute(int *value, int attr, void *function);
NativeStatus functionSetAttribute(void *function, int attr, int value);
NativeStatus functionParamCount(void *function, int *count);
NativeStatus deviceGetAttribute(int *value, int attr, int device);

/* cuda_peer.cpp */
NativeStatus canAccessPeer(int *can_access, int device, int peer);
NativeStatus peerAttribute(int *value, int attr, int device, int peer);
NativeStatus enablePeerAccess(int peer, void *peer_context);
NativeStatus disablePeerAccess(int peer, void *peer_context);
NativeStatus memcpyPeerAsync(void *dst, int dst_device, void *dst_context, const void *src, int src_device,
                             void *src_context, size_t size, void *s);

/* cuda_launch.cpp */
NativeStatus launchKernel(const gpu::NativeLaunch &launch);
NativeStatus launchKernelEx(const gpu::NativeLaunch &launch);

/* cuda_graph.cpp */
NativeStatus beginCapture(void *s, int mode);
NativeStatus endCapture(void *s, void **g);
NativeStatus graphDestroy(void *g);
NativeStatus graphInstantiate(void **exec, void *g);
NativeStatus graphExecDestroy(void *exec);
NativeStatus graphLaunch(void *exec, void *s);

} // namespace infinirt::cuda

#endif
