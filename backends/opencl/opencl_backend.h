// opencl_backend.h - private declarations shared by the files of the opencl backend: the error
// table's helpers and the plugin entries. Nothing here crosses the plugin boundary: the loader sees
// only the table built in opencl_plugin.cpp. The backend's objects have a header each:
// opencl_device.h, opencl_stream.h, opencl_event.h, opencl_module.h.
//
// Devices, contexts and default streams are created once and never released: the plugin may be
// called until the process exits, and driver objects must not be released from static destructors.
#pragma once

#include <CL/cl.h>

#include "infinirt_plugin.h"

#include "common/entry_guard.hpp"
#include "common/host_services.hpp"

namespace infinirt::opencl {

// ---- errors (opencl_errors.cpp) --------------------------------------------------------------

// "CL_OUT_OF_RESOURCES" etc.; "CL_UNKNOWN_ERROR" for a code not in the table. Static storage.
const char *nativeErrorName(cl_int code) noexcept;

// The status an OpenCL code stands for; DRIVER_ERROR for codes no other status describes and
// for codes not in the table. CL_SUCCESS gives SUCCESS.
infiniStatus_t nativeStatus(cl_int code) noexcept;

// For a failed OpenCL call: sets the thread's error detail (common::fail) to
// "<call> failed: <CL_NAME> (<code>) <what>" and returns the status the error table gives `code`.
infiniStatus_t nativeFailure(const char *call, cl_int code, const char *what_format, ...) noexcept
    __attribute__((format(printf, 3, 4)));

// ---- devices (opencl_device.cpp) -------------------------------------------------------------

// Discovers the devices; never fails (a missing library or platform gives 0 devices).
infinirtPluginInitFn init;
// The number of usable devices; when 0, `reason` says why.
infinirtPluginGetDeviceCountFn getDeviceCount;
infinirtPluginGetDevicePropertiesFn getDeviceProperties;
// free is the AMD free-memory figure where available, else total minus what infinirt holds.
infinirtPluginGetMemInfoFn getMemInfo;
// Waits for the default stream and every live stream of the device.
infinirtPluginDeviceSynchronizeFn deviceSynchronize;
infinirtPluginDeviceGetNativeContextFn deviceGetNativeContext;

// ---- streams (opencl_stream.cpp) -------------------------------------------------------------

infinirtPluginStreamCreateFn streamCreate;
infinirtPluginStreamDestroyFn streamDestroy;
infinirtPluginStreamSynchronizeFn streamSynchronize;
// SUCCESS when every command enqueued so far has completed, NOT_READY otherwise.
infinirtPluginStreamQueryFn streamQuery;
// A barrier on the stream's queue waiting for the event's marker; across contexts (another
// device) a user event completed by a callback on the marker stands in for it.
infinirtPluginStreamWaitEventFn streamWaitEvent;
infinirtPluginStreamGetNativeFn streamGetNative;

// ---- events (opencl_event.cpp) ---------------------------------------------------------------

// Creates the completed user event that stands for "never recorded".
infinirtPluginEventCreateFn eventCreate;
infinirtPluginEventDestroyFn eventDestroy;
// Enqueues a marker (it completes when all earlier work of the stream has) and flushes.
infinirtPluginEventRecordFn eventRecord;
infinirtPluginEventQueryFn eventQuery;
infinirtPluginEventSynchronizeFn eventSynchronize;
// From the CL_PROFILING_COMMAND_END of both recorded commands.
infinirtPluginEventElapsedTimeFn eventElapsedTime;
// The cl_event of the last record (valid until the next record or destroy); before the first
// record, a completed user event.
infinirtPluginEventGetNativeFn eventGetNative;

// ---- memory (opencl_memory.cpp): device memory (coarse-grained SVM, so pointers support
// arithmetic), host memory, copies and fills ---------------------------------------------------

// clSVMAlloc on the device's context. NULL from the driver (including a size above
// CL_DEVICE_MAX_MEM_ALLOC_SIZE) is OUT_OF_MEMORY with the figures.
infinirtPluginMallocDeviceFn mallocDevice;
// Waits for the device's streams (as cudaFree does: clSVMFree does not wait for commands that
// still use the memory), then clSVMFree. BAD_PARAM for a pointer this plugin did not allocate.
infinirtPluginFreeDeviceFn freeDevice;
// Pinned host memory: a CL_MEM_ALLOC_HOST_PTR buffer mapped for good (what OpenCL vendors
// recommend for fast transfers), or page-aligned host memory where the implementation refuses
// one or INFINIRT_OPENCL_PINNED=0. Either way a plain host pointer: every SVM copy accepts it
// and the host may touch it at any time (coarse-grained SVM would need map/unmap around every
// host access).
infinirtPluginMallocHostFn mallocHost;
// Waits for the device's streams (asynchronous copies may still read it), then unmaps and
// releases the buffer (or frees the memory).
infinirtPluginFreeHostFn freeHost;
// clEnqueueSVMMemcpy on the default stream (blocking) or the given stream (non-blocking). It
// takes SVM and host pointers alike, so every kind is the same call; a copy between two
// devices' memory (two contexts) is staged through the host.
infinirtPluginMemcpySyncFn memcpySync;
infinirtPluginMemcpyAsyncFn memcpyAsync;
// clEnqueueSVMMemFill with a 1-byte pattern. `ptr` .. `ptr + count` must lie in device memory
// of `device` (BAD_PARAM otherwise).
infinirtPluginMemsetSyncFn memsetSync;
infinirtPluginMemsetAsyncFn memsetAsync;
// The allocation is immediate (clSVMAlloc has no stream), so later work on `stream` may use it.
infinirtPluginMallocAsyncFn mallocAsync;
// clEnqueueSVMFree: the queue frees the memory once its earlier commands have run.
infinirtPluginFreeAsyncFn freeAsync;

// ---- modules and kernels (opencl_module.cpp, opencl_launch.cpp) -----------------------------

// OPENCL_C (clCreateProgramWithSource + clBuildProgram; count > 1: each source or SPIR-V image
// clCompileProgram'd with its options, then clLinkProgram'd), SPIRV (clCreateProgramWithIL where
// the device reports IL versions; NOT_IMPLEMENTED naming them otherwise) and DEVICE_BINARY
// (clCreateProgramWithBinary + clBuildProgram, one image only). OpenCL C builds whose options
// name no -cl-std get CodeTraits::std_option, and all get -cl-kernel-arg-info (without it no
// implementation need say what a parameter takes; see Kernel::params). Where a build with
// -cl-kernel-arg-info fails, the module is built once more without it (NVIDIA's compiler fails on
// a kernel without parameters with it): the module then loads, its log says so, a warning is
// logged, and launches of its kernels do not check argument kinds. A failed build, compile or
// link: BUILD_FAILED with the first lines of CL_PROGRAM_BUILD_LOG; the whole log goes to `log`
// either way.
infinirtPluginModuleLoadFn moduleLoad;
// Releases the kernels and the program: commands already enqueued keep them alive (OpenCL
// reference counting), so nothing waits.
infinirtPluginModuleUnloadFn moduleUnload;
// clCreateKernel, once per name; an unknown name is SYMBOL_NOT_FOUND listing
// CL_PROGRAM_KERNEL_NAMES.
infinirtPluginModuleGetKernelFn moduleGetKernel;
// Through clGetDeviceGlobalVariablePointerINTEL where the device has
// cl_intel_global_variable_pointers; NOT_IMPLEMENTED elsewhere (OpenCL gives program-scope
// variables no host-visible address: pass a buffer argument instead).
infinirtPluginModuleGetGlobalFn moduleGetGlobal;
// From clGetKernelInfo/clGetKernelWorkGroupInfo: MAX_THREADS_PER_BLOCK = CL_KERNEL_WORK_GROUP_SIZE,
// STATIC_SHARED_BYTES = CL_KERNEL_LOCAL_MEM_SIZE, PRIVATE_BYTES_PER_THREAD =
// CL_KERNEL_PRIVATE_MEM_SIZE, NUM_REGISTERS -1, PREFERRED_BLOCK_MULTIPLE =
// CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, MAX_DYNAMIC_SHARED_BYTES (local memory for LOCAL
// arguments) = the device's local memory less the static, NUM_PARAMS = CL_KERNEL_NUM_ARGS.
infinirtPluginKernelGetAttributeFn kernelGetAttribute;
// MAX_DYNAMIC_SHARED_BYTES, at most the device's local memory less the kernel's static local
// memory (BAD_PARAM with the figures above it).
infinirtPluginKernelSetAttributeFn kernelSetAttribute;

// Each argument's kind must fit its parameter where Kernel::params knows it (BAD_PARAM naming
// both otherwise); then clSetKernelArg (VALUE: the bytes; LOCAL: size with NULL), clSetKernelArgSVMPointer (POINTER;
// a NULL pointer is set as a NULL buffer), then clEnqueueNDRangeKernel with global = grid x block
// and local = block, in as few dimensions as cover the sizes above 1, on the stream's in-order
// queue (numbered like every command of the stream; flushed where CodeTraits::flush_launches
// says so), under Kernel::launch_mutex.
// dynamic_shared_bytes has no meaning for an OpenCL kernel (local memory reaches it only as
// LOCAL arguments) and is ignored. COOPERATIVE and a non-zero cluster are NOT_IMPLEMENTED; a block over
// the device's per-dimension work-item limits is BAD_PARAM with the figures.
infinirtPluginLaunchKernelFn launchKernel;

// ---- peers (opencl_peer.cpp) -----------------------------------------------------------------
// No device can access another's memory (one context per device; SVM is per context): access 0,
// every attribute 0, enabling refused with BAD_PARAM. memcpy_peer_async and
// stream_wait_peer_event are left NULL: the loader stages copies and waits on the host.
infinirtPluginDeviceCanAccessPeerFn deviceCanAccessPeer;
infinirtPluginDeviceGetPeerAttributeFn deviceGetPeerAttribute;
infinirtPluginDeviceEnablePeerAccessFn deviceEnablePeerAccess;
infinirtPluginDeviceDisablePeerAccessFn deviceDisablePeerAccess;

} // namespace infinirt::opencl

// The hot entries' guards live beside their definitions (common/entry_guard.hpp).
INFINIRT_COMMON_HOT_ENTRY(infinirt::opencl::launchKernel);
INFINIRT_COMMON_HOT_ENTRY(infinirt::opencl::memcpyAsync);
INFINIRT_COMMON_HOT_ENTRY(infinirt::opencl::memsetAsync);
INFINIRT_COMMON_HOT_ENTRY(infinirt::opencl::eventRecord);
INFINIRT_COMMON_HOT_ENTRY(infinirt::opencl::eventQuery);
INFINIRT_COMMON_HOT_ENTRY(infinirt::opencl::streamQuery);
INFINIRT_COMMON_HOT_ENTRY(infinirt::opencl::streamWaitEvent);
