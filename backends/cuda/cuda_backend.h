/*
 * cuda_backend.h - what the cuda folder's files share: device state, errors, context binding,
 * the plugin entries of its own and the converters that make the CUDA driver API a gpu_common
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

/* The plugin entries the vendor defines itself (gpu_vendor_table.h installs them in the vendor
 * table), declared with every other entry of the list by their impl names: init,
 * getDeviceCount, getDeviceProperties, pointerGetAttributes (cuda_device.cpp), setDevice and
 * deviceGetNativeContext (cuda_context.cpp), moduleLoad and moduleRankImage (cuda_module.cpp). */
INFINIRT_COMMON_DECLARE_ENTRIES();

/* ---- devices (cuda_device.cpp) ---- */
/* The CUdevice of plugin device `device` (0 <= device < count; plugin index == CUDA ordinal). */
CUdevice nativeDevice(int device);

/* ---- contexts (cuda_context.cpp) ---- */
/* Sizes the per-device context table; called once by init() after counting devices. */
void prepareContexts(int device_count);
infiniStatus_t bind(int device, gpu::ContextScope *scope);
void unbind(const gpu::ContextScope &scope);
/* The device's default memory pool (after its context was retained). */
CUmemoryPool defaultPool(int device);

/* ---- the converters: the vendor half of the shared entries, VendorApi's native entries over
 * nativeApi(), named native<Entry> so that none reuses a plugin entry's name; gpu_vendor_table.h
 * pairs them with the fields ----
 * They only convert types (void* <-> CUstream/CUevent/CUdeviceptr, CUresult -> int); every
 * decision is made once, in backends/gpu_common. */
inline CUdeviceptr devicePointer(const void *p) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)); }
inline CUstream streamOf(void *s) { return static_cast<CUstream>(s); }
inline CUevent eventOf(void *e) { return static_cast<CUevent>(e); }
inline CUmodule moduleOf(void *m) { return static_cast<CUmodule>(m); }
inline CUfunction functionOf(void *f) { return static_cast<CUfunction>(f); }

/* cuda_device.cpp: the entries above read properties through these (plugin device indices) */
NativeStatus nativeDeviceName(char *name, int capacity, int device);
NativeStatus nativeDeviceTotalMemory(size_t *bytes, int device);
NativeStatus nativeDeviceUuid(unsigned char bytes[16], int device);
NativeStatus nativeDevicePciBusId(char *bus, int capacity, int device);
NativeStatus nativeDeviceSynchronize();
NativeStatus nativeMemGetInfo(size_t *free_bytes, size_t *total_bytes);
NativeStatus nativePoolReserved(int device, uint64_t *bytes);

/* cuda_stream.cpp */
NativeStatus nativeStreamCreate(void **s, unsigned flags);
NativeStatus nativeStreamDestroy(void *s);
NativeStatus nativeStreamSynchronize(void *s);
NativeStatus nativeStreamQuery(void *s);
NativeStatus nativeStreamWaitEvent(void *s, void *e);
NativeStatus nativeStreamWaitEventInCapture(void *s, void *e);
NativeStatus nativeStreamIsCapturing(void *s, bool *capturing);

/* cuda_event.cpp */
NativeStatus nativeEventCreate(void **e, unsigned flags);
NativeStatus nativeEventDestroy(void *e);
NativeStatus nativeEventRecord(void *e, void *s);
NativeStatus nativeEventRecordInCapture(void *e, void *s);
NativeStatus nativeEventQuery(void *e);
NativeStatus nativeEventSynchronize(void *e);
NativeStatus nativeEventElapsedTime(float *ms, void *start, void *end);

/* cuda_memory.cpp */
NativeStatus nativeMallocDevice(void **p, size_t size);
NativeStatus nativeFreeDevice(void *p);
NativeStatus nativeMallocHost(void **p, size_t size);
NativeStatus nativeFreeHost(void *p);
NativeStatus nativeMemcpyAsync(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind, void *s);
NativeStatus nativeMemsetAsync(void *p, int value, size_t count, void *s);
NativeStatus nativeMallocAsync(void **p, size_t size, void *s);
NativeStatus nativeFreeAsync(void *p, void *s);

/* cuda_module.cpp: the module_load entry and the module and kernel converters */
NativeStatus nativeModuleUnload(void *module);
NativeStatus nativeModuleGetFunction(void **function, void *module, const char *name);
NativeStatus nativeModuleGetGlobal(void **ptr, size_t *size, void *module, const char *name);
NativeStatus nativeModuleListFunctions(void *module, char *text, size_t capacity);
NativeStatus nativeFunctionGetAttribute(int *value, int attr, void *function);
NativeStatus nativeFunctionSetAttribute(void *function, int attr, int value);
NativeStatus nativeFunctionParamCount(void *function, int *count);
NativeStatus nativeDeviceGetAttribute(int *value, int attr, int device);

/* cuda_peer.cpp */
NativeStatus nativeCanAccessPeer(int *can_access, int device, int peer);
NativeStatus nativePeerAttribute(int *value, int attr, int device, int peer);
NativeStatus nativeEnablePeerAccess(int peer, void *peer_context);
NativeStatus nativeDisablePeerAccess(int peer, void *peer_context);
NativeStatus nativeMemcpyPeerAsync(void *dst, int dst_device, void *dst_context, const void *src, int src_device,
                             void *src_context, size_t size, void *s);

/* cuda_launch.cpp */
NativeStatus nativeLaunchKernel(const gpu::NativeLaunch &launch);
NativeStatus nativeLaunchKernelEx(const gpu::NativeLaunch &launch);

/* cuda_virtual_memory.cpp: registration and the VMM driver API (a physical allocation is its
 * CUmemGenericAllocationHandle as void*) */
NativeStatus nativeHostRegister(void *ptr, size_t size, bool read_only);
NativeStatus nativeHostUnregister(void *ptr);
NativeStatus nativeMemGranularity(size_t *granularity, int device, bool recommended);
NativeStatus nativeMemAddressReserve(void **ptr, size_t size, size_t alignment);
NativeStatus nativeMemAddressFree(void *ptr, size_t size);
NativeStatus nativeMemCreate(void **mem, int device, size_t size, bool shareable);
NativeStatus nativeMemRelease(void *mem);
NativeStatus nativeMemMap(void *ptr, size_t size, void *mem, size_t offset);
NativeStatus nativeMemUnmap(void *ptr, size_t size);
NativeStatus nativeMemSetAccess(void *ptr, size_t size, int device, unsigned access);

/* cuda_ipc.cpp: memory and events shared between processes (a handle is a CUipcMemHandle or a
 * CUipcEventHandle, gpu::kIpcHandleBytes bytes) */
NativeStatus nativeIpcGetMemHandle(void *handle, void *ptr);
NativeStatus nativeIpcOpenMemHandle(void **ptr, const void *handle);
NativeStatus nativeIpcCloseMemHandle(void *ptr);
NativeStatus nativeIpcGetEventHandle(void *handle, void *event);
NativeStatus nativeIpcOpenEventHandle(void **event, const void *handle);

/* cuda_graph.cpp */
NativeStatus nativeBeginCapture(void *s, int mode);
NativeStatus nativeEndCapture(void *s, void **g);
NativeStatus nativeGraphDestroy(void *g);
NativeStatus nativeGraphInstantiate(void **exec, void *g);
NativeStatus nativeGraphExecDestroy(void *exec);
NativeStatus nativeGraphLaunch(void *exec, void *s);

} // namespace infinirt::cuda

#endif
