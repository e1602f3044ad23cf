/*
 * gpu_vendor_table.h - how the cuda and hip plugins fill their vendor table (gpu_vendor.h) and
 * their device-property source (gpu_backend.h): one row per field, the CUDA value beside the HIP
 * one, so the one-to-one correspondence the shared implementation rests on is written once.
 *
 * A vendor expands the rows with its column, inside its own namespace:
 *     const gpu::VendorApi kVendor = INFINIRT_GPU_VENDOR_TABLE(INFINIRT_GPU_PICK_CUDA);
 *     const gpu::DevicePropertySource kProperties = INFINIRT_GPU_PROPERTY_SOURCE(INFINIRT_GPU_PICK_CUDA);
 * The tokens of the other column are never compiled. What a row names without a column is the
 * vendor's, looked up in the vendor's namespace: its own plugin entries (init, getDeviceCount,
 * getDeviceProperties, setDevice, threadStateSave, threadStateRestore, setDeviceSaving,
 * deviceGetNativeContext, pointerGetAttributes, moduleLoad, moduleRankImage), its error table
 * (errorName, toStatus), context binding (bind, unbind) and the converters native<Entry> of its
 * <area>.cpp files, which make one native call each with types converted.
 * The vendor's own plugin entries are installed through common::guarded, as gpu_vendor.h wants.
 */
#ifndef INFINIRT_GPU_VENDOR_TABLE_H
#define INFINIRT_GPU_VENDOR_TABLE_H

#include "gpu_backend.h"

#include <type_traits>
#include <utility>

#define INFINIRT_GPU_PICK_CUDA(cuda, hip) cuda
#define INFINIRT_GPU_PICK_HIP(cuda, hip) hip

/* X(PICK, field, CUDA value, HIP value): the plain fields of VendorApi. */
#define INFINIRT_GPU_VENDOR_VALUES(X, PICK)                                                                        \
    X(PICK, name, "cuda", "hip")                                                                                   \
    X(PICK, device_type, INFINI_DEVICE_NVIDIA, INFINI_DEVICE_AMD)                                                  \
    /* hipPointerAttribute_t changed layout between HIP 5 and 6: not worth guessing at run time. */                \
    X(PICK, pointer_get_attributes, ::infinirt::common::guarded<pointerGetAttributes>, nullptr)                    \
    X(PICK, not_ready, CUDA_ERROR_NOT_READY, hipErrorNotReady)                                                     \
    X(PICK, out_of_memory, CUDA_ERROR_OUT_OF_MEMORY, hipErrorOutOfMemory)                                          \
    X(PICK, failure, CUDA_ERROR_LAUNCH_FAILED, hipErrorLaunchFailure)                                              \
    /* CUDA: the legacy default stream of the bound primary context, the stream CUDA-runtime code in the same      \
     * process uses as stream 0, so infinirt's default stream and theirs are one queue. HIP: the null stream of    \
     * the bound device, HIP's counterpart. */                                                                     \
    X(PICK, default_stream, CU_STREAM_LEGACY, nullptr)                                                             \
    X(PICK, stream_non_blocking, CU_STREAM_NON_BLOCKING, hipStreamNonBlocking)                                     \
    X(PICK, event_disable_timing, CU_EVENT_DISABLE_TIMING, hipEventDisableTiming)                                  \
    X(PICK, event_blocking_sync, CU_EVENT_BLOCKING_SYNC, hipEventBlockingSync)                                     \
    X(PICK, event_interprocess, CU_EVENT_INTERPROCESS, hipEventInterprocess)                                       \
    X(PICK, not_found, CUDA_ERROR_NOT_FOUND, hipErrorNotFound)                                                     \
    X(PICK, func_attr_max_threads_per_block, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,                              \
      HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)                                                                    \
    X(PICK, func_attr_static_shared_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) \
    X(PICK, func_attr_local_bytes_per_thread, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,                                  \
      HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)                                                                         \
    X(PICK, func_attr_num_registers, CU_FUNC_ATTRIBUTE_NUM_REGS, HIP_FUNC_ATTRIBUTE_NUM_REGS)                      \
    X(PICK, func_attr_max_dynamic_shared, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,                         \
      HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)                                                            \
    X(PICK, device_attr_warp_size, CU_DEVICE_ATTRIBUTE_WARP_SIZE, hipDeviceAttributeWarpSize)                      \
    /* HIP has no attribute for POSIX file descriptors of physical allocations. */                                 \
    X(PICK, device_attr_posix_fd_handles, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, -1)     \
    /* hipDeviceAttributeSharedMemPerBlockOptin is CUDA-only; on AMD the whole limit is the plain one. */          \
    X(PICK, device_attr_max_shared_per_block, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,               \
      hipDeviceAttributeMaxSharedMemoryPerBlock)                                                                   \
    X(PICK, p2p_attr_access_supported, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, hipDevP2PAttrAccessSupported)     \
    X(PICK, p2p_attr_native_atomics, CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED,                              \
      hipDevP2PAttrNativeAtomicSupported)                                                                          \
    X(PICK, p2p_attr_performance_rank, CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, hipDevP2PAttrPerformanceRank)     \
    X(PICK, peer_already_enabled, CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, hipErrorPeerAccessAlreadyEnabled)        \
    X(PICK, peer_not_enabled, CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, hipErrorPeerAccessNotEnabled)

