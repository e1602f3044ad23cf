/* cuda_ipc.cpp - memory and events shared between processes: the vendor half of gpu_common's
 * gpu_ipc.cpp, one native call each, types converted. Memory opened from another process gets
 * peer access enabled lazily, as the driver allows. */
#include "cuda_backend.h"

#include <cstring>

namespace infinirt::cuda {

static_assert(sizeof(CUipcMemHandle) == gpu::kIpcHandleBytes, "the size gpu_common reserves");
static_assert(sizeof(CUipcEventHandle) == gpu::kIpcHandleBytes, "the size gpu_common reserves");

NativeStatus nativeIpcGetMemHandle(void *handle, void *ptr) {
    CUipcMemHandle h{};
    const CUresult rc = nativeApi().cuIpcGetMemHandle(&h, devicePointer(ptr));
    std::memcpy(handle, &h, sizeof h);
    return rc;
}

NativeStatus nativeIpcOpenMemHandle(void **ptr, const void *handle) {
    CUipcMemHandle h{};
    std::memcpy(&h, handle, sizeof h);
    CUdeviceptr d = 0;
    const CUresult rc = nativeApi().cuIpcOpenMemHandle(&d, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    *ptr = reinterpret_cast<void *>(static_cast<uintptr_t>(d));
    return rc;
}

NativeStatus nativeIpcCloseMemHandle(void *ptr) { return nativeApi().cuIpcCloseMemHandle(devicePointer(ptr)); }

NativeStatus nativeIpcGetEventHandle(void *handle, void *event) {
    CUipcEventHandle h{};
    const CUresult rc = nativeApi().cuIpcGetEventHandle(&h, static_cast<CUevent>(event));
    std::memcpy(handle, &h, sizeof h);
    return rc;
}

NativeStatus nativeIpcOpenEventHandle(void **event, const void *handle) {
    CUipcEventHandle h{};
    std::memcpy(&h, handle, sizeof h);
    CUevent e = nullptr;
    const CUresult rc = nativeApi().cuIpcOpenEventHandle(&e, h);
    *event = e;
    return rc;
}

} // namespace infinirt::cuda
