// opencl_memory.h - device memory (coarse-grained SVM, so pointers support arithmetic), host
// memory, copies and fills.
#pragma once

#include <CL/cl.h>

#include "infinirt.h"

namespace infinirt::opencl {

// clSVMAlloc on the device's context. NULL from the driver (including a size above
// CL_DEVICE_MAX_MEM_ALLOC_SIZE) is OUT_OF_MEMORY with the figures.
infiniStatus_t mallocDevice(int device, void **ptr, size_t size);
// Waits for the device's streams (as cudaFree does: clSVMFree does not wait for commands that
// still use the memory), then clSVMFree. BAD_PARAM for a pointer this plugin did not allocate.
infiniStatus_t freeDevice(int device, void *ptr);
// Pinned host memory: a CL_MEM_ALLOC_HOST_PTR buffer mapped for good (what OpenCL vendors
// recommend for fast transfers), or page-aligned host memory where the implementation refuses
// one or INFINIRT_OPENCL_PINNED=0. Either way a plain host pointer: every SVM copy accepts it
// and the host may touch it at any time (coarse-grained SVM would need map/unmap around every
// host access).
infiniStatus_t mallocHost(int device, void **ptr, size_t size);
// Waits for the device's streams (asynchronous copies may still read it), then unmaps and
// releases the buffer (or frees the memory).
infiniStatus_t freeHost(int device, void *ptr);

// clEnqueueSVMMemcpy on the default stream (blocking) or the given stream (non-blocking). It
// takes SVM and host pointers alike, so every kind is the same call; a copy between two
// devices' memory (two contexts) is staged through the host.
infiniStatus_t memcpySync(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind);
infiniStatus_t memcpyAsync(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind,
                           void *stream);
// clEnqueueSVMMemFill with a 1-byte pattern. `ptr` .. `ptr + count` must lie in device memory
// of `device` (BAD_PARAM otherwise).
infiniStatus_t memsetSync(int device, void *ptr, int value, size_t count);
infiniStatus_t memsetAsync(int device, void *ptr, int value, size_t count, void *stream);
// The allocation is immediate (clSVMAlloc has no stream), so later work on `stream` may use it.
infiniStatus_t mallocAsync(int device, void **ptr, size_t size, void *stream);
// clEnqueueSVMFree: the queue frees the memory once its earlier commands have run.
infiniStatus_t freeAsync(int device, void *ptr, void *stream);

} // namespace infinirt::opencl
