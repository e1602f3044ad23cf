/*
 * cuda_plugin.cpp - the CUDA driver API as a gpu_common vendor table, and the plugin entry.
 *
 * The adapters only convert types (void* <-> CUstream/CUdeviceptr, CUresult -> int); every
 * decision is made once, in backends/gpu_common.
 */
#include "../gpu_common/gpu_backend.h"
#include "cuda_backend.h"

#include <cstdint>

namespace infinirt::cuda {

namespace {

using gpu::NativeStatus;

inline CUdeviceptr dptr(const void *p) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)); }
inline CUstream stream_of(void *s) { return static_cast<CUstream>(s); }
inline CUevent event_of(void *e) { return static_cast<CUevent>(e); }

NativeStatus device_synchronize() { return driver().cuCtxSynchronize(); }
NativeStatus mem_get_info(size_t *free_bytes, size_t *total_bytes) {
    return driver().cuMemGetInfo(free_bytes, total_bytes);
}
NativeStatus pool_reserved(int device, uint64_t *bytes) {
    CUmemoryPool pool = default_pool(device);
    if (!pool) {
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    cuuint64_t value = 0;
    CUresult rc = driver().cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &value);
    *bytes = value;
    return rc;
}

NativeStatus stream_create(void **s, unsigned flags) {
    return driver().cuStreamCreate(reinterpret_cast<CUstream *>(s), flags);
}
NativeStatus stream_destroy(void *s) { return driver().cuStreamDestroy(stream_of(s)); }
NativeStatus stream_synchronize(void *s) { return driver().cuStreamSynchronize(stream_of(s)); }
NativeStatus stream_query(void *s) { return driver().cuStreamQuery(stream_of(s)); }
NativeStatus stream_wait_event(void *s, void *e) { return driver().cuStreamWaitEvent(stream_of(s), event_of(e), 0); }

NativeStatus event_create(void **e, unsigned flags) {
    return driver().cuEventCreate(reinterpret_cast<CUevent *>(e), flags);
}
NativeStatus event_destroy(void *e) { return driver().cuEventDestroy(event_of(e)); }
NativeStatus event_record(void *e, void *s) { return driver().cuEventRecord(event_of(e), stream_of(s)); }
NativeStatus event_record_in_capture(void *e, void *s) {
    return driver().cuEventRecordWithFlags(event_of(e), stream_of(s), CU_EVENT_RECORD_EXTERNAL);
}
NativeStatus stream_is_capturing(void *s, bool *capturing) {
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    CUresult rc = driver().cuStreamIsCapturing(stream_of(s), &status);
    *capturing = status == CU_STREAM_CAPTURE_STATUS_ACTIVE;
    return rc;
}
NativeStatus event_query(void *e) { return driver().cuEventQuery(event_of(e)); }
NativeStatus event_synchronize(void *e) { return driver().cuEventSynchronize(event_of(e)); }
NativeStatus event_elapsed_time(float *ms, void *start, void *end) {
    return driver().cuEventElapsedTime(ms, event_of(start), event_of(end));
}

NativeStatus malloc_device(void **p, size_t size) {
    CUdeviceptr d = 0;
    CUresult rc = driver().cuMemAlloc(&d, size);
    *p = reinterpret_cast<void *>(static_cast<uintptr_t>(d));
    return rc;
}
NativeStatus free_device(void *p) { return driver().cuMemFree(dptr(p)); }
/* PORTABLE: pinned for every context, so copies with any device are asynchronous. */
NativeStatus malloc_host(void **p, size_t size) { return driver().cuMemHostAlloc(p, size, CU_MEMHOSTALLOC_PORTABLE); }
NativeStatus free_host(void *p) { return driver().cuMemFreeHost(p); }
/* Unified addressing tells the driver each pointer's side: one call serves every kind. */
NativeStatus memcpy_async(void *dst, const void *src, size_t size, infinirtMemcpyKind_t, void *s) {
    return driver().cuMemcpyAsync(dptr(dst), dptr(src), size, stream_of(s));
}
NativeStatus memset_async(void *p, int value, size_t count, void *s) {
    return driver().cuMemsetD8Async(dptr(p), static_cast<unsigned char>(value), count, stream_of(s));
}
NativeStatus malloc_async(void **p, size_t size, void *s) {
    CUdeviceptr d = 0;
    CUresult rc = driver().cuMemAllocAsync(&d, size, stream_of(s));
    *p = reinterpret_cast<void *>(static_cast<uintptr_t>(d));
    return rc;
}
NativeStatus free_async(void *p, void *s) { return driver().cuMemFreeAsync(dptr(p), stream_of(s)); }