/* X(PICK, field, converter, CUDA name, HIP name): the native entries both vendors have. The name
 * is the one the library exports, which error messages quote. */
#define INFINIRT_GPU_VENDOR_ENTRIES(X, PICK)                                                                       \
    X(PICK, device_synchronize, nativeDeviceSynchronize, "cuCtxSynchronize", "hipDeviceSynchronize")               \
    X(PICK, mem_get_info, nativeMemGetInfo, "cuMemGetInfo_v2", "hipMemGetInfo")                                    \
    X(PICK, pool_reserved, nativePoolReserved, "cuMemPoolGetAttribute", "hipMemPoolGetAttribute")                  \
    X(PICK, stream_create, nativeStreamCreate, "cuStreamCreate", "hipStreamCreateWithFlags")                       \
    X(PICK, stream_destroy, nativeStreamDestroy, "cuStreamDestroy_v2", "hipStreamDestroy")                         \
    X(PICK, stream_synchronize, nativeStreamSynchronize, "cuStreamSynchronize", "hipStreamSynchronize")            \
    X(PICK, stream_query, nativeStreamQuery, "cuStreamQuery", "hipStreamQuery")                                    \
    X(PICK, stream_wait_event, nativeStreamWaitEvent, "cuStreamWaitEvent", "hipStreamWaitEvent")                   \
    X(PICK, event_create, nativeEventCreate, "cuEventCreate", "hipEventCreateWithFlags")                           \
    X(PICK, event_destroy, nativeEventDestroy, "cuEventDestroy_v2", "hipEventDestroy")                             \
    X(PICK, event_record, nativeEventRecord, "cuEventRecord", "hipEventRecord")                                    \
    X(PICK, event_query, nativeEventQuery, "cuEventQuery", "hipEventQuery")                                        \
    X(PICK, event_synchronize, nativeEventSynchronize, "cuEventSynchronize", "hipEventSynchronize")                \
    X(PICK, event_elapsed_time, nativeEventElapsedTime, "cuEventElapsedTime", "hipEventElapsedTime")               \
    X(PICK, malloc_device, nativeMallocDevice, "cuMemAlloc_v2", "hipMalloc")                                       \
    X(PICK, free_device, nativeFreeDevice, "cuMemFree_v2", "hipFree")                                              \
    X(PICK, malloc_host, nativeMallocHost, "cuMemHostAlloc", "hipHostMalloc")                                      \
    X(PICK, free_host, nativeFreeHost, "cuMemFreeHost", "hipHostFree")                                             \
    X(PICK, memcpy_async, nativeMemcpyAsync, "cuMemcpyAsync", "hipMemcpyAsync")                                    \
    X(PICK, memset_async, nativeMemsetAsync, "cuMemsetD8Async", "hipMemsetAsync")                                  \
    X(PICK, malloc_async, nativeMallocAsync, "cuMemAllocAsync", "hipMallocAsync")                                  \
    X(PICK, free_async, nativeFreeAsync, "cuMemFreeAsync", "hipFreeAsync")                                         \
    X(PICK, begin_capture, nativeBeginCapture, "cuStreamBeginCapture_v2", "hipStreamBeginCapture")                 \
    X(PICK, end_capture, nativeEndCapture, "cuStreamEndCapture", "hipStreamEndCapture")                            \
    X(PICK, graph_destroy, nativeGraphDestroy, "cuGraphDestroy", "hipGraphDestroy")                                \
    X(PICK, graph_instantiate, nativeGraphInstantiate, "cuGraphInstantiateWithFlags", "hipGraphInstantiateWithFlags") \
    X(PICK, graph_exec_destroy, nativeGraphExecDestroy, "cuGraphExecDestroy", "hipGraphExecDestroy")               \
    X(PICK, graph_launch, nativeGraphLaunch, "cuGraphLaunch", "hipGraphLaunch")                                    \
    X(PICK, module_unload, nativeModuleUnload, "cuModuleUnload", "hipModuleUnload")                                \
    X(PICK, module_get_function, nativeModuleGetFunction, "cuModuleGetFunction", "hipModuleGetFunction")           \
    X(PICK, module_get_global, nativeModuleGetGlobal, "cuModuleGetGlobal_v2", "hipModuleGetGlobal")                \
    X(PICK, function_get_attribute, nativeFunctionGetAttribute, "cuFuncGetAttribute", "hipFuncGetAttribute")       \
    X(PICK, device_get_attribute, nativeDeviceGetAttribute, "cuDeviceGetAttribute", "hipDeviceGetAttribute")       \
    X(PICK, launch_kernel, nativeLaunchKernel, "cuLaunchKernel", "hipModuleLaunchKernel")                          \
    X(PICK, can_access_peer, nativeCanAccessPeer, "cuDeviceCanAccessPeer", "hipDeviceCanAccessPeer")               \
    X(PICK, peer_attribute, nativePeerAttribute, "cuDeviceGetP2PAttribute", "hipDeviceGetP2PAttribute")            \
    X(PICK, enable_peer_access, nativeEnablePeerAccess, "cuCtxEnablePeerAccess", "hipDeviceEnablePeerAccess")      \
    X(PICK, disable_peer_access, nativeDisablePeerAccess, "cuCtxDisablePeerAccess", "hipDeviceDisablePeerAccess")  \
    X(PICK, memcpy_peer_async, nativeMemcpyPeerAsync, "cuMemcpyPeerAsync", "hipMemcpyPeerAsync")                  \
    X(PICK, host_register, nativeHostRegister, "cuMemHostRegister_v2", "hipHostRegister")                         \
    X(PICK, host_unregister, nativeHostUnregister, "cuMemHostUnregister", "hipHostUnregister")                    \
    X(PICK, mem_granularity, nativeMemGranularity, "cuMemGetAllocationGranularity", "hipMemGetAllocationGranularity") \
    X(PICK, mem_address_reserve, nativeMemAddressReserve, "cuMemAddressReserve", "hipMemAddressReserve")          \
    X(PICK, mem_address_free, nativeMemAddressFree, "cuMemAddressFree", "hipMemAddressFree")                      \
    X(PICK, mem_create, nativeMemCreate, "cuMemCreate", "hipMemCreate")                                           \
    X(PICK, mem_release, nativeMemRelease, "cuMemRelease", "hipMemRelease")                                       \
    X(PICK, mem_export, nativeMemExport, "cuMemExportToShareableHandle", "hipMemExportToShareableHandle")         \
    X(PICK, mem_import, nativeMemImport, "cuMemImportFromShareableHandle", "hipMemImportFromShareableHandle")     \
    X(PICK, mem_map, nativeMemMap, "cuMemMap", "hipMemMap")                                                       \
    X(PICK, mem_unmap, nativeMemUnmap, "cuMemUnmap", "hipMemUnmap")                                               \
    X(PICK, mem_set_access, nativeMemSetAccess, "cuMemSetAccess", "hipMemSetAccess")                              \
    X(PICK, ipc_get_mem_handle, nativeIpcGetMemHandle, "cuIpcGetMemHandle", "hipIpcGetMemHandle")                 \
    X(PICK, ipc_open_mem_handle, nativeIpcOpenMemHandle, "cuIpcOpenMemHandle_v2", "hipIpcOpenMemHandle")          \
    X(PICK, ipc_close_mem_handle, nativeIpcCloseMemHandle, "cuIpcCloseMemHandle", "hipIpcCloseMemHandle")         \
    X(PICK, ipc_get_event_handle, nativeIpcGetEventHandle, "cuIpcGetEventHandle", "hipIpcGetEventHandle")         \
    X(PICK, ipc_open_event_handle, nativeIpcOpenEventHandle, "cuIpcOpenEventHandle", "hipIpcOpenEventHandle")

