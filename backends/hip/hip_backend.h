/* hip_backend.h - what the hip folder's files share: errors, devices, the current device. */
#ifndef INFINIRT_HIP_BACKEND_H
#define INFINIRT_HIP_BACKEND_H

#include "../gpu_common/gpu_vendor.h"
#include "hip_api.h"

namespace infinirt::hip {

/* ---- errors (hip_errors.cpp) ---- */
const char *error_name(gpu::NativeStatus code);
/* The one table from hipError_t to infiniStatus_t. */
infiniStatus_t to_status(gpu::NativeStatus code);

/* ---- devices (hip_device.cpp) ---- */
infiniStatus_t init();
infiniStatus_t get_device_count(int *count, char *reason, size_t reason_size);
infiniStatus_t get_device_properties(int device, infinirtDeviceProperties_t *props);

/* ---- the current device (hip_context.cpp) ---- */
/* Sizes the per-device state; called once by init() after counting devices. */
void prepare_devices(int device_count);
infiniStatus_t bind(int device, gpu::ContextScope *scope);
void unbind(const gpu::ContextScope &scope);
infiniStatus_t set_device(int device);
infiniStatus_t device_get_native_context(int device, void **native);
/* The device's default memory pool, or NULL if the runtime has none. */
hipMemPool_t default_pool(int device);

} // namespace infinirt::hip

#endif
