/* gpu_plugin.cpp - the plugin table built over a vendor table (the entry query is common's). */
#include "gpu_backend.h"

#include "common/plugin_table.hpp"

namespace infinirt::gpu {

const VendorApi *g_vendor = nullptr;

namespace {
infinirtPluginTable_t g_table;

using common::Entry;

/* Clears each group of entries whose flag is set. */
void clearMemorySharing(infinirtPluginTable_t &t, bool registration, bool virtual_memory, bool ipc_memory,
                        bool ipc_events) {
    if (registration) {
        INFINIRT_COMMON_CLEAR_GROUP(t, INFINIRT_PLUGIN_ENTRIES_HOST_REGISTRATION);
    }
    if (virtual_memory) {
        INFINIRT_COMMON_CLEAR_GROUP(t, INFINIRT_PLUGIN_ENTRIES_VIRTUAL_MEMORY);
    }
    if (ipc_memory) {
        INFINIRT_COMMON_CLEAR_GROUP(t, INFINIRT_PLUGIN_ENTRIES_IPC_MEMORY);
    }
    if (ipc_events) {
        INFINIRT_COMMON_CLEAR_GROUP(t, INFINIRT_PLUGIN_ENTRIES_IPC_EVENTS);
    }
}

infinirtPluginTable_t buildTable(const VendorApi &v) {
    infinirtPluginTable_t t = common::tableHeader(v.name, v.device_type);
    INFINIRT_COMMON_FILL_ENTRIES(t, common::LeftNull<Entry::init, Entry::get_device_count, Entry::get_device_properties,
                                                     Entry::set_device, Entry::thread_state_save,
                                                     Entry::thread_state_restore, Entry::set_device_saving,
                                                     Entry::device_get_native_context,
                                                     Entry::pointer_get_attributes, Entry::module_load,
                                                     Entry::module_rank_image>);

    /* The vendor's own entries, guarded where the vendor filled them (gpu_vendor.h). */
    t.init = v.init;
    t.get_device_count = v.get_device_count;
    t.get_device_properties = v.get_device_properties;
    t.set_device = v.set_device;
    t.thread_state_save = v.thread_state_save;
    t.thread_state_restore = v.thread_state_restore;
    t.set_device_saving = v.set_device_saving;
    t.device_get_native_context = v.device_get_native_context;
    t.pointer_get_attributes = v.pointer_get_attributes;
    t.module_load = v.module_load;
    t.module_rank_image = v.module_rank_image;

    /* Modules and kernels: all or none, as the interface wants them. */
    if (v.module_load == nullptr) {
        INFINIRT_COMMON_CLEAR_GROUP(t, INFINIRT_PLUGIN_ENTRIES_MODULES);
        t.module_rank_image = nullptr;
    }
    /* Registration, virtual memory, shared memory and shared events: each all or none. */
    clearMemorySharing(t, v.host_register.call == nullptr, v.mem_create.call == nullptr,
                       v.ipc_get_mem_handle.call == nullptr, v.ipc_get_event_handle.call == nullptr);
    /* Peers: all or none. */
    if (v.can_access_peer.call == nullptr) {
        INFINIRT_COMMON_CLEAR_GROUP(t, INFINIRT_PLUGIN_ENTRIES_PEERS);
    }
    return t;
}
} // namespace

const infinirtPluginTable_t &pluginTable(const VendorApi &vendor) {
    g_vendor = &vendor;
    g_table = buildTable(vendor);
    return g_table;
}

void withdrawMemorySharing() { clearMemorySharing(g_table, true, true, true, true); }

} // namespace infinirt::gpu
