/* cuda_errors.cpp - the one table from CUresult to infiniStatus_t, and error names. */
#include "cuda_backend.h"

namespace infinirt::cuda {

const char *errorName(NativeStatus code) {
    const char *name = nullptr;
    if (nativeApi().cuGetErrorName && nativeApi().cuGetErrorName(static_cast<CUresult>(code), &name) == CUDA_SUCCESS &&
        name) {
        return name;
    }
    return "CUDA_ERROR_UNKNOWN_CODE";
}

infiniStatus_t toStatus(NativeStatus code) {
    switch (static_cast<CUresult>(code)) {
    case CUDA_SUCCESS:
        return INFINI_STATUS_SUCCESS;
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_ILLEGAL_STATE:
    case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED:
    case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED:
    case CUDA_ERROR_STREAM_CAPTURE_MERGE:
    case CUDA_ERROR_STREAM_CAPTURE_UNMATCHED:
    case CUDA_ERROR_STREAM_CAPTURE_UNJOINED:
    case CUDA_ERROR_STREAM_CAPTURE_ISOLATION:
    case CUDA_ERROR_STREAM_CAPTURE_IMPLICIT:
    case CUDA_ERROR_CAPTURED_EVENT:
    case CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD:
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
    case CUDA_ERROR_INVALID_CLUSTER_SIZE:
        return INFINI_STATUS_BAD_PARAM;
    case CUDA_ERROR_NOT_FOUND:
        return INFINI_STATUS_SYMBOL_NOT_FOUND;
    case CUDA_ERROR_OUT_OF_MEMORY:
        return INFINI_STATUS_OUT_OF_MEMORY;
    case CUDA_ERROR_NOT_INITIALIZED:
    case CUDA_ERROR_DEINITIALIZED:
        return INFINI_STATUS_DEVICE_NOT_INITIALIZED;
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
        return INFINI_STATUS_DEVICE_NOT_FOUND;
    case CUDA_ERROR_INVALID_HANDLE:
    case CUDA_ERROR_INVALID_CONTEXT:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
        return INFINI_STATUS_INVALID_HANDLE;
    case CUDA_ERROR_NOT_READY:
        return INFINI_STATUS_NOT_READY;
    case CUDA_ERROR_NOT_SUPPORTED:
        return INFINI_STATUS_NOT_IMPLEMENTED;
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
        return INFINI_STATUS_DEVICE_ARCHITECTURE_NOT_SUPPORTED;
    case CUDA_ERROR_STUB_LIBRARY:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
        return INFINI_STATUS_BACKEND_UNAVAILABLE;
    default:
        return INFINI_STATUS_DRIVER_ERROR;
    }
}

bool isBuildError(NativeStatus code) {
    switch (static_cast<CUresult>(code)) {
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_INVALID_SOURCE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
    case CUDA_ERROR_JIT_COMPILATION_DISABLED:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC:
    case CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND:
    case CUDA_ERROR_SHARED_OBJECT_INIT_FAILED:
        return true;
    default:
        return false;
    }
}

} // namespace infinirt::cuda
