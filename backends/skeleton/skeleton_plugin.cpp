// skeleton_plugin.cpp - the skeleton's plugin table and its one exported entry point. Every entry
// goes in through INFINIRT_COMMON_ENTRY, inside the exception guard; the contract of each is at
// its declaration in skeleton_backend.h. Entries left NULL are optional: the loader answers them
// as said beside each (include/infinirt_plugin.h).
#include "skeleton_backend.h"

#include "common/plugin_table.hpp"

namespace infinirt::skeleton {
namespace {

const infinirtPluginTable_t kTable = [] {
    infinirtPluginTable_t t = common::tableHeader(kName, kDeviceType);

    // ---- lifetime and devices
    INFINIRT_COMMON_ENTRY(t, init, init);
    INFINIRT_COMMON_ENTRY(t, get_device_count, getDeviceCount);
    INFINIRT_COMMON_ENTRY(t, get_device_properties, getDeviceProperties);
    // set_device: NULL; the loader records the thread's current device without calling the plugin.
    INFINIRT_COMMON_ENTRY(t, device_synchronize, deviceSynchronize);
    INFINIRT_COMMON_ENTRY(t, get_mem_info, getMemInfo);
    // get_resource_snapshot: NULL; the loader fills the snapshot's memory fields from get_mem_info.

    // ---- streams
    INFINIRT_COMMON_ENTRY(t, stream_create, streamCreate);
    INFINIRT_COMMON_ENTRY(t, stream_destroy, streamDestroy);
    INFINIRT_COMMON_ENTRY(t, stream_synchronize, streamSynchronize);
    INFINIRT_COMMON_ENTRY(t, stream_query, streamQuery);
    INFINIRT_COMMON_ENTRY(t, stream_wait_event, streamWaitEvent);

    // ---- events
    INFINIRT_COMMON_ENTRY(t, event_create, eventCreate);
    INFINIRT_COMMON_ENTRY(t, event_destroy, eventDestroy);
    INFINIRT_COMMON_ENTRY(t, event_record, eventRecord);
    INFINIRT_COMMON_ENTRY(t, event_query, eventQuery);
    INFINIRT_COMMON_ENTRY(t, event_synchronize, eventSynchronize);
    INFINIRT_COMMON_ENTRY(t, event_elapsed_time, eventElapsedTime);

    // ---- memory
    INFINIRT_COMMON_ENTRY(t, malloc_device, mallocDevice);
    INFINIRT_COMMON_ENTRY(t, free_device, freeDevice);
    INFINIRT_COMMON_ENTRY(t, malloc_host, mallocHost);
    INFINIRT_COMMON_ENTRY(t, free_host, freeHost);
    INFINIRT_COMMON_ENTRY(t, memcpy_sync, memcpySync);
    INFINIRT_COMMON_ENTRY(t, memcpy_async, memcpyAsync);
    INFINIRT_COMMON_ENTRY(t, memset_sync, memsetSync);
    INFINIRT_COMMON_ENTRY(t, memset_async, memsetAsync);
    // malloc_async, free_async: NULL; the loader allocates with malloc_device, and frees by
    // synchronizing the stream and calling free_device.

    // ---- graphs: stream_begin_capture, stream_end_capture, graph_destroy, graph_instantiate,
    // graph_exec_destroy, graph_launch: NULL; the loader records the calls made on a capturing
    // stream and replays them through the entries above. Fill all six or none.

    // ---- modules and kernels (interface version 2)
    INFINIRT_COMMON_ENTRY(t, module_load, moduleLoad);
    INFINIRT_COMMON_ENTRY(t, module_unload, moduleUnload);
    INFINIRT_COMMON_ENTRY(t, module_get_kernel, moduleGetKernel);
    INFINIRT_COMMON_ENTRY(t, module_get_global, moduleGetGlobal);
    INFINIRT_COMMON_ENTRY(t, kernel_get_attribute, kernelGetAttribute);
    INFINIRT_COMMON_ENTRY(t, kernel_set_attribute, kernelSetAttribute);
    INFINIRT_COMMON_ENTRY(t, launch_kernel, launchKernel);

    // ---- peers
    INFINIRT_COMMON_ENTRY(t, device_can_access_peer, deviceCanAccessPeer);
    INFINIRT_COMMON_ENTRY(t, device_get_peer_attribute, deviceGetPeerAttribute);
    INFINIRT_COMMON_ENTRY(t, device_enable_peer_access, deviceEnablePeerAccess);
    INFINIRT_COMMON_ENTRY(t, device_disable_peer_access, deviceDisablePeerAccess);
    INFINIRT_COMMON_ENTRY(t, memcpy_peer_async, memcpyPeerAsync);
    INFINIRT_COMMON_ENTRY(t, stream_wait_peer_event, streamWaitPeerEvent);

    // ---- native interop: stream_get_native, event_get_native, device_get_native_context: NULL;
    // the loader answers NOT_IMPLEMENTED. pointer_get_attributes: NULL; the loader reports the
    // memory infinirt allocated and UNKNOWN for any other pointer.
    return t;
}();

} // namespace
} // namespace infinirt::skeleton

INFINIRT_COMMON_DEFINE_PLUGIN_ENTRY(infinirt::skeleton::kTable)
