// skeleton_backend.h - the template a vendor copies to write an infinirt backend: the private
// declarations shared by the files of the skeleton backend (namespace infinirt::skeleton). Nothing
// here crosses the plugin boundary: the loader sees only the table built in skeleton_plugin.cpp,
// where every entry declared below is installed inside the exception guard of backends/common.
//
// Loaded as is, the backend is listed as UNAVAILABLE with the reason "skeleton backend: template
// only" and serves nothing. Every mandatory entry is present and answers
// INFINI_STATUS_NOT_IMPLEMENTED with a message naming the entry, except init (SUCCESS),
// get_device_count (0 devices, with the reason) and get_device_properties. The optional entries
// are left NULL in the table; the loader then falls back as described at each of them below.
//
// To make a real backend:
//  1. Copy this folder under your backend's name (e.g. backends/myvendor/) and set, at the top of
//     its CMakeLists.txt, backend_name (else it calls itself "skeleton"), backend_device_type
//     (else it claims Kunlun's type) and backend_device_kind: the code reads them only through
//     kName, kDeviceType and kDeviceKind below. Renaming the files and the namespace is optional
//     (nothing outside the plugin sees them).
//  2. Build it with infinirt_add_plugin(<name> SOURCES ...) from find_package(infinirt): that
//     produces libinfinirt-<name>.so exporting only infinirtPluginQuery, links the plugin-support
//     layer (backends/common, installed as infinirt::plugin_support) and installs the plugin into
//     <libdir>/infinirt/ where the loader finds it. (This tree builds the skeleton as a separate
//     module in test-plugins/skeleton/ instead, so it never claims a device type for real.)
//  3. Load your vendor library with dlopen in init (skeleton_native_api.cpp shows how), never
//     link it: the plugin then loads on machines without the driver and reports 0 devices with
//     the reason.
//  4. Fill the entries one by one, and run the conformance suite (tests/conformance) on your
//     device: everything it checks is the contract. Declare what your backend supports with
//     INFINIRT_CONFORMANCE_FEATURES (tests/conformance/README.md); a feature you do not declare
//     must answer NOT_IMPLEMENTED with a message, and its tests are skipped.
//
// Rules that hold for every entry (see include/infinirt_plugin.h):
//  - arguments are validated by the loader: device indices are in range, pointers to outputs are
//    not NULL, sizes are > 0, streams/events/graphs are objects this plugin returned;
//  - a NULL stream means the device's default stream;
//  - outputs are written only on success; before returning an error, set the detail with
//    common::fail (or nativeFailure for a failed vendor call): the native call, the native error's
//    name and number, and figures;
//  - may be called from many threads at once; never exit or abort (an exception is caught by the
//    entry guard and reported, but do not rely on it for expected failures).
//
// For the tests of this tree, INFINIRT_SKELETON_DEVICE_COUNT=N (1..8, read in init; default 0)
// makes the skeleton report N template devices, so the conformance suite runs on it: every entry
// still answers NOT_IMPLEMENTED, which the suite checks (conformance.skeleton).
#ifndef INFINIRT_SKELETON_BACKEND_H
#define INFINIRT_SKELETON_BACKEND_H

#include "infinirt_plugin.h"

#include "common/plugin_table.hpp"

#include <cstddef>

namespace infinirt::skeleton {

// Set in CMakeLists.txt (backend_name, backend_device_type, backend_device_kind): one place.
#if !defined(INFINIRT_BACKEND_NAME) || !defined(INFINIRT_BACKEND_DEVICE_TYPE) || !defined(INFINIRT_BACKEND_DEVICE_KIND)
#error "build with this folder's CMakeLists.txt: it defines INFINIRT_BACKEND_NAME, _DEVICE_TYPE and _DEVICE_KIND"
#endif
constexpr const char *kName = INFINIRT_BACKEND_NAME;
constexpr infiniDevice_t kDeviceType = INFINIRT_BACKEND_DEVICE_TYPE;
constexpr infinirtDeviceKind_t kDeviceKind = INFINIRT_BACKEND_DEVICE_KIND;
// The reason get_device_count gives when there is no device (the loader tests rely on it).
constexpr const char *kTemplateReason = INFINIRT_BACKEND_NAME " backend: template only";
// The architecture property of the template devices (what module_rank_image matches).
constexpr const char *kTemplateArchitecture = "template";
// The most template devices INFINIRT_SKELETON_DEVICE_COUNT may ask for.
constexpr int kMaxTemplateDevices = 8;

// ---- errors (skeleton_errors.cpp) -----------------------------------------------------------
// The native error table: every vendor code the backend can meet, with its name and the
// infiniStatus_t it stands for.

// "VENDOR_ERROR_OUT_OF_MEMORY" etc.; "VENDOR_ERROR_UNKNOWN" for a code not in the table.
const char *nativeErrorName(int code) noexcept;
// The status a vendor code stands for; DRIVER_ERROR for a code not in the table.
infiniStatus_t nativeStatus(int code) noexcept;
// For a failed vendor call: sets the thread's error detail to "<call> failed: <NAME> (<code>)
// <what>" and returns the status the table gives `code`. Written once; every file uses it.
infiniStatus_t nativeFailure(const char *call, int code, const char *what_format, ...) noexcept
    __attribute__((format(printf, 3, 4)));
// For an entry the template does not implement: sets the detail "skeleton backend: <entry> is
// not implemented" and returns INFINI_STATUS_NOT_IMPLEMENTED.
infiniStatus_t notImplemented(const char *entry) noexcept;

// ---- the plugin entries ---------------------------------------------------------------------
// Every entry of the list (INFINIRT_PLUGIN_ENTRIES in include/infinirt_plugin.h: its contract is
// there), declared by its impl name. The files that define them, by the list's groups:
//   lifetime and devices: skeleton_device.cpp. init loads the vendor library (loadNativeApi); a
//     missing library is NOT a failure: remember why and report 0 devices from getDeviceCount.
//     Fail init only for a broken installation (or, in this tree, an INFINIRT_SKELETON_DEVICE_COUNT
//     outside 0..8). getDeviceProperties fills what the device knows; the template fills the
//     name and vendor of its template devices.
//   streams: skeleton_stream.cpp; events: skeleton_event.cpp; memory: skeleton_memory.cpp;
//   modules and kernels: skeleton_module.cpp, skeleton_launch.cpp (fill all or none;
//     docs/kernels.md says how each existing backend does it);
//   peers: skeleton_peer.cpp (all or none);
//   what the loader asks of the backend: getPluginTraits (skeleton_errors.cpp: its error names and
//     its staging rank) and
//     moduleRankImage (skeleton_module.cpp).
// Left NULL (skeleton_plugin.cpp), each answered by the loader's fallback at its contract:
// set_device, get_resource_snapshot, malloc_async, free_async, the graph group, and the native
// interop group, the memory-mapping group and the IPC group. Fill a group to use the vendor's own.
INFINIRT_COMMON_DECLARE_ENTRIES();

} // namespace infinirt::skeleton

#endif // INFINIRT_SKELETON_BACKEND_H