/* X(PICK, field, converter, CUDA name): the optional native entries only CUDA has; HIP leaves them
 * empty, and gpu_common keeps the behaviour gpu_vendor.h gives an empty one. */
#define INFINIRT_GPU_CUDA_ONLY_ENTRIES(X, PICK)                                                                    \
    /* HIP 5.2 has no hipEventRecordWithFlags: a recording or a wait during capture keeps HIP's meaning. */        \
    X(PICK, event_record_in_capture, nativeEventRecordInCapture, "cuEventRecordWithFlags")                         \
    X(PICK, stream_wait_event_in_capture, nativeStreamWaitEventInCapture, "cuStreamWaitEvent")                     \
    X(PICK, stream_is_capturing, nativeStreamIsCapturing, "cuStreamIsCapturing")                                   \
    /* Limits and stream priorities: verified on CUDA only so far; HIP answers NOT_IMPLEMENTED and (0, 0). */        \
    X(PICK, get_limit, nativeGetLimit, "cuCtxGetLimit")                                                            \
    X(PICK, set_limit, nativeSetLimit, "cuCtxSetLimit")                                                            \
    X(PICK, stream_priority_range, nativeStreamPriorityRange, "cuCtxGetStreamPriorityRange")                      \
    X(PICK, stream_create_with_priority, nativeStreamCreateWithPriority, "cuStreamCreateWithPriority")            \
    /* HIP cannot list a module's kernels. */                                                                      \
    X(PICK, module_list_functions, nativeModuleListFunctions, "cuModuleEnumerateFunctions")                        \
    /* hipFuncSetAttribute takes runtime-API functions, not module ones, and AMD GPUs have no opt-in limit to      \
     * raise: the whole LDS is available, which gpu_common checks against. */                                      \
    X(PICK, function_set_attribute, nativeFunctionSetAttribute, "cuFuncSetAttribute")                              \
    /* HIP cannot tell a module function's parameter count: NUM_PARAMS is -1. */                                   \
    X(PICK, function_param_count, nativeFunctionParamCount, "cuFuncGetParamInfo")                                  \
    /* HIP 5.2 has no module-level cooperative or cluster launch: those answer NOT_IMPLEMENTED. */                 \
    X(PICK, launch_kernel_ex, nativeLaunchKernelEx, "cuLaunchKernelEx")

