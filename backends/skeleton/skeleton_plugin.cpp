// skeleton_plugin.cpp - the skeleton's plugin table and its one exported entry point. Every entry
// goes in inside the exception guard (INFINIRT_COMMON_FILL_ENTRIES); the contract of each is in
// the list (include/infinirt_plugin.h). Entries left NULL are optional: the loader answers them as
// said there.
#include "skeleton_backend.h"

#include "common/plugin_table.hpp"

namespace infinirt::skeleton {
namespace {

using common::Entry;

// The optional entries the template leaves NULL (skeleton_backend.h says what the loader does
// instead); every other entry of the list is declared in skeleton_backend.h and defined.
const infinirtPluginTable_t kTable = INFINIRT_COMMON_TABLE(
    kName, kDeviceType,
    common::LeftNull<Entry::set_device, Entry::get_resource_snapshot, Entry::malloc_async, Entry::free_async,
                     Entry::stream_begin_capture, Entry::stream_end_capture, Entry::graph_destroy,
                     Entry::graph_instantiate, Entry::graph_exec_destroy, Entry::graph_launch, Entry::stream_get_native,
                     Entry::event_get_native, Entry::device_get_native_context, Entry::pointer_get_attributes,
                     Entry::host_register, Entry::host_unregister, Entry::mem_get_granularity,
                     Entry::mem_address_reserve, Entry::mem_address_free, Entry::mem_create, Entry::mem_release,
                     Entry::mem_map, Entry::mem_unmap, Entry::mem_set_access,
                     Entry::thread_state_save, Entry::thread_state_restore, Entry::device_get_limit,
                     Entry::device_set_limit, Entry::device_get_stream_priority_range, Entry::stream_create_with_priority,
                     Entry::ipc_get_mem_handle, Entry::ipc_open_mem_handle,
                     Entry::ipc_close_mem_handle, Entry::ipc_get_event_handle, Entry::ipc_open_event_handle,
                     Entry::set_device_saving>);

} // namespace
} // namespace infinirt::skeleton

INFINIRT_COMMON_DEFINE_PLUGIN_ENTRY(infinirt::skeleton::kTable)
