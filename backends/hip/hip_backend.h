/*
 * hip_backend.h - what the hip folder's files share: errors, devices, the current device, the
 * plugin entries of its own and the adapters that make the HIP runtime API a gpu_common vendor
 * table (assembled in hip_plugin.cpp). Nothing here is visible outside the plugin.
 */
#ifndef INFINIRT_HIP_BACKEND_H
#define INFINIRT_HIP_BACKEND_H

#include "../gpu_common/gpu_backend.h"
#include "hip_native_api.h"

#include <cstdint>

namespace infinirt::hip {

using gpu::NativeStatus;

/* ---- errors (hip_errors.cpp) ---- */
const char *errorName(NativeStatus code);
/* The one table from hipError_t to infiniStatus_t. */
infiniStatus_t toStatus(NativeStatus code);
/* Whether `code` says a code object did not load for this device (invalid image, no code for
 * the GPU...): BUILD_FAILED when a module load answers it. */
bool isBuildError(NativeStatus code);

/* ---- devices (hip_device.cpp) ---- */
infinirtPluginInitFn init;
infinirtPluginGetDeviceCountFn getDeviceCount;
infinirtPluginGetDevicePropertiesFn getDeviceProperties;

/* ---- the current device (hip_context.cpp) ---- */
/* Sizes the per-device state; called once by init() after counting devices. */
void prepareDevices(int device_count);
infiniStatus_t bind(int device, gpu::ContextScope *scope);
void unbind(const gpu::ContextScope &scope);
infinirtPluginSetDeviceFn setDevice;
infinirtPluginDeviceGetNativeContextFn deviceGetNativeContext;
/* The device's default memory pool, or NULL if the runtime has none. */
hipMemPool_t defaultPool(int device);

/* ---- the adapters: VendorApi's native entries over the runtime table ----
 * They only convert types; every decision is made once, in backends/gpu_common. */
inline hipStream_t streamOf(void *s) { return static_cast<hipStream_t>(s); }
inline hipEvent_t eventOf(void *e) { return static_cast<hipEvent_t>(e); }
inline hipModule_t moduleOf(void *m) { return static_cast<hipModule_t>(m); }
inline hipFunction_t functionOf(void *f) { return static_cast<hipFunction_t>(f); }

/* hip_device.cpp */
NativeStatus deviceSynchronize();
NativeStatus memGetInfo(size_t *free_bytes, size_t *total_bytes);
NativeStatus poolReserved(int device, uint64_t *bytes);

/* hip_stream.cpp */
NativeStatus streamCreate(void **s, unsigned flags);
NativeStatus streamDestroy(void *s);
NativeStatus streamSynchronize(void *s);
NativeStatus streamQuery(void *s);
NativeStatus streamWaitEvent(void *s, void *e);

/* hip_event.cpp */
NativeStatus eventCreate(void **e, unsigned flags);
NativeStatus eventDestroy(void *e);
NativeStatus eventRecord(void *e, void *s);
NativeStatus eventQuery(void *e);
NativeStatus eventSynchronize(void *e);
NativeStatus eventElapsedTime(float *ms, void *start, void *end);

/* hip_memory.cpp */
NativeStatus mallocDevice(void **p, size_t size);
NativeStatus freeDevice(void *p);
NativeStatus mallocHost(void **p, size_t size);
NativeStatus freeHost(void *p);
NativeStatus memcpyAsync(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind, void *s);
NativeStatus memsetAsync(void *p, int value, size_t count, void *s);
NativeStatus mallocAsync(void **p, size_t size, void *s);
NativeStatus freeAsync(void *p, void *s);

/* hip_module.cpp: the module_load entry and the module and kernel adapters */
infinirtPluginModuleLoadFn moduleLoad;
infinirtPluginModuleRankImageFn moduleRankImage;
NativeStatus moduleUnload(void *module);
NativeStatus moduleGetFunction(void **function, void *module, const char *name);
NativeStatus moduleGetGlobal(void **ptr, size_t *size, void *module, const char *name);
NativeStatus functionGetAttribute(int *value, int attr, void *function);
NativeStatus deviceGetAttribute(int *value, int attr, int device);

/* hip_launch.cpp */
NativeStatus launchKernel(const gpu::NativeLaunch &launch);

/* hip_graph.cpp */
NativeStatus beginCapture(void *s, int mode);
NativeStatus endCapture(void *s, void **g);
NativeStatus graphDestroy(void *g);
NativeStatus graphInstantiate(void **exec, void *g);
NativeStatus graphExecDestroy(void *exec);
NativeStatus graphLaunch(void *exec, void *s);

/* hip_peer.cpp */
NativeStatus canAccessPeer(int *can_access, int device, int peer);
NativeStatus peerAttribute(int *value, int attr, int device, int peer);
NativeStatus enablePeerAccess(int peer, void *peer_context);
NativeStatus disablePeerAccess(int peer, void *peer_context);
NativeStatus memcpyPeerAsync(void *dst, int dst_device, void *dst_context, const void *src, int src_device,
                             void *src_context, size_t size, void *s);

} // namespace infinirt::hip

#endif
