/* gpu_plugin.cpp - version negotiation and the plugin table built over a vendor table. */
#include "gpu_backend.h"

namespace infinirt::gpu {

const VendorApi *g_vendor = nullptr;

namespace {
infinirtPluginTable_t g_table;

void build_table(const VendorApi &v) {
    infinirtPluginTable_t t{};
    t.struct_size = sizeof(infinirtPluginTable_t);
    t.version = INFINIRT_PLUGIN_INTERFACE_VERSION;
    t.name = v.name;
    t.device_type = v.device_type;

    t.init = v.init;
    t.get_device_count = v.get_device_count;
    t.get_device_properties = v.get_device_properties;
    t.set_device = v.set_device;
    t.device_synchronize = device_synchronize;
    t.get_mem_info = get_mem_info;
    t.get_resource_snapshot = get_resource_snapshot;

    t.stream_create = stream_create;
    t.stream_destroy = stream_destroy;
    t.stream_synchronize = stream_synchronize;
    t.stream_query = stream_query;
    t.stream_wait_event = stream_wait_event;

    t.event_create = event_create;
    t.event_destroy = event_destroy;
    t.event_record = event_record;
    t.event_query = event_query;
    t.event_synchronize = event_synchronize;
    t.event_elapsed_time = event_elapsed_time;

    t.malloc_device = malloc_device;
    t.free_device = free_device;
    t.malloc_host = malloc_host;
    t.free_host = free_host;
    t.memcpy_sync = memcpy_sync;
    t.memcpy_async = memcpy_async;
    t.memset_sync = memset_sync;
    t.memset_async = memset_async;
    t.malloc_async = malloc_async;
    t.free_async = free_async;

    t.stream_begin_capture = stream_begin_capture;
    t.stream_end_capture = stream_end_capture;
    t.graph_destroy = graph_destroy;
    t.graph_instantiate = graph_instantiate;
    t.graph_exec_destroy = graph_exec_destroy;
    t.graph_launch = graph_launch;

    t.stream_get_native = stream_get_native;
    t.event_get_native = event_get_native;
    t.device_get_native_context = v.device_get_native_context;
    t.pointer_get_attributes = v.pointer_get_attributes;
    g_table = t;
}
} // namespace

infiniStatus_t negotiate(const VendorApi *vendor, uint32_t loader_version, const infinirtPluginHost_t *host,
                         uint32_t *plugin_version, const infinirtPluginTable_t **table) {
    if (!vendor || !plugin_version || !table || loader_version == 0) {
        return INFINI_STATUS_BAD_PARAM;
    }
    g_vendor = vendor;
    install_host(host);
    build_table(*vendor);
    *plugin_version = loader_version < INFINIRT_PLUGIN_INTERFACE_VERSION ? loader_version
                                                                         : INFINIRT_PLUGIN_INTERFACE_VERSION;
    *table = &g_table;
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::gpu
