// infinirt_private.h - what libinfinirt exports for libinfiniccl only, outside its public ABI: not
// installed, declared in no public header, exported under the symbol version INFINIRT_PRIVATE
// (infinirt/exports.map; as glibc's GLIBC_PRIVATE), so that nothing links against it by accident.
// The two libraries are built and shipped together; this may change with any release.
#pragma once

#include "infinirt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The device owning `stream` (NULL: the calling thread's current device, whose default stream it
 * is), as every infinirt call resolves it, without touching the stream. INVALID_HANDLE (message
 * written) for a destroyed, garbage or non-stream handle; DEVICE_NOT_FOUND without a device. */
__export infiniStatus_t infinirtPrivateStreamDevice(infinirtStream_t stream, infiniDevice_t *device, int *device_id);

#ifdef __cplusplus
}
#endif