#define INFINIRT_GPU_SET_VALUE(PICK, field, cuda, hip) table.field = PICK(cuda, hip);
#define INFINIRT_GPU_SET_ENTRY(PICK, field, converter, cuda, hip) table.field = {converter, PICK(cuda, hip)};
#define INFINIRT_GPU_SET_CUDA_ONLY_ENTRY(PICK, field, converter, cuda)                                             \
    PICK(table.field.call = converter; table.field.name = cuda;, )

/* The vendor table of the vendor whose column PICK takes (an expression of type VendorApi). */
#define INFINIRT_GPU_VENDOR_TABLE(PICK)                                                                            \
    [] {                                                                                                           \
        ::infinirt::gpu::VendorApi table{};                                                                        \
        table.init = ::infinirt::common::guarded<init>;                                                            \
        table.get_device_count = ::infinirt::common::guarded<getDeviceCount>;                                      \
        table.get_device_properties = ::infinirt::common::guarded<getDeviceProperties>;                            \
        table.set_device = ::infinirt::common::guarded<setDevice>;                                                 \
        table.thread_state_save = ::infinirt::common::guarded<threadStateSave>;                                    \
        table.thread_state_restore = ::infinirt::common::guarded<threadStateRestore>;                              \
        table.set_device_saving = ::infinirt::common::guarded<setDeviceSaving>;                                    \
        table.device_get_native_context = ::infinirt::common::guarded<deviceGetNativeContext>;                     \
        table.module_load = ::infinirt::common::guarded<moduleLoad>;                                               \
        table.module_rank_image = ::infinirt::common::guarded<moduleRankImage>;                                   \
        table.error_name = errorName;                                                                              \
        table.to_status = toStatus;                                                                                \
        table.bind = bind;                                                                                         \
        table.unbind = unbind;                                                                                     \
        /* Both take the context of an explicit stream or event from the handle. */                                \
        table.handle_calls_need_binding = false;                                                                   \
        INFINIRT_GPU_VENDOR_VALUES(INFINIRT_GPU_SET_VALUE, PICK)                                                   \
        INFINIRT_GPU_VENDOR_ENTRIES(INFINIRT_GPU_SET_ENTRY, PICK)                                                  \
        INFINIRT_GPU_CUDA_ONLY_ENTRIES(INFINIRT_GPU_SET_CUDA_ONLY_ENTRY, PICK)                                     \
        return table;                                                                                              \
    }()

