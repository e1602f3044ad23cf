// The cpu plugin's function table and entry point: the reference implementation of the stream,
// event and memory semantics every backend gives (docs/ARCHITECTURE.md, "Semantics every backend
// gives"), on host threads, and kernels from host shared objects run by a per-device worker pool.
// Every entry goes in inside the exception guard of backends/common (INFINIRT_COMMON_FILL_ENTRIES).
#include "cpu_backend.h"

#include "common/plugin_table.hpp"

namespace infinirt::cpu {
namespace {

using common::Entry;

// Left NULL on purpose: graphs (the loader records and replays), native handles (there is no
// native object), resource snapshots and pointer attributes (the loader knows our blocks), and
// opening an event of
// another process (none can be exported: cpu_ipc.cpp says why).
const infinirtPluginTable_t kTable = INFINIRT_COMMON_TABLE(
    "cpu", INFINI_DEVICE_CPU,
    common::LeftNull<Entry::get_resource_snapshot, Entry::stream_begin_capture, Entry::stream_end_capture,
                     Entry::graph_destroy, Entry::graph_instantiate, Entry::graph_exec_destroy, Entry::graph_launch,
                     Entry::stream_get_native, Entry::event_get_native, Entry::device_get_native_context,
                     Entry::pointer_get_attributes,
                     Entry::thread_state_save, Entry::thread_state_restore, Entry::ipc_open_event_handle,
                     Entry::set_device_saving>);

} // namespace
} // namespace infinirt::cpu

INFINIRT_COMMON_DEFINE_PLUGIN_ENTRY(infinirt::cpu::kTable)
