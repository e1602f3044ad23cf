/* cuda_backend.h - what the cuda folder's files share: device state, errors, context binding. */
#ifndef INFINIRT_CUDA_BACKEND_H
#define INFINIRT_CUDA_BACKEND_H

#include "../gpu_common/gpu_vendor.h"
#include "cuda_driver.h"

namespace infinirt::cuda {

/* ---- errors (cuda_errors.cpp) ---- */
/* "CUDA_ERROR_OUT_OF_MEMORY" from the driver, or a generic name before it is loaded. */
const char *error_name(gpu::NativeStatus code);
/* The one table from CUresult to infiniStatus_t. */
infiniStatus_t to_status(gpu::NativeStatus code);

/* ---- devices (cuda_device.cpp) ---- */
infiniStatus_t init();
infiniStatus_t get_device_count(int *count, char *reason, size_t reason_size);
infiniStatus_t get_device_properties(int device, infinirtDeviceProperties_t *props);
infiniStatus_t pointer_get_attributes(const void *ptr, infinirtPointerAttributes_t *attributes);
/* The CUdevice of plugin device `device` (0 <= device < count; plugin index == CUDA ordinal). */
CUdevice native_device(int device);

/* ---- contexts (cuda_context.cpp) ---- */
/* Sizes the per-device context table; called once by init() after counting devices. */
void prepare_contexts(int device_count);
infiniStatus_t bind(int device, gpu::ContextScope *scope);
void unbind(const gpu::ContextScope &scope);
infiniStatus_t set_device(int device);
infiniStatus_t device_get_native_context(int device, void **native);
/* The device's default memory pool (after its context was retained). */
CUmemoryPool default_pool(int device);

} // namespace infinirt::cuda

#endif
