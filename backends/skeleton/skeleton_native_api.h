// skeleton_native_api.h - the template of a backend's vendor symbol table: the vendor library's
// entry points, resolved at run time with dlopen/dlsym so that the plugin never links against the
// vendor library and loads (reporting 0 devices and why) on a machine without the driver.
//
// The vendor API here is fictional ("vendor*" functions and VENDOR_* codes); a real backend takes
// the signatures and codes from the vendor's header (decltype(&::cuInit) and so on). In this tree
// no vendor library is configured by default: the skeleton then reports the template reason only.
// Setting INFINIRT_SKELETON_LIBRARY to a file makes init open it, to exercise this path.
#ifndef INFINIRT_SKELETON_NATIVE_API_H
#define INFINIRT_SKELETON_NATIVE_API_H

#include "infinirt_plugin.h"

#include <cstddef>

namespace infinirt::skeleton {

// The vendor's error codes (from the vendor's header in a real backend). The native error table
// (skeleton_errors.cpp) names each and maps it to an infiniStatus_t.
enum VendorError : int {
    VENDOR_SUCCESS = 0,
    VENDOR_ERROR_INVALID_VALUE = 1,
    VENDOR_ERROR_OUT_OF_MEMORY = 2,
    VENDOR_ERROR_NOT_INITIALIZED = 3,
    VENDOR_ERROR_NO_DEVICE = 100,
    VENDOR_ERROR_INVALID_DEVICE = 101,
    VENDOR_ERROR_INVALID_HANDLE = 400,
    VENDOR_ERROR_NOT_READY = 600,
    VENDOR_ERROR_NOT_SUPPORTED = 801,
};

// The vendor functions, as the vendor's header declares them. Declared only, never defined nor
// called by name: the plugin does not link the vendor library, it calls them through NativeApi.
extern "C" {
int vendorGetDeviceCount(int *count);
int vendorGetDeviceName(int device, char *name, size_t capacity);
}

// Every vendor function the backend calls; add one here (and its declaration above) and it is
// resolved with the others.
#define INFINIRT_SKELETON_NATIVE_SYMBOLS(X)                                                                   \
    X(vendorGetDeviceCount)                                                                                   \
    X(vendorGetDeviceName)

// One function pointer per symbol, named like the symbol: nativeApi()->vendorGetDeviceCount(&n).
struct NativeApi {
#define INFINIRT_SKELETON_NATIVE_MEMBER(symbol) decltype(&::infinirt::skeleton::symbol) symbol = nullptr;
    INFINIRT_SKELETON_NATIVE_SYMBOLS(INFINIRT_SKELETON_NATIVE_MEMBER)
#undef INFINIRT_SKELETON_NATIVE_MEMBER
};

// Opens the vendor library named by INFINIRT_SKELETON_LIBRARY (secure_getenv) and resolves every
// symbol. Called once, from init. A library that is not configured or cannot be opened is not a
// failure: SUCCESS, nativeApi() stays NULL and nativeApiAbsence() says why. A library that opens
// but lacks a symbol is a broken installation: the status and detail (common::fail) of the
// failure, which fails init.
infiniStatus_t loadNativeApi() noexcept;

// The resolved table; NULL when no vendor library is loaded. Never changes after init.
const NativeApi *nativeApi() noexcept;

// Why no vendor library is loaded: "" when none is configured or it loaded, else e.g.
// "dlopen(\"libvendor.so.1\") failed: ... No such file or directory". Static storage.
const char *nativeApiAbsence() noexcept;

} // namespace infinirt::skeleton

#endif // INFINIRT_SKELETON_NATIVE_API_H
