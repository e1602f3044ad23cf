// opencl_plugin.cpp - the plugin table and its one exported entry point. Every entry goes in
// through INFINIRT_COMMON_ENTRY, inside the exception guard: no C++ exception crosses the C
// boundary.
#include "opencl_backend.h"

#include "common/plugin_table.hpp"

namespace infinirt::opencl {
namespace {

using common::Entry;

// Left NULL: set_device (no per-thread native state), resource snapshots and pointer
// attributes; graphs (the loader records the calls made on a capturing stream and replays them
// through the entries, which is all OpenCL could offer natively); memcpy_peer_async and
// stream_wait_peer_event (the loader stages copies between two devices and waits on the host
// for another device's event); virtual memory but its granularity, which says why OpenCL has
// none (opencl_host_memory.cpp).
const infinirtPluginTable_t kTable = INFINIRT_COMMON_TABLE(
    "opencl", INFINI_DEVICE_OPENCL,
    common::LeftNull<Entry::set_device, Entry::get_resource_snapshot, Entry::stream_begin_capture,
                     Entry::stream_end_capture, Entry::graph_destroy, Entry::graph_instantiate,
                     Entry::graph_exec_destroy, Entry::graph_launch, Entry::pointer_get_attributes,
                     Entry::memcpy_peer_async, Entry::stream_wait_peer_event, Entry::mem_address_reserve,
                     Entry::mem_address_free, Entry::mem_create, Entry::mem_release, Entry::mem_map, Entry::mem_unmap,
                     Entry::mem_set_access,
                     Entry::thread_state_save, Entry::thread_state_restore,
                     Entry::ipc_get_mem_handle, Entry::ipc_open_mem_handle,
                     Entry::ipc_close_mem_handle, Entry::ipc_get_event_handle, Entry::ipc_open_event_handle,
                     Entry::set_device_saving>);

} // namespace
} // namespace infinirt::opencl

INFINIRT_COMMON_DEFINE_PLUGIN_ENTRY(infinirt::opencl::kTable)
