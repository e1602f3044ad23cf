/*
 * cuda_plugin.cpp - the CUDA driver API as a gpu_common vendor table, and the plugin entry.
 *
 * The adapters (cuda_device/stream/event/memory/graph/module/launch.cpp) only convert types;
 * every decision is made once, in backends/gpu_common, which builds the plugin table over this
 * one. The cuda entries of the table (init, device count, ..., module load) are installed here
 * through common::guarded.
 */
#include "cuda_backend.h"

#include "common/negotiate.hpp"

namespace infinirt::cuda {

namespace {

const gpu::VendorApi kVendor = [] {
    gpu::VendorApi v{};
    v.name = "cuda";
    v.device_type = INFINI_DEVICE_NVIDIA;
    v.init = common::guarded<init>;
    v.get_device_count = common::guarded<getDeviceCount>;
    v.get_device_properties = common::guarded<getDeviceProperties>;
    v.set_device = common::guarded<setDevice>;
    v.device_get_native_context = common::guarded<deviceGetNativeContext>;
    v.pointer_get_attributes = common::guarded<pointerGetAttributes>;
    v.error_name = errorName;
    v.to_status = toStatus;
    v.not_ready = CUDA_ERROR_NOT_READY;
    v.out_of_memory = CUDA_ERROR_OUT_OF_MEMORY;
    v.failure = CUDA_ERROR_LAUNCH_FAILED;
    v.bind = bind;
    v.unbind = unbind;
    v.handle_calls_need_binding = false;
    /* The legacy default stream of the bound primary context: the stream CUDA-runtime code in
     * the same process uses as stream 0, so infinirt's default stream and theirs are one queue. */
    v.default_stream = CU_STREAM_LEGACY;
    v.stream_non_blocking = CU_STREAM_NON_BLOCKING;
    v.event_disable_timing = CU_EVENT_DISABLE_TIMING;
    v.event_blocking_sync = CU_EVENT_BLOCKING_SYNC;
    v.device_synchronize = {deviceSynchronize, "cuCtxSynchronize"};
    v.mem_get_info = {memGetInfo, "cuMemGetInfo_v2"};
    v.pool_reserved = {poolReserved, "cuMemPoolGetAttribute"};
    v.stream_create = {streamCreate, "cuStreamCreate"};
    v.stream_destroy = {streamDestroy, "cuStreamDestroy_v2"};
    v.stream_synchronize = {streamSynchronize, "cuStreamSynchronize"};
    v.stream_query = {streamQuery, "cuStreamQuery"};
    v.stream_wait_event = {streamWaitEvent, "cuStreamWaitEvent"};
    v.event_create = {eventCreate, "cuEventCreate"};
    v.event_destroy = {eventDestroy, "cuEventDestroy_v2"};
    v.event_record = {eventRecord, "cuEventRecord"};
    v.event_record_in_capture = {eventRecordInCapture, "cuEventRecordWithFlags"};
    v.stream_wait_event_in_capture = {streamWaitEventInCapture, "cuStreamWaitEvent"};
    v.stream_is_capturing = {streamIsCapturing, "cuStreamIsCapturing"};
    v.event_query = {eventQuery, "cuEventQuery"};
    v.event_synchronize = {eventSynchronize, "cuEventSynchronize"};
    v.event_elapsed_time = {eventElapsedTime, "cuEventElapsedTime"};
    v.malloc_device = {mallocDevice, "cuMemAlloc_v2"};
    v.free_device = {freeDevice, "cuMemFree_v2"};
    v.malloc_host = {mallocHost, "cuMemHostAlloc"};
    v.free_host = {freeHost, "cuMemFreeHost"};
    v.memcpy_async = {memcpyAsync, "cuMemcpyAsync"};
    v.memset_async = {memsetAsync, "cuMemsetD8Async"};
    v.malloc_async = {mallocAsync, "cuMemAllocAsync"};
    v.free_async = {freeAsync, "cuMemFreeAsync"};
    v.begin_capture = {beginCapture, "cuStreamBeginCapture_v2"};
    v.end_capture = {endCapture, "cuStreamEndCapture"};
    v.graph_destroy = {graphDestroy, "cuGraphDestroy"};
    v.graph_instantiate = {graphInstantiate, "cuGraphInstantiateWithFlags"};
    v.graph_exec_destroy = {graphExecDestroy, "cuGraphExecDestroy"};
    v.graph_launch = {graphLaunch, "cuGraphLaunch"};
    v.module_load = common::guarded<moduleLoad>;
    v.module_rank_image = common::guarded<moduleRankImage>;
    v.module_unload = {moduleUnload, "cuModuleUnload"};
    v.module_get_function = {moduleGetFunction, "cuModuleGetFunction"};
    v.module_get_global = {moduleGetGlobal, "cuModuleGetGlobal_v2"};
    v.not_found = CUDA_ERROR_NOT_FOUND;
    v.module_list_functions = {moduleListFunctions, "cuModuleEnumerateFunctions"};
    v.function_get_attribute = {functionGetAttribute, "cuFuncGetAttribute"};
    v.function_set_attribute = {functionSetAttribute, "cuFuncSetAttribute"};
    v.function_param_count = {functionParamCount, "cuFuncGetParamInfo"};
    v.device_get_attribute = {deviceGetAttribute, "cuDeviceGetAttribute"};
    v.func_attr_max_threads_per_block = CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
    v.func_attr_static_shared_bytes = CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES;
    v.func_attr_local_bytes_per_thread = CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES;
    v.func_attr_num_registers = CU_FUNC_ATTRIBUTE_NUM_REGS;
    v.func_attr_max_dynamic_shared = CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
    v.device_attr_warp_size = CU_DEVICE_ATTRIBUTE_WARP_SIZE;
    v.device_attr_max_shared_per_block = CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN;
    v.launch_kernel = {launchKernel, "cuLaunchKernel"};
    v.launch_kernel_ex = {launchKernelEx, "cuLaunchKernelEx"};
    v.can_access_peer = {canAccessPeer, "cuDeviceCanAccessPeer"};
    v.peer_attribute = {peerAttribute, "cuDeviceGetP2PAttribute"};
    v.enable_peer_access = {enablePeerAccess, "cuCtxEnablePeerAccess"};
    v.disable_peer_access = {disablePeerAccess, "cuCtxDisablePeerAccess"};
    v.memcpy_peer_async = {memcpyPeerAsync, "cuMemcpyPeerAsync"};
    v.p2p_attr_access_supported = CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED;
    v.p2p_attr_native_atomics = CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED;
    v.p2p_attr_performance_rank = CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK;
    v.peer_already_enabled = CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
    v.peer_not_enabled = CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
    return v;
}();

} // namespace

} // namespace infinirt::cuda

INFINIRT_COMMON_DEFINE_PLUGIN_ENTRY(infinirt::gpu::pluginTable(infinirt::cuda::kVendor))