NativeStatus begin_capture(void *s, int mode) {
    return driver().cuStreamBeginCapture(stream_of(s), static_cast<CUstreamCaptureMode>(mode));
}
NativeStatus end_capture(void *s, void **g) {
    return driver().cuStreamEndCapture(stream_of(s), reinterpret_cast<CUgraph *>(g));
}
NativeStatus graph_destroy(void *g) { return driver().cuGraphDestroy(static_cast<CUgraph>(g)); }
NativeStatus graph_instantiate(void **exec, void *g) {
    return driver().cuGraphInstantiateWithFlags(reinterpret_cast<CUgraphExec *>(exec), static_cast<CUgraph>(g), 0);
}
NativeStatus graph_exec_destroy(void *exec) { return driver().cuGraphExecDestroy(static_cast<CUgraphExec>(exec)); }
NativeStatus graph_launch(void *exec, void *s) {
    return driver().cuGraphLaunch(static_cast<CUgraphExec>(exec), stream_of(s));
}

const gpu::VendorApi kVendor = [] {
    gpu::VendorApi v{};
    v.name = "cuda";
    v.device_type = INFINI_DEVICE_NVIDIA;
    v.init = init;
    v.get_device_count = get_device_count;
    v.get_device_properties = get_device_properties;
    v.set_device = set_device;
    v.device_get_native_context = device_get_native_context;
    v.pointer_get_attributes = pointer_get_attributes;
    v.error_name = error_name;
    v.to_status = to_status;
    v.not_ready = CUDA_ERROR_NOT_READY;
    v.bind = bind;
    v.unbind = unbind;
    v.handle_calls_need_binding = false;
    /* The legacy default stream of the bound primary context: the stream CUDA-runtime code in
     * the same process uses as stream 0, so infinirt's default stream and theirs are one queue. */
    v.default_stream = CU_STREAM_LEGACY;
    v.stream_non_blocking = CU_STREAM_NON_BLOCKING;
    v.event_disable_timing = CU_EVENT_DISABLE_TIMING;
    v.event_blocking_sync = CU_EVENT_BLOCKING_SYNC;
    v.device_synchronize = {device_synchronize, "cuCtxSynchronize"};
    v.mem_get_info = {mem_get_info, "cuMemGetInfo_v2"};
    v.pool_reserved = {pool_reserved, "cuMemPoolGetAttribute"};
    v.stream_create = {stream_create, "cuStreamCreate"};
    v.stream_destroy = {stream_destroy, "cuStreamDestroy_v2"};
    v.stream_synchronize = {stream_synchronize, "cuStreamSynchronize"};
    v.stream_query = {stream_query, "cuStreamQuery"};
    v.stream_wait_event = {stream_wait_event, "cuStreamWaitEvent"};
    v.event_create = {event_create, "cuEventCreate"};
    v.event_destroy = {event_destroy, "cuEventDestroy_v2"};
    v.event_record = {event_record, "cuEventRecord"};
    v.event_record_in_capture = {event_record_in_capture, "cuEventRecordWithFlags"};
    v.stream_is_capturing = {stream_is_capturing, "cuStreamIsCapturing"};
    v.event_query = {event_query, "cuEventQuery"};
    v.event_synchronize = {event_synchronize, "cuEventSynchronize"};
    v.event_elapsed_time = {event_elapsed_time, "cuEventElapsedTime"};
    v.malloc_device = {malloc_device, "cuMemAlloc_v2"};
    v.free_device = {free_device, "cuMemFree_v2"};
    v.malloc_host = {malloc_host, "cuMemHostAlloc"};
    v.free_host = {free_host, "cuMemFreeHost"};
    v.memcpy_async = {memcpy_async, "cuMemcpyAsync"};
    v.memset_async = {memset_async, "cuMemsetD8Async"};
    v.malloc_async = {malloc_async, "cuMemAllocAsync"};
    v.free_async = {free_async, "cuMemFreeAsync"};
    v.begin_capture = {begin_capture, "cuStreamBeginCapture_v2"};
    v.end_capture = {end_capture, "cuStreamEndCapture"};
    v.graph_destroy = {graph_destroy, "cuGraphDestroy"};
    v.graph_instantiate = {graph_instantiate, "cuGraphInstantiateWithFlags"};
    v.graph_exec_destroy = {graph_exec_destroy, "cuGraphExecDestroy"};
    v.graph_launch = {graph_launch, "cuGraphLaunch"};
    return v;
}();

} // namespace

} // namespace infinirt::cuda

extern "C" INFINIRT_PLUGIN_EXPORT infiniStatus_t INFINIRT_PLUGIN_ENTRY(uint32_t loader_version,
                                                                      const infinirtPluginHost_t *host,
                                                                      uint32_t *plugin_version,
                                                                      const infinirtPluginTable_t **table) {
    return infinirt::gpu::negotiate(&infinirt::cuda::kVendor, loader_version, host, plugin_version, table);
}
