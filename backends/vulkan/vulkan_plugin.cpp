// vulkan_plugin.cpp - the plugin table and its one exported entry point. Every entry goes in
// through INFINIRT_COMMON_TABLE, inside the exception guard: no C++ exception crosses the C
// boundary.
#include "vulkan_backend.h"

#include "common/plugin_table.hpp"

namespace infinirt::vulkan {
namespace {

using common::Entry;

// Left NULL: set_device and the thread's native state (Vulkan has no per-thread state); resource
// snapshots (the loader uses get_mem_info); pointer attributes (the loader knows every allocation
// of this plugin); stream-ordered allocation (the loader allocates with malloc_device and frees
// after the stream's work); graphs (the loader records the calls made on a capturing stream and
// replays them through the entries); the native handles (a stream is a timeline semaphore on a
// queue other streams share: no one Vulkan object stands for it);
// peers' direct copies and waits (one VkDevice per device: the loader stages and waits on the
// host); limits; host registration, virtual memory and IPC (not yet).
const infinirtPluginTable_t kTable = INFINIRT_COMMON_TABLE(
    "vulkan", INFINI_DEVICE_VULKAN,
    common::LeftNull<Entry::set_device, Entry::get_resource_snapshot, Entry::malloc_async, Entry::free_async,
                     Entry::stream_begin_capture, Entry::stream_end_capture, Entry::graph_destroy,
                     Entry::graph_instantiate, Entry::graph_exec_destroy, Entry::graph_launch,
                     Entry::stream_get_native, Entry::event_get_native, Entry::device_get_native_context,
                     Entry::pointer_get_attributes, Entry::memcpy_peer_async,
                     Entry::stream_wait_peer_event, Entry::thread_state_save,
                     Entry::thread_state_restore, Entry::device_get_limit, Entry::device_set_limit,
                     Entry::host_register, Entry::host_unregister, Entry::mem_get_granularity,
                     Entry::mem_address_reserve, Entry::mem_address_free, Entry::mem_create, Entry::mem_release,
                     Entry::mem_map, Entry::mem_unmap, Entry::mem_set_access, Entry::ipc_get_mem_handle,
                     Entry::ipc_open_mem_handle, Entry::ipc_close_mem_handle, Entry::ipc_get_event_handle,
                     Entry::ipc_open_event_handle, Entry::set_device_saving>);

} // namespace
} // namespace infinirt::vulkan

INFINIRT_COMMON_DEFINE_PLUGIN_ENTRY(infinirt::vulkan::kTable)
