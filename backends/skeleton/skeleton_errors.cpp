// skeleton_errors.cpp - the native error table (vendor code -> name and infiniStatus_t), and the
// two ways an entry reports a failure: nativeFailure for a failed vendor call and notImplemented
// for an entry the template leaves to the vendor. Both go through common::fail.
#include "skeleton_backend.h"
#include "skeleton_native_api.h"

#include "common/host_services.hpp"

#include <cstdarg>
#include <cstdio>

namespace infinirt::skeleton {
namespace {

struct NativeError {
    int code;
    const char *name;
    infiniStatus_t status;
};

#define INFINIRT_SKELETON_ERROR(code, status) {code, #code, INFINI_STATUS_##status}
// Allocation failures are OUT_OF_MEMORY, invalid objects INVALID_HANDLE, bad arguments BAD_PARAM,
// what the device cannot do NOT_IMPLEMENTED; anything else is DRIVER_ERROR.
constexpr NativeError kNativeErrors[] = {
    INFINIRT_SKELETON_ERROR(VENDOR_SUCCESS, SUCCESS),
    INFINIRT_SKELETON_ERROR(VENDOR_ERROR_INVALID_VALUE, BAD_PARAM),
    INFINIRT_SKELETON_ERROR(VENDOR_ERROR_OUT_OF_MEMORY, OUT_OF_MEMORY),
    INFINIRT_SKELETON_ERROR(VENDOR_ERROR_NOT_INITIALIZED, DEVICE_NOT_INITIALIZED),
    INFINIRT_SKELETON_ERROR(VENDOR_ERROR_NO_DEVICE, DEVICE_NOT_FOUND),
    INFINIRT_SKELETON_ERROR(VENDOR_ERROR_INVALID_DEVICE, DEVICE_NOT_FOUND),
    INFINIRT_SKELETON_ERROR(VENDOR_ERROR_INVALID_HANDLE, INVALID_HANDLE),
    INFINIRT_SKELETON_ERROR(VENDOR_ERROR_NOT_READY, NOT_READY),
    INFINIRT_SKELETON_ERROR(VENDOR_ERROR_NOT_SUPPORTED, NOT_IMPLEMENTED),
};
#undef INFINIRT_SKELETON_ERROR

const NativeError *find(int code) noexcept {
    for (const NativeError &e : kNativeErrors) {
        if (e.code == code) {
            return &e;
        }
    }
    return nullptr;
}

} // namespace

const char *nativeErrorName(int code) noexcept {
    const NativeError *e = find(code);
    return e != nullptr ? e->name : "VENDOR_ERROR_UNKNOWN";
}

infiniStatus_t nativeStatus(int code) noexcept {
    const NativeError *e = find(code);
    return e != nullptr ? e->status : INFINI_STATUS_DRIVER_ERROR;
}

infiniStatus_t nativeFailure(const char *call, int code, const char *what_format, ...) noexcept {
    char what[common::kMessageCapacity];
    va_list args;
    va_start(args, what_format);
    std::vsnprintf(what, sizeof what, what_format, args);
    va_end(args);
    return common::fail(nativeStatus(code), "%s failed: %s (%d)%s%s", call, nativeErrorName(code), code,
                        what[0] != '\0' ? " " : "", what);
}

infiniStatus_t notImplemented(const char *entry) noexcept {
    return common::fail(INFINI_STATUS_NOT_IMPLEMENTED, "%s backend: %s is not implemented", kName, entry);
}

} // namespace infinirt::skeleton
