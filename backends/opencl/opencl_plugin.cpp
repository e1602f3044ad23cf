// opencl_plugin.cpp - the plugin table and its one exported entry point. Every entry goes in
// through INFINIRT_COMMON_ENTRY, inside the exception guard: no C++ exception crosses the C
// boundary.
#include "opencl_backend.h"

#include "common/plugin_table.hpp"

namespace infinirt::opencl {
namespace {

const infinirtPluginTable_t kTable = [] {
    infinirtPluginTable_t t = common::tableHeader("opencl", INFINI_DEVICE_OPENCL);
    INFINIRT_COMMON_ENTRY(t, init, init);
    INFINIRT_COMMON_ENTRY(t, get_device_count, getDeviceCount);
    INFINIRT_COMMON_ENTRY(t, get_device_properties, getDeviceProperties);
    INFINIRT_COMMON_ENTRY(t, device_synchronize, deviceSynchronize);
    INFINIRT_COMMON_ENTRY(t, get_mem_info, getMemInfo);
    INFINIRT_COMMON_ENTRY(t, stream_create, streamCreate);
    INFINIRT_COMMON_ENTRY(t, stream_destroy, streamDestroy);
    INFINIRT_COMMON_ENTRY(t, stream_synchronize, streamSynchronize);
    INFINIRT_COMMON_ENTRY(t, stream_query, streamQuery);
    INFINIRT_COMMON_ENTRY(t, stream_wait_event, streamWaitEvent);
    INFINIRT_COMMON_ENTRY(t, event_create, eventCreate);
    INFINIRT_COMMON_ENTRY(t, event_destroy, eventDestroy);
    INFINIRT_COMMON_ENTRY(t, event_record, eventRecord);
    INFINIRT_COMMON_ENTRY(t, event_query, eventQuery);
    INFINIRT_COMMON_ENTRY(t, event_synchronize, eventSynchronize);
    INFINIRT_COMMON_ENTRY(t, event_elapsed_time, eventElapsedTime);
    INFINIRT_COMMON_ENTRY(t, malloc_device, mallocDevice);
    INFINIRT_COMMON_ENTRY(t, free_device, freeDevice);
    INFINIRT_COMMON_ENTRY(t, malloc_host, mallocHost);
    INFINIRT_COMMON_ENTRY(t, free_host, freeHost);
    INFINIRT_COMMON_ENTRY(t, memcpy_sync, memcpySync);
    INFINIRT_COMMON_ENTRY(t, memcpy_async, memcpyAsync);
    INFINIRT_COMMON_ENTRY(t, memset_sync, memsetSync);
    INFINIRT_COMMON_ENTRY(t, memset_async, memsetAsync);
    INFINIRT_COMMON_ENTRY(t, malloc_async, mallocAsync);
    INFINIRT_COMMON_ENTRY(t, free_async, freeAsync);
    // Graph entries stay NULL: the loader records the calls made on a capturing stream and
    // replays them through the entries above, which is all OpenCL could offer natively.
    INFINIRT_COMMON_ENTRY(t, stream_get_native, streamGetNative);
    INFINIRT_COMMON_ENTRY(t, event_get_native, eventGetNative);
    INFINIRT_COMMON_ENTRY(t, device_get_native_context, deviceGetNativeContext);
    INFINIRT_COMMON_ENTRY(t, module_load, moduleLoad);
    INFINIRT_COMMON_ENTRY(t, module_unload, moduleUnload);
    INFINIRT_COMMON_ENTRY(t, module_get_kernel, moduleGetKernel);
    INFINIRT_COMMON_ENTRY(t, module_get_global, moduleGetGlobal);
    INFINIRT_COMMON_ENTRY(t, kernel_get_attribute, kernelGetAttribute);
    INFINIRT_COMMON_ENTRY(t, kernel_set_attribute, kernelSetAttribute);
    // No native graphs: a launch on a capturing stream is recorded by the loader and replayed
    // through launch_kernel.
    INFINIRT_COMMON_ENTRY(t, launch_kernel, launchKernel);
    INFINIRT_COMMON_ENTRY(t, device_can_access_peer, deviceCanAccessPeer);
    INFINIRT_COMMON_ENTRY(t, device_get_peer_attribute, deviceGetPeerAttribute);
    INFINIRT_COMMON_ENTRY(t, device_enable_peer_access, deviceEnablePeerAccess);
    INFINIRT_COMMON_ENTRY(t, device_disable_peer_access, deviceDisablePeerAccess);
    // memcpy_peer_async, stream_wait_peer_event: NULL; the loader stages copies between two
    // devices and waits on the host for another device's event.
    return t;
}();

} // namespace
} // namespace infinirt::opencl

INFINIRT_COMMON_DEFINE_PLUGIN_ENTRY(infinirt::opencl::kTable)
