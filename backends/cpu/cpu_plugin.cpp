// The cpu plugin's function table and entry point: the reference implementation of the stream,
// event and memory semantics every backend gives (DESIGN.md section 6), on host threads, and
// kernels from host shared objects run by a per-device worker pool. Every entry goes in through
// INFINIRT_COMMON_ENTRY, inside the exception guard of backends/common.
#include "cpu_backend.h"

#include "common/plugin_table.hpp"

namespace infinirt::cpu {
namespace {

const infinirtPluginTable_t kTable = [] {
    infinirtPluginTable_t t = common::tableHeader("cpu", INFINI_DEVICE_CPU);
    INFINIRT_COMMON_ENTRY(t, init, initDevices);
    INFINIRT_COMMON_ENTRY(t, get_device_count, getDeviceCount);
    INFINIRT_COMMON_ENTRY(t, get_device_properties, getDeviceProperties);
    INFINIRT_COMMON_ENTRY(t, set_device, setDevice);
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
    INFINIRT_COMMON_ENTRY(t, module_load, moduleLoad);
    INFINIRT_COMMON_ENTRY(t, module_unload, moduleUnload);
    INFINIRT_COMMON_ENTRY(t, module_get_kernel, moduleGetKernel);
    INFINIRT_COMMON_ENTRY(t, module_get_global, moduleGetGlobal);
    INFINIRT_COMMON_ENTRY(t, kernel_get_attribute, kernelGetAttribute);
    INFINIRT_COMMON_ENTRY(t, kernel_set_attribute, kernelSetAttribute);
    INFINIRT_COMMON_ENTRY(t, launch_kernel, launchKernel);
    INFINIRT_COMMON_ENTRY(t, device_can_access_peer, deviceCanAccessPeer);
    INFINIRT_COMMON_ENTRY(t, device_get_peer_attribute, deviceGetPeerAttribute);
    INFINIRT_COMMON_ENTRY(t, device_enable_peer_access, deviceEnablePeerAccess);
    INFINIRT_COMMON_ENTRY(t, device_disable_peer_access, deviceDisablePeerAccess);
    INFINIRT_COMMON_ENTRY(t, memcpy_peer_async, memcpyPeerAsync);
    INFINIRT_COMMON_ENTRY(t, stream_wait_peer_event, streamWaitPeerEvent);
    // Left NULL on purpose: graphs (the loader records and replays), native handles (there is no
    // native object), resource snapshots and pointer attributes (the loader knows our blocks).
    return t;
}();

} // namespace
} // namespace infinirt::cpu

INFINIRT_COMMON_DEFINE_PLUGIN_ENTRY(infinirt::cpu::kTable)
