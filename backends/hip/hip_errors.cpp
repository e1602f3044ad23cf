/* hip_errors.cpp - the one table from hipError_t to infiniStatus_t, and error names. */
#include "hip_backend.h"

namespace infinirt::hip {

const char *errorName(NativeStatus code) {
    const char *name = nativeApi().hipGetErrorName ? nativeApi().hipGetErrorName(static_cast<hipError_t>(code)) : nullptr;
    return name ? name : "hipErrorUnknownCode";
}

infiniStatus_t toStatus(NativeStatus code) {
    switch (static_cast<hipError_t>(code)) {
    case hipSuccess:
        return INFINI_STATUS_SUCCESS;
    case hipErrorInvalidValue:
    case hipErrorIllegalState:
    case hipErrorStreamCaptureUnsupported:
    case hipErrorStreamCaptureInvalidated:
    case hipErrorStreamCaptureMerge:
    case hipErrorStreamCaptureUnmatched:
    case hipErrorStreamCaptureUnjoined:
    case hipErrorStreamCaptureIsolation:
    case hipErrorStreamCaptureImplicit:
    case hipErrorCapturedEvent:
    case hipErrorStreamCaptureWrongThread:
    case hipErrorLaunchOutOfResources:
    case hipErrorCooperativeLaunchTooLarge:
        return INFINI_STATUS_BAD_PARAM;
    case hipErrorNotFound:
        return INFINI_STATUS_SYMBOL_NOT_FOUND;
    case hipErrorOutOfMemory:
        return INFINI_STATUS_OUT_OF_MEMORY;
    case hipErrorNotInitialized:
    case hipErrorDeinitialized:
        return INFINI_STATUS_DEVICE_NOT_INITIALIZED;
    case hipErrorNoDevice:
    case hipErrorInvalidDevice:
        return INFINI_STATUS_DEVICE_NOT_FOUND;
    case hipErrorInvalidHandle:
    case hipErrorInvalidContext:
    case hipErrorContextIsDestroyed:
        return INFINI_STATUS_INVALID_HANDLE;
    case hipErrorNotReady:
        return INFINI_STATUS_NOT_READY;
    case hipErrorNotSupported:
        return INFINI_STATUS_NOT_IMPLEMENTED;
    case hipErrorNoBinaryForGpu:
        return INFINI_STATUS_DEVICE_ARCHITECTURE_NOT_SUPPORTED;
    case hipErrorInsufficientDriver:
        return INFINI_STATUS_BACKEND_UNAVAILABLE;
    default:
        return INFINI_STATUS_DRIVER_ERROR;
    }
}

bool isBuildError(NativeStatus code) {
    switch (static_cast<hipError_t>(code)) {
    case hipErrorInvalidImage:
    case hipErrorInvalidKernelFile:
    case hipErrorInvalidSource:
    case hipErrorNoBinaryForGpu:
    case hipErrorSharedObjectSymbolNotFound:
    case hipErrorSharedObjectInitFailed:
        return true;
    default:
        return false;
    }
}

} // namespace infinirt::hip
