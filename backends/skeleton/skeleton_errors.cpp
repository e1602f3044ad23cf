// skeleton_errors.cpp - the native error table (vendor code -> name and infiniStatus_t), the two
// ways an entry reports a failure (nativeFailure for a failed vendor call and notImplemented for
// an entry the template leaves to the vendor; both go through common::fail), and the plugin's
// traits: the names of its errors and how well its pinned memory stages copies.
#include "skeleton_backend.h"
#include "skeleton_native_api.h"

#include "common/native_errors.hpp"
#include "common/plugin_table.hpp"

#include <cstdarg>
#include <cstdio>

namespace infinirt::skeleton {
namespace {

// Allocation failures are OUT_OF_MEMORY, invalid objects INVALID_HANDLE, bad arguments BAD_PARAM,
// what the device cannot do NOT_IMPLEMENTED; anything else is DRIVER_ERROR.
constexpr common::NativeError<int> kNativeErrors[] = {
    INFINIRT_COMMON_NATIVE_ERROR(VENDOR_SUCCESS, SUCCESS),
    INFINIRT_COMMON_NATIVE_ERROR(VENDOR_ERROR_INVALID_VALUE, BAD_PARAM),
    INFINIRT_COMMON_NATIVE_ERROR(VENDOR_ERROR_OUT_OF_MEMORY, OUT_OF_MEMORY),
    INFINIRT_COMMON_NATIVE_ERROR(VENDOR_ERROR_NOT_INITIALIZED, DEVICE_NOT_INITIALIZED),
    INFINIRT_COMMON_NATIVE_ERROR(VENDOR_ERROR_NO_DEVICE, DEVICE_NOT_FOUND),
    INFINIRT_COMMON_NATIVE_ERROR(VENDOR_ERROR_INVALID_DEVICE, DEVICE_NOT_FOUND),
    INFINIRT_COMMON_NATIVE_ERROR(VENDOR_ERROR_INVALID_HANDLE, INVALID_HANDLE),
    INFINIRT_COMMON_NATIVE_ERROR(VENDOR_ERROR_NOT_READY, NOT_READY),
    INFINIRT_COMMON_NATIVE_ERROR(VENDOR_ERROR_NOT_SUPPORTED, NOT_IMPLEMENTED),
};

constexpr auto kErrorTable = common::nativeErrorTable(kNativeErrors, "VENDOR_ERROR_UNKNOWN");

} // namespace

INFINIRT_COMMON_DEFINE_NATIVE_ERRORS(int, kErrorTable, " ")

// A vendor GPU's page-locked memory stages copies best (rank 2); the names are the table's.
infiniStatus_t getPluginTraits(infinirtPluginTraits_t *traits) {
    return common::reportTraits(traits, 2, "VENDOR_ERROR_OUT_OF_MEMORY (2)", "VENDOR_ERROR_NOT_SUPPORTED (801)");
}

infiniStatus_t notImplemented(const char *entry) noexcept {
    return common::fail(INFINI_STATUS_NOT_IMPLEMENTED, "%s backend: %s is not implemented", kName, entry);
}

} // namespace infinirt::skeleton
