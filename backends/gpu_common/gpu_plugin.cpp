/* gpu_plugin.cpp - the plugin table built over a vendor table (the entry query is common's). */
#include "gpu_backend.h"

#include "common/plugin_table.hpp"

namespace infinirt::gpu {

const VendorApi *g_vendor = nullptr;

namespace {
infinirtPluginTable_t g_table;

infinirtPluginTable_t buildTable(const VendorApi &v) {
    infinirtPluginTable_t t = common::tableHeader(v.name, v.device_type);

    /* The vendor's own entries, guarded where the vendor filled them (gpu_vendor.h). */
    t.init = v.init;
    t.get_device_count = v.get_device_count;
    t.get_device_properties = v.get_device_properties;
    t.set_device = v.set_device;
    t.device_get_native_context = v.device_get_native_context;
    t.pointer_get_attributes = v.pointer_get_attributes;

    INFINIRT_COMMON_ENTRY(t, device_synchronize, deviceSynchronize);
    INFINIRT_COMMON_ENTRY(t, get_mem_info, getMemInfo);
    INFINIRT_COMMON_ENTRY(t, get_resource_snapshot, getResourceSnapshot);

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

    INFINIRT_COMMON_ENTRY(t, stream_begin_capture, streamBeginCapture);
    INFINIRT_COMMON_ENTRY(t, stream_end_capture, streamEndCapture);
    INFINIRT_COMMON_ENTRY(t, graph_destroy, graphDestroy);
    INFINIRT_COMMON_ENTRY(t, graph_instantiate, graphInstantiate);
    INFINIRT_COMMON_ENTRY(t, graph_exec_destroy, graphExecDestroy);
    INFINIRT_COMMON_ENTRY(t, graph_launch, graphLaunch);

    INFINIRT_COMMON_ENTRY(t, stream_get_native, streamGetNative);
    INFINIRT_COMMON_ENTRY(t, event_get_native, eventGetNative);

    /* Modules and kernels: all or none, as the interface wants them. */
    if (v.module_load) {
        t.module_load = v.module_load;
        INFINIRT_COMMON_ENTRY(t, module_unload, moduleUnload);
        INFINIRT_COMMON_ENTRY(t, module_get_kernel, moduleGetKernel);
        INFINIRT_COMMON_ENTRY(t, module_get_global, moduleGetGlobal);
        INFINIRT_COMMON_ENTRY(t, kernel_get_attribute, kernelGetAttribute);
        INFINIRT_COMMON_ENTRY(t, kernel_set_attribute, kernelSetAttribute);
        INFINIRT_COMMON_ENTRY(t, launch_kernel, launchKernel);
    }
    /* Peers: all or none. */
    if (v.can_access_peer.call) {
        INFINIRT_COMMON_ENTRY(t, device_can_access_peer, deviceCanAccessPeer);
        INFINIRT_COMMON_ENTRY(t, device_get_peer_attribute, deviceGetPeerAttribute);
        INFINIRT_COMMON_ENTRY(t, device_enable_peer_access, deviceEnablePeerAccess);
        INFINIRT_COMMON_ENTRY(t, device_disable_peer_access, deviceDisablePeerAccess);
        INFINIRT_COMMON_ENTRY(t, memcpy_peer_async, memcpyPeerAsync);
        INFINIRT_COMMON_ENTRY(t, stream_wait_peer_event, streamWaitPeerEvent);
    }
    return t;
}
} // namespace

const infinirtPluginTable_t &pluginTable(const VendorApi &vendor) {
    g_vendor = &vendor;
    g_table = buildTable(vendor);
    return g_table;
}

} // namespace infinirt::gpu
