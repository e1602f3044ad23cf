/*
 * hip_backend.h - what the hip folder's files share: errors, devices, the current device, the
 * plugin entries of its own and the converters that make the HIP runtime API a gpu_common vendor
 * table (assembled in hip_plugin.cpp). Nothing here is visible outside the plugin.
 */
#ifndef INFINIRT_HIP_BACKEND_H
#define INFINIRT_HIP_BACKEND_H

#include "../gpu_common/gpu_backend.h"
#include "../gpu_common/gpu_vendor_table.h"
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

/* The plugin entries the vendor defines itself (gpu_vendor_table.h installs them in the vendor
 * table), declared with every other entry of the list by their impl names: init,
 * getDeviceCount, getDeviceProperties (hip_device.cpp), setDevice, threadStateSave,
 * threadStateRestore, setDeviceSaving and deviceGetNativeContext (hip_context.cpp), moduleLoad and
 * moduleRankImage (hip_module.cpp). */
INFINIRT_COMMON_DECLARE_ENTRIES();

/* ---- devices (hip_device.cpp) ---- */

/* ---- the current device (hip_context.cpp) ---- */
/* Sizes the per-device state; called once by init() after counting devices. */
void prepareDevices(int device_count);
infiniStatus_t bind(int device, gpu::ContextScope *scope);
void unbind(const gpu::ContextScope &scope);
/* The device's default memory pool, or NULL if the runtime has none. */
hipMemPool_t defaultPool(int device);

/* ---- the converters: the vendor half of the shared entries, VendorApi's native entries over
 * nativeApi(), named native<Entry> so that none reuses a plugin entry's name; gpu_vendor_table.h
 * pairs them with the fields ----
 * They only convert types; every decision is made once, in backends/gpu_common. */
inline hipStream_t streamOf(void *s) { return static_cast<hipStream_t>(s); }
inline hipEvent_t eventOf(void *e) { return static_cast<hipEvent_t>(e); }
inline hipModule_t moduleOf(void *m) { return static_cast<hipModule_t>(m); }
inline hipFunction_t functionOf(void *f) { return static_cast<hipFunction_t>(f); }

/* hip_device.cpp: the entries above read properties through these (plugin device indices) */
NativeStatus nativeDeviceName(char *name, int capacity, int device);
NativeStatus nativeDeviceTotalMemory(size_t *bytes, int device);
NativeStatus nativeDeviceUuid(unsigned char bytes[16], int device);
NativeStatus nativeDevicePciBusId(char *bus, int capacity, int device);

/* The converters of the vendor table's rows (gpu_vendor_table.h), each declared with its field's
 * type and defined in the hip_<area>.cpp of its area (stream, event, memory, module, launch, graph,
 * peer, ipc, virtual_memory). */
INFINIRT_GPU_DECLARE_CONVERTERS();

} // namespace infinirt::hip

#endif
