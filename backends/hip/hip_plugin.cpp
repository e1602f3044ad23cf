/*
 * hip_plugin.cpp - the HIP runtime API as a gpu_common vendor table, and the plugin entry.
 *
 * The adapters only convert types; every decision is made once, in backends/gpu_common.
 */
#include "../gpu_common/gpu_backend.h"
#include "hip_backend.h"

#include <cstdint>

namespace infinirt::hip {

namespace {

using gpu::NativeStatus;

inline hipStream_t stream_of(void *s) { return static_cast<hipStream_t>(s); }
inline hipEvent_t event_of(void *e) { return static_cast<hipEvent_t>(e); }

NativeStatus device_synchronize() { return hip().hipDeviceSynchronize(); }
NativeStatus mem_get_info(size_t *free_bytes, size_t *total_bytes) { return hip().hipMemGetInfo(free_bytes, total_bytes); }
NativeStatus pool_reserved(int device, uint64_t *bytes) {
    hipMemPool_t pool = default_pool(device);
    if (!pool) {
        return hipErrorNotSupported;
    }
    uint64_t value = 0;
    hipError_t rc = hip().hipMemPoolGetAttribute(pool, hipMemPoolAttrReservedMemCurrent, &value);
    *bytes = value;
    return rc;
}

NativeStatus stream_create(void **s, unsigned flags) {
    return hip().hipStreamCreateWithFlags(reinterpret_cast<hipStream_t *>(s), flags);
}
NativeStatus stream_destroy(void *s) { return hip().hipStreamDestroy(stream_of(s)); }
NativeStatus stream_synchronize(void *s) { return hip().hipStreamSynchronize(stream_of(s)); }
NativeStatus stream_query(void *s) { return hip().hipStreamQuery(stream_of(s)); }
NativeStatus stream_wait_event(void *s, void *e) { return hip().hipStreamWaitEvent(stream_of(s), event_of(e), 0); }

NativeStatus event_create(void **e, unsigned flags) {
    return hip().hipEventCreateWithFlags(reinterpret_cast<hipEvent_t *>(e), flags);
}
NativeStatus event_destroy(void *e) { return hip().hipEventDestroy(event_of(e)); }
NativeStatus event_record(void *e, void *s) { return hip().hipEventRecord(event_of(e), stream_of(s)); }
NativeStatus event_query(void *e) { return hip().hipEventQuery(event_of(e)); }
NativeStatus event_synchronize(void *e) { return hip().hipEventSynchronize(event_of(e)); }
NativeStatus event_elapsed_time(float *ms, void *start, void *end) {
    return hip().hipEventElapsedTime(ms, event_of(start), event_of(end));
}

NativeStatus malloc_device(void **p, size_t size) { return hip().hipMalloc(p, size); }
NativeStatus free_device(void *p) { return hip().hipFree(p); }
NativeStatus malloc_host(void **p, size_t size) { return hip().hipHostMalloc(p, size, hipHostMallocPortable); }
NativeStatus free_host(void *p) { return hip().hipHostFree(p); }
/* infinirtMemcpyKind_t and hipMemcpyKind share their values, DEFAULT included. */
NativeStatus memcpy_async(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind, void *s) {
    return hip().hipMemcpyAsync(dst, src, size, static_cast<hipMemcpyKind>(kind), stream_of(s));
}
NativeStatus memset_async(void *p, int value, size_t count, void *s) {
    return hip().hipMemsetAsync(p, static_cast<unsigned char>(value), count, stream_of(s));
}
NativeStatus malloc_async(void **p, size_t size, void *s) { return hip().hipMallocAsync(p, size, stream_of(s)); }
NativeStatus free_async(void *p, void *s) { return hip().hipFreeAsync(p, stream_of(s)); }

NativeStatus begin_capture(void *s, int mode) {
    return hip().hipStreamBeginCapture(stream_of(s), static_cast<hipStreamCaptureMode>(mode));
}
NativeStatus end_capture(void *s, void **g) {
    return hip().hipStreamEndCapture(stream_of(s), reinterpret_cast<hipGraph_t *>(g));
}
NativeStatus graph_destroy(void *g) { return hip().hipGraphDestroy(static_cast<hipGraph_t>(g)); }
NativeStatus graph_instantiate(void **exec, void *g) {
    return hip().hipGraphInstantiateWithFlags(reinterpret_cast<hipGraphExec_t *>(exec), static_cast<hipGraph_t>(g), 0);
}
NativeStatus graph_exec_destroy(void *exec) { return hip().hipGraphExecDestroy(static_cast<hipGraphExec_t>(exec)); }
NativeStatus graph_launch(void *exec, void *s) {
    return hip().hipGraphLaunch(static_cast<hipGraphExec_t>(exec), stream_of(s));
}

const gpu::VendorApi kVendor = [] {
    gpu::VendorApi v{};
    v.name = "hip";
    v.device_type = INFINI_DEVICE_AMD;
    v.init = init;
    v.get_device_count = get_device_count;
    v.get_device_properties = get_device_properties;
    v.set_device = set_device;
    v.device_get_native_context = device_get_native_context;
    /* hipPointerAttribute_t changed layout between HIP 5 and 6: not worth guessing at run time. */
    v.pointer_get_attributes = nullptr;
    v.error_name = error_name;
    v.to_status = to_status;
    v.not_ready = hipErrorNotReady;
    v.bind = bind;
    v.unbind = unbind;
    v.handle_calls_need_binding = false;
    /* The null stream of the bound device, HIP's counterpart of CUDA's legacy default stream. */
    v.default_stream = nullptr;
    v.stream_non_blocking = hipStreamNonBlocking;
    v.event_disable_timing = hipEventDisableTiming;
    v.event_blocking_sync = hipEventBlockingSync;
    v.device_synchronize = {device_synchronize, "hipDeviceSynchronize"};
    v.mem_get_info = {mem_get_info, "hipMemGetInfo"};
    v.pool_reserved = {pool_reserved, "hipMemPoolGetAttribute"};
    v.stream_create = {stream_create, "hipStreamCreateWithFlags"};
    v.stream_destroy = {stream_destroy, "hipStreamDestroy"};
    v.stream_synchronize = {stream_synchronize, "hipStreamSynchronize"};
    v.stream_query = {stream_query, "hipStreamQuery"};
    v.stream_wait_event = {stream_wait_event, "hipStreamWaitEvent"};
    v.event_create = {event_create, "hipEventCreateWithFlags"};
    v.event_destroy = {event_destroy, "hipEventDestroy"};
    v.event_record = {event_record, "hipEventRecord"};
    /* HIP 5.2 has no hipEventRecordWithFlags: a recording during capture keeps HIP's meaning. */
    v.event_record_in_capture = {nullptr, "hipEventRecordWithFlags"};
    v.stream_is_capturing = {nullptr, "hipStreamIsCapturing"};
    v.event_query = {event_query, "hipEventQuery"};
    v.event_synchronize = {event_synchronize, "hipEventSynchronize"};
    v.event_elapsed_time = {event_elapsed_time, "hipEventElapsedTime"};
    v.malloc_device = {malloc_device, "hipMalloc"};
    v.free_device = {free_device, "hipFree"};
    v.malloc_host = {malloc_host, "hipHostMalloc"};
    v.free_host = {free_host, "hipHostFree"};
    v.memcpy_async = {memcpy_async, "hipMemcpyAsync"};
    v.memset_async = {memset_async, "hipMemsetAsync"};
    v.malloc_async = {malloc_async, "hipMallocAsync"};
    v.free_async = {free_async, "hipFreeAsync"};
    v.begin_capture = {begin_capture, "hipStreamBeginCapture"};
    v.end_capture = {end_capture, "hipStreamEndCapture"};
    v.graph_destroy = {graph_destroy, "hipGraphDestroy"};
    v.graph_instantiate = {graph_instantiate, "hipGraphInstantiateWithFlags"};
    v.graph_exec_destroy = {graph_exec_destroy, "hipGraphExecDestroy"};
    v.graph_launch = {graph_launch, "hipGraphLaunch"};
    return v;
}();

} // namespace

} // namespace infinirt::hip

extern "C" INFINIRT_PLUGIN_EXPORT infiniStatus_t INFINIRT_PLUGIN_ENTRY(uint32_t loader_version,
                                                                      const infinirtPluginHost_t *host,
                                                                      uint32_t *plugin_version,
                                                                      const infinirtPluginTable_t **table) {
    return infinirt::gpu::negotiate(&infinirt::hip::kVendor, loader_version, host, plugin_version, table);
}
