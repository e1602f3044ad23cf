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

// ---- lifetime and devices (skeleton_device.cpp) ---------------------------------------------

// Called once before anything else. Load the vendor library (loadNativeApi) and resolve its
// symbols here; a missing library is NOT a failure: remember why and report 0 devices later.
// Fail only for a broken installation (e.g. a library that lacks symbols it must have), or, in
// this tree, for an INFINIRT_SKELETON_DEVICE_COUNT outside 0..8.
infinirtPluginInitFn init;
// The number of usable devices. Never fails because a driver is missing: *count = 0 and the
// reason ("libfoo.so.1 not found", "driver 1.2 older than 1.4") in `reason`; "" when found.
infinirtPluginGetDeviceCountFn getDeviceCount;
// Fill what the device knows: name, vendor, total_memory, architecture, compute units, uuid,
// pci bus id. Fields left alone keep the loader's defaults (-1 / 0 / ""). The template fills the
// name and vendor of its template devices.
infinirtPluginGetDevicePropertiesFn getDeviceProperties;
// Wait for all work on every stream of the device, the default one included.
infinirtPluginDeviceSynchronizeFn deviceSynchronize;
// Free and total device memory in bytes, as the driver reports them.
infinirtPluginGetMemInfoFn getMemInfo;

// Optional, left NULL (the loader then only records the thread's current device): make the
// device's native context current on the calling thread (e.g. the CUDA current context). Failure
// leaves the thread's current device unchanged.
//     infinirtPluginSetDeviceFn setDevice;
// Optional, left NULL (the loader then fills the memory fields from get_mem_info): utilisation
// figures; set valid_fields for each one filled.
//     infinirtPluginGetResourceSnapshotFn getResourceSnapshot;

// ---- streams (skeleton_stream.cpp) ----------------------------------------------------------

// An in-order queue on the device; work on it runs asynchronously to the host.
infinirtPluginStreamCreateFn streamCreate;
// Wait for the stream's pending work, then release it.
infinirtPluginStreamDestroyFn streamDestroy;
// Block until all work submitted to the stream has completed.
infinirtPluginStreamSynchronizeFn streamSynchronize;
// SUCCESS when the stream is idle, INFINI_STATUS_NOT_READY while work is pending.
infinirtPluginStreamQueryFn streamQuery;
// Work submitted to `stream` afterwards runs after the work `event` captured; does not block the
// host. An event never recorded imposes no wait.
infinirtPluginStreamWaitEventFn streamWaitEvent;

// ---- events (skeleton_event.cpp) ------------------------------------------------------------

// flags: INFINIRT_EVENT_DISABLE_TIMING / BLOCKING_SYNC (already checked by the loader). A new
// event is COMPLETE until recorded.
infinirtPluginEventCreateFn eventCreate;
// Release the event (the loader no longer hands it out).
infinirtPluginEventDestroyFn eventDestroy;
// Capture the work submitted to `stream` so far; the event completes when that work has run.
// Recording again moves the event to the new point.
infinirtPluginEventRecordFn eventRecord;
// COMPLETE or NOT_READY in *status; the call itself succeeds in both cases.
infinirtPluginEventQueryFn eventQuery;
// Block until the event has completed (at once if never recorded).
infinirtPluginEventSynchronizeFn eventSynchronize;
// Milliseconds between two completed recordings: BAD_PARAM if either was created with
// DISABLE_TIMING or never recorded, NOT_READY if either has not completed.
infinirtPluginEventElapsedTimeFn eventElapsedTime;

// ---- memory (skeleton_memory.cpp) -----------------------------------------------------------

// `size` bytes of device memory; a request the device cannot satisfy is OUT_OF_MEMORY, with the
// size and the free memory in the message.
infinirtPluginMallocDeviceFn mallocDevice;
// Release memory from malloc_device or malloc_async (the loader checked it is ours). Like
// cudaFree: waits for the device's pending work first.
infinirtPluginFreeDeviceFn freeDevice;
// Page-locked host memory the device can copy to and from asynchronously.
infinirtPluginMallocHostFn mallocHost;
// Release memory from malloc_host (the loader checked it is ours).
infinirtPluginFreeHostFn freeHost;
// A copy ordered after work already on the device's default stream, complete on return. kind is
// H2H/H2D/D2H/D2D, or DEFAULT when the loader could not tell which side a pointer is on.
infinirtPluginMemcpySyncFn memcpySync;
// The same copy enqueued on `stream`; host memory must stay valid until it has run.
infinirtPluginMemcpyAsyncFn memcpyAsync;
// Set `count` bytes to (unsigned char)value, ordered like memcpy_sync.
infinirtPluginMemsetSyncFn memsetSync;
// The same fill enqueued on `stream`.
infinirtPluginMemsetAsyncFn memsetAsync;