/* X(PICK, field, CUDA attribute, HIP attribute): the native device attributes properties read. */
#define INFINIRT_GPU_PROPERTY_ATTRIBUTES(X, PICK)                                                                  \
    X(PICK, compute_capability_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,                                \
      hipDeviceAttributeComputeCapabilityMajor)                                                                    \
    X(PICK, compute_capability_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,                                \
      hipDeviceAttributeComputeCapabilityMinor)                                                                    \
    X(PICK, multiprocessor_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, hipDeviceAttributeMultiprocessorCount) \
    X(PICK, clock_rate_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, hipDeviceAttributeClockRate)                           \
    X(PICK, memory_clock_rate_khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, hipDeviceAttributeMemoryClockRate)       \
    X(PICK, memory_bus_width_bits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, hipDeviceAttributeMemoryBusWidth)  \
    X(PICK, max_threads_per_block, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, hipDeviceAttributeMaxThreadsPerBlock) \
    X(PICK, max_block_dim[0], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, hipDeviceAttributeMaxBlockDimX)                 \
    X(PICK, max_block_dim[1], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, hipDeviceAttributeMaxBlockDimY)                 \
    X(PICK, max_block_dim[2], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, hipDeviceAttributeMaxBlockDimZ)                 \
    X(PICK, max_grid_dim[0], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, hipDeviceAttributeMaxGridDimX)                    \
    X(PICK, max_grid_dim[1], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, hipDeviceAttributeMaxGridDimY)                    \
    X(PICK, max_grid_dim[2], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, hipDeviceAttributeMaxGridDimZ)                    \
    X(PICK, cache_bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, hipDeviceAttributeL2CacheSize)                         \
    X(PICK, shared_memory_per_block, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,                              \
      hipDeviceAttributeMaxSharedMemoryPerBlock)

#define INFINIRT_GPU_SET_ATTRIBUTE(PICK, field, cuda, hip) source.attributes.field = PICK(cuda, hip);

/* The device-property source of the vendor whose column PICK takes (an expression of type
 * DevicePropertySource). */
#define INFINIRT_GPU_PROPERTY_SOURCE(PICK)                                                                         \
    [] {                                                                                                           \
        ::infinirt::gpu::DevicePropertySource source{};                                                            \
        source.vendor = PICK("NVIDIA", "AMD");                                                                     \
        source.platform = PICK("CUDA driver API", "HIP runtime");                                                  \
        source.device_name = {nativeDeviceName, PICK("cuDeviceGetName", "hipDeviceGetName")};                     \
        source.total_memory = {nativeDeviceTotalMemory, PICK("cuDeviceTotalMem_v2", "hipDeviceTotalMem")};         \
        source.uuid = nativeDeviceUuid;                                                                            \
        source.pci_bus_id = nativeDevicePciBusId;                                                                  \
        INFINIRT_GPU_PROPERTY_ATTRIBUTES(INFINIRT_GPU_SET_ATTRIBUTE, PICK)                                         \
        return source;                                                                                             \
    }()

/* Declares, in the vendor's namespace, every converter the rows name, with its field's type (a
 * vendor without a CUDA-only entry declares it and never defines it). */
#define INFINIRT_GPU_DECLARE_CONVERTER(PICK, field, converter, ...)                                               \
    std::remove_pointer_t<decltype(std::declval<::infinirt::gpu::VendorApi &>().field.call)> converter;
#define INFINIRT_GPU_DECLARE_CONVERTERS()                                                                          \
    INFINIRT_GPU_VENDOR_ENTRIES(INFINIRT_GPU_DECLARE_CONVERTER, ~)                                                 \
    INFINIRT_GPU_CUDA_ONLY_ENTRIES(INFINIRT_GPU_DECLARE_CONVERTER, ~) static_assert(true, "")

#endif
