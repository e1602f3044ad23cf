/*
 * hip_plugin.cpp - the HIP runtime API as a gpu_common vendor table, and the plugin entry.
 *
 * The adapters (hip_device/stream/event/memory/graph.cpp) only convert types; every decision is
 * made once, in backends/gpu_common, which builds the plugin table over this one. The hip
 * entries of the table (init, device count, ...) are installed here through common::guarded.
 */
#include "hip_backend.h"

#include "common/negotiate.hpp"

namespace infinirt::hip {

namespace {

const gpu::VendorApi kVendor = [] {
    gpu::VendorApi v{};
    v.name = "hip";
    v.device_type = INFINI_DEVICE_AMD;
    v.init = common::guarded<init>;
    v.get_device_count = common::guarded<getDeviceCount>;
    v.get_device_properties = common::guarded<getDeviceProperties>;
    v.set_device = common::guarded<setDevice>;
    v.device_get_native_context = common::guarded<deviceGetNativeContext>;
    /* hipPointerAttribute_t changed layout between HIP 5 and 6: not worth guessing at run time. */
    v.pointer_get_attributes = nullptr;
    v.error_name = errorName;
    v.to_status = toStatus;
    v.not_ready = hipErrorNotReady;
    v.bind = bind;
    v.unbind = unbind;
    v.handle_calls_need_binding = false;
    /* The null stream of the bound device, HIP's counterpart of CUDA's legacy default stream. */
    v.default_stream = nullptr;
    v.stream_non_blocking = hipStreamNonBlocking;
    v.event_disable_timing = hipEventDisableTiming;
    v.event_blocking_sync = hipEventBlockingSync;
    v.device_synchronize = {deviceSynchronize, "hipDeviceSynchronize"};
    v.mem_get_info = {memGetInfo, "hipMemGetInfo"};
    v.pool_reserved = {poolReserved, "hipMemPoolGetAttribute"};
    v.stream_create = {streamCreate, "hipStreamCreateWithFlags"};
    v.stream_destroy = {streamDestroy, "hipStreamDestroy"};
    v.stream_synchronize = {streamSynchronize, "hipStreamSynchronize"};
    v.stream_query = {streamQuery, "hipStreamQuery"};
    v.stream_wait_event = {streamWaitEvent, "hipStreamWaitEvent"};
    v.event_create = {eventCreate, "hipEventCreateWithFlags"};
    v.event_destroy = {eventDestroy, "hipEventDestroy"};
    v.event_record = {eventRecord, "hipEventRecord"};
    /* HIP 5.2 has no hipEventRecordWithFlags: a recording during capture keeps HIP's meaning. */
    v.event_record_in_capture = {nullptr, "hipEventRecordWithFlags"};
    v.stream_is_capturing = {nullptr, "hipStreamIsCapturing"};
    v.event_query = {eventQuery, "hipEventQuery"};
    v.event_synchronize = {eventSynchronize, "hipEventSynchronize"};
    v.event_elapsed_time = {eventElapsedTime, "hipEventElapsedTime"};
    v.malloc_device = {mallocDevice, "hipMalloc"};
    v.free_device = {freeDevice, "hipFree"};
    v.malloc_host = {mallocHost, "hipHostMalloc"};
    v.free_host = {freeHost, "hipHostFree"};
    v.memcpy_async = {memcpyAsync, "hipMemcpyAsync"};
    v.memset_async = {memsetAsync, "hipMemsetAsync"};
    v.malloc_async = {mallocAsync, "hipMallocAsync"};
    v.free_async = {freeAsync, "hipFreeAsync"};
    v.begin_capture = {beginCapture, "hipStreamBeginCapture"};
    v.end_capture = {endCapture, "hipStreamEndCapture"};
    v.graph_destroy = {graphDestroy, "hipGraphDestroy"};
    v.graph_instantiate = {graphInstantiate, "hipGraphInstantiateWithFlags"};
    v.graph_exec_destroy = {graphExecDestroy, "hipGraphExecDestroy"};
    v.graph_launch = {graphLaunch, "hipGraphLaunch"};
    return v;
}();

} // namespace

} // namespace infinirt::hip

INFINIRT_COMMON_DEFINE_PLUGIN_ENTRY(infinirt::gpu::pluginTable(infinirt::hip::kVendor))
