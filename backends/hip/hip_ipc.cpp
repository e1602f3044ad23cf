/* hip_ipc.cpp - memory and events shared between processes: the vendor half of gpu_common's
 * gpu_ipc.cpp, one native call each, types converted. Memory opened from another process gets
 * peer access enabled lazily, as the runtime allows. */
#include "hip_backend.h"

#include <cstring>

namespace infinirt::hip {

static_assert(sizeof(hipIpcMemHandle_t) == gpu::kIpcHandleBytes, "the size gpu_common reserves");
static_assert(sizeof(hipIpcEventHandle_t) == gpu::kIpcHandleBytes, "the size gpu_common reserves");

NativeStatus nativeIpcGetMemHandle(void *handle, void *ptr) {
    hipIpcMemHandle_t h{};
    const hipError_t rc = nativeApi().hipIpcGetMemHandle(&h, ptr);
    std::memcpy(handle, &h, sizeof h);
    return rc;
}

NativeStatus nativeIpcOpenMemHandle(void **ptr, const void *handle) {
    hipIpcMemHandle_t h{};
    std::memcpy(&h, handle, sizeof h);
    return nativeApi().hipIpcOpenMemHandle(ptr, h, kIpcMemLazyEnablePeerAccess);
}

NativeStatus nativeIpcCloseMemHandle(void *ptr) { return nativeApi().hipIpcCloseMemHandle(ptr); }

NativeStatus nativeIpcGetEventHandle(void *handle, void *event) {
    hipIpcEventHandle_t h{};
    const hipError_t rc = nativeApi().hipIpcGetEventHandle(&h, eventOf(event));
    std::memcpy(handle, &h, sizeof h);
    return rc;
}

NativeStatus nativeIpcOpenEventHandle(void **event, const void *handle) {
    hipIpcEventHandle_t h{};
    std::memcpy(&h, handle, sizeof h);
    hipEvent_t e = nullptr;
    const hipError_t rc = nativeApi().hipIpcOpenEventHandle(&e, h);
    *event = e;
    return rc;
}

} // namespace infinirt::hip