// Optional, left NULL (the loader then allocates with malloc_device, which is available in stream
// order too): stream-ordered allocation, usable by work submitted to `stream` after this call.
//     infinirtPluginMallocAsyncFn mallocAsync;
// Optional, left NULL (the loader then synchronizes the stream and calls free_device): release
// once the stream's earlier work has run; must not block the host.
//     infinirtPluginFreeAsyncFn freeAsync;

// ---- graphs: all six optional, left NULL (the loader then records the calls made on a capturing
// stream and replays them through the entries above). Fill all of them to use the vendor's own
// graphs. ----------------------------------------------------------------------------------------

// Start recording work submitted to `stream` instead of running it.
//     infinirtPluginStreamBeginCaptureFn streamBeginCapture;
// Stop recording and return the graph of what was recorded.
//     infinirtPluginStreamEndCaptureFn streamEndCapture;
// Release a graph from stream_end_capture.
//     infinirtPluginGraphDestroyFn graphDestroy;
// An executable form of the graph; on failure write the reason into `log` (if not NULL).
//     infinirtPluginGraphInstantiateFn graphInstantiate;
// Release an executable graph.
//     infinirtPluginGraphExecDestroyFn graphExecDestroy;
// Run the recorded work on `stream`, in stream order.
//     infinirtPluginGraphLaunchFn graphLaunch;

// ---- native interop: all optional, left NULL (the loader then answers NOT_IMPLEMENTED, or for
// pointer attributes, reports only the memory infinirt allocated) --------------------------------

// The vendor object behind a stream (NULL: the default stream's), valid while the stream lives.
//     infinirtPluginStreamGetNativeFn streamGetNative;
// The vendor object behind an event, valid while the event lives.
//     infinirtPluginEventGetNativeFn eventGetNative;
// The device's context (e.g. CUcontext, cl_context), valid for the life of the process.
//     infinirtPluginDeviceGetNativeContextFn deviceGetNativeContext;
// For memory infinirt did not allocate: fill `attributes` and succeed if the driver recognises
// the pointer; any error otherwise (the loader then answers UNKNOWN).
//     infinirtPluginPointerGetAttributesFn pointerGetAttributes;

// ---- modules and kernels (skeleton_module.cpp, skeleton_launch.cpp) -------------------------
// Loads device code and runs it; contracts at the fields of infinirtPluginTable_t. Fill all of
// them or none (module_get_global may stay NOT_IMPLEMENTED where the device has no host-visible
// address for module variables). docs/kernels.md says how each existing backend does it.

// Builds `images` (formats resolved by the loader; refuse those the device cannot load with
// BAD_PARAM naming the ones it can) into one module; writes the build log; BUILD_FAILED with the
// log's first lines on failure.
infinirtPluginModuleLoadFn moduleLoad;
// Releases the module once launches already queued no longer need it.
infinirtPluginModuleUnloadFn moduleUnload;
// SYMBOL_NOT_FOUND naming the kernel (and some that exist).
infinirtPluginModuleGetKernelFn moduleGetKernel;
infinirtPluginModuleGetGlobalFn moduleGetGlobal;
// Finite MAX_THREADS_PER_BLOCK and MAX_DYNAMIC_SHARED_BYTES; NUM_PARAMS or -1.
infinirtPluginKernelGetAttributeFn kernelGetAttribute;
infinirtPluginKernelSetAttributeFn kernelSetAttribute;
// Stream-ordered; copies the argument bytes before returning; no allocation on this path.
infinirtPluginLaunchKernelFn launchKernel;

// ---- peers (skeleton_peer.cpp) ---------------------------------------------------------------
// Two devices of this backend (never a device with itself: the loader answers that, and pairs of
// two backends). Contracts at the fields of infinirtPluginTable_t; fill all or none.
// Whether `device` can be given access to `peer`'s memory.
infinirtPluginDeviceCanAccessPeerFn deviceCanAccessPeer;
infinirtPluginDeviceGetPeerAttributeFn deviceGetPeerAttribute;
// One direction; enabling twice is SUCCESS, disabling what is not enabled BAD_PARAM.
infinirtPluginDeviceEnablePeerAccessFn deviceEnablePeerAccess;
infinirtPluginDeviceDisablePeerAccessFn deviceDisablePeerAccess;
// A copy between two devices' memory on a stream of either; leave NULL to have the loader stage it.
infinirtPluginMemcpyPeerAsyncFn memcpyPeerAsync;
// A device-side wait for another device's event; leave NULL to have the loader wait on the host.
infinirtPluginStreamWaitPeerEventFn streamWaitPeerEvent;

} // namespace infinirt::skeleton

#endif // INFINIRT_SKELETON_BACKEND_H
