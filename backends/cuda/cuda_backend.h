/*
 * cuda_backend.h - what the cuda folder's files share: device state, errors, context binding,
 * the plugin entries of its own and the converters that make the CUDA driver API a gpu_common
 * vendor table (assembled in cuda_plugin.cpp). Nothing here is visible outside the plugin.
 */
#ifndef INFINIRT_CUDA_BACKEND_H
#define INFINIRT_CUDA_BACKEND_H

#include "../gpu_common/gpu_backend.h"
#include "../gpu_common/gpu_vendor_table.h"
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
 * getDeviceCount, getDeviceProperties, pointerGetAttributes (cuda_device.cpp), setDevice,
 * threadStateSave, threadStateRestore, setDeviceSaving and deviceGetNativeContext
 * (cuda_context.cpp), moduleLoad and moduleRankImage (cuda_module.cpp). */
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

/* The converters of the vendor table's rows (gpu_vendor_table.h), each declared with its field's
 * type and defined in the cuda_<area>.cpp of its area (stream, event, memory, module, launch, graph,
 * peer, ipc, virtual_memory). */
INFINIRT_GPU_DECLARE_CONVERTERS();

} // namespace infinirt::cuda

#endif
