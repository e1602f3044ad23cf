/*
 * hip_plugin.cpp - the HIP runtime API as a gpu_common vendor table, and the plugin entry.
 *
 * The adapters (hip_device/stream/event/memory/graph/module/launch.cpp) only convert types; every
 * decision is made once, in backends/gpu_common, which builds the plugin table over this one. The
 * hip entries of the table (init, device count, ..., module load) are installed here through
 * common::guarded.
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
    v.out_of_memory = hipErrorOutOfMemory;
    v.failure = hipErrorLaunchFailure;
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
    v.stream_wait_event_in_capture = {nullptr, "hipStreamWaitEvent"};
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
    v.module_load = common::guarded<moduleLoad>;
    v.module_rank_image = common::guarded<moduleRankImage>;
    v.module_unload = {moduleUnload, "hipModuleUnload"};
    v.module_get_function = {moduleGetFunction, "hipModuleGetFunction"};
    v.module_get_global = {moduleGetGlobal, "hipModuleGetGlobal"};
    v.not_found = hipErrorNotFound;
    /* HIP cannot list a module's kernels. */
    v.module_list_functions = {nullptr, "hipModuleGetFunctionCount"};
    v.function_get_attribute = {functionGetAttribute, "hipFuncGetAttribute"};
    /* hipFuncSetAttribute takes runtime-API functions, not module ones, and AMD GPUs have no
     * opt-in limit to raise: the whole LDS is available, which gpu_common checks against. */
    v.function_set_attribute = {nullptr, "hipFuncSetAttribute"};
    /* HIP cannot tell a module function's parameter count: NUM_PARAMS is -1. */
    v.function_param_count = {nullptr, "hipFuncGetParamInfo"};
    v.device_get_attribute = {deviceGetAttribute, "hipDeviceGetAttribute"};
    v.func_attr_max_threads_per_block = HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
    v.func_attr_static_shared_bytes = HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES;
    v.func_attr_local_bytes_per_thread = HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES;
    v.func_attr_num_registers = HIP_FUNC_ATTRIBUTE_NUM_REGS;
    v.func_attr_max_dynamic_shared = HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
    v.device_attr_warp_size = hipDeviceAttributeWarpSize;
    /* hipDeviceAttributeSharedMemPerBlockOptin is CUDA-only; on AMD this is the whole limit. */
    v.device_attr_max_shared_per_block = hipDeviceAttributeMaxSharedMemoryPerBlock;
    v.launch_kernel = {launchKernel, "hipModuleLaunchKernel"};
    v.launch_kernel_ex = {nullptr, "hipModuleLaunchCooperativeKernel"};
    v.can_access_peer = {canAccessPeer, "hipDeviceCanAccessPeer"};
    v.peer_attribute = {peerAttribute, "hipDeviceGetP2PAttribute"};
    v.enable_peer_access = {enablePeerAccess, "hipDeviceEnablePeerAccess"};
    v.disable_peer_access = {disablePeerAccess, "hipDeviceDisablePeerAccess"};
    v.memcpy_peer_async = {memcpyPeerAsync, "hipMemcpyPeerAsync"};
    v.p2p_attr_access_supported = hipDevP2PAttrAccessSupported;
    v.p2p_attr_native_atomics = hipDevP2PAttrNativeAtomicSupported;
    v.p2p_attr_performance_rank = hipDevP2PAttrPerformanceRank;
    v.peer_already_enabled = hipErrorPeerAccessAlreadyEnabled;
    v.peer_not_enabled = hipErrorPeerAccessNotEnabled;
    return v;
}();

} // namespace

} // namespace infinirt::hip

INFINIRT_COMMON_DEFINE_PLUGIN_ENTRY(infinirt::gpu::pluginTable(infinirt::hip::kVendor))
