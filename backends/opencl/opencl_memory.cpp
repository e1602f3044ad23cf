// opencl_memory.cpp - device memory (coarse-grained SVM), pinned host memory, copies and fills,
// with the map of live allocations that checks frees and finds interior pointers.
#include "opencl_backend.h"
#include "opencl_device.h"
#include "opencl_stream.h"

#include "opencl_native_api.h"

#include "common/text.hpp"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <thread>
#include <unistd.h>
#include <vector>

namespace infinirt::opencl {
namespace {

struct Allocation {
    int device;
    size_t size;
    bool host;              // mallocHost memory; device memory otherwise
    cl_mem buffer = nullptr; // the mapped CL_MEM_ALLOC_HOST_PTR buffer behind pinned host memory
};

struct Found {
    const unsigned char *base;
    Allocation allocation;
};

// Every live allocation of this plugin by base address, so that interior pointers find their
// allocation (memset bounds, cross-device copies) and frees are checked. Leaked on purpose, like
// the devices: frees may come until the process exits.
class AllocationMap {
  public:
    void insert(const void *base, Allocation allocation) {
        std::unique_lock<std::shared_mutex> lock(mutex_);
        map_[reinterpret_cast<uintptr_t>(base)] = allocation;
    }
    // Removes the allocation starting exactly at `base`; false if there is none.
    bool erase(const void *base, Allocation *removed) {
        std::unique_lock<std::shared_mutex> lock(mutex_);
        auto it = map_.find(reinterpret_cast<uintptr_t>(base));
        if (it == map_.end()) {
            return false;
        }
        *removed = it->second;
        map_.erase(it);
        return true;
    }
    // The allocation holding `ptr` (interior pointers included); false if none does.
    bool find(const void *ptr, Found *found) const {
        const uintptr_t address = reinterpret_cast<uintptr_t>(ptr);
        std::shared_lock<std::shared_mutex> lock(mutex_);
        auto it = map_.upper_bound(address);
        if (it == map_.begin()) {
            return false;
        }
        --it;
        if (address - it->first >= it->second.size) {
            return false;
        }
        found->base = reinterpret_cast<const unsigned char *>(it->first);
        found->allocation = it->second;
        return true;
    }

  private:
    mutable std::shared_mutex mutex_;
    std::map<uintptr_t, Allocation> map_;
};

AllocationMap &allocations() {
    static AllocationMap *map = new AllocationMap;
    return *map;
}

// The device whose memory holds `ptr`, or -1 for host or unknown memory.
int deviceOwning(const void *ptr) {
    Found found{};
    return allocations().find(ptr, &found) && !found.allocation.host ? found.allocation.device : -1;
}

// SVM allocation and release are serialised, and a NULL from clSVMAlloc is retried a few times
// after the device's queued frees have run: NVIDIA's implementation (seen on an H200) returns
// NULL now and then for small allocations while other threads are busy on the same context,
// with plenty of memory free. Neither is a hot path.
std::mutex &svmMutex() {
    static std::mutex *m = new std::mutex();
    return *m;
}

// Memory given back by freeAsync, released with clSVMFree under svmMutex once the marker enqueued
// after the stream's earlier commands has ended. clEnqueueSVMFree is not used: the implementation
// would run that free on a thread of its own, unserialised with clSVMAlloc (NVIDIA's crashed in
// clEnqueueSVMMemcpy, failed commands with CL_INVALID_KERNEL_ARGS and returned addresses of live
// memory from clSVMAlloc with 16 threads freeing asynchronously).
struct PendingFree {
    int device;
    void *ptr;
    cl_event marker;
};

std::vector<PendingFree> &pendingFrees() { // guarded by svmMutex
    static std::vector<PendingFree> *pending = new std::vector<PendingFree>();
    return *pending;
}

// Under svmMutex: clSVMFree of every pending free whose marker has completed or terminated (an
// ended marker means no earlier command of its stream still runs). One whose status cannot be
// read is kept.
void releaseEndedFreesLocked() {
    std::vector<PendingFree> &pending = pendingFrees();
    size_t kept = 0;
    for (const PendingFree &p : pending) {
        cl_int status = CL_QUEUED;
        if (nativeApi().clGetEventInfo(p.marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                                       nullptr) != CL_SUCCESS ||
            status > CL_COMPLETE) {
            pending[kept++] = p;
            continue;
        }
        nativeApi().clSVMFree(infinirt::opencl::device(p.device).context, p.ptr);
        nativeApi().clReleaseEvent(p.marker);
    }
    pending.resize(kept);
}

// True when [p, p + size) overlaps an allocation this plugin holds.
bool overlapsLive(const void *p, size_t size) {
    Found found{};
    const unsigned char *first = static_cast<const unsigned char *>(p);
    return allocations().find(first, &found) || allocations().find(first + size - 1, &found);
}

// Allocations are recorded before their memory is released (frees erase first), so under the
// mutex an address clSVMAlloc returns is never one of ours. One that is would alias memory in use:
// it is kept aside, never used or freed (freeing it would free the live one), and the allocation
// is retried; the first is logged.
void *svmAllocLocked(Device &dev, size_t size) {
    std::lock_guard<std::mutex> lock(svmMutex());
    releaseEndedFreesLocked();
    static std::vector<void *> *aliased = new std::vector<void *>();
    for (int attempt = 0; attempt < 8; ++attempt) {
        void *p = nativeApi().clSVMAlloc(dev.context, CL_MEM_READ_WRITE, size, 0);
        if (!p || !overlapsLive(p, size)) {
            return p;
        }
        if (aliased->empty()) {
            common::logMessage(INFINIRT_LOG_WARN,
                               "opencl:%d (\"%s\"): clSVMAlloc of %s returned %p, inside memory already allocated "
                               "and not freed; the address is set aside and the allocation retried",
                               dev.index, dev.name.c_str(), common::formatBytes(size).c_str(), p);
        }
        aliased->push_back(p);
    }
    return nullptr;
}

infiniStatus_t svmAlloc(int device, void **ptr, size_t size) {
    Device &dev = infinirt::opencl::device(device);
    // Checked against what the device reports, not left to the implementation: PoCL overcommits
    // (an allocation four times its CL_DEVICE_GLOBAL_MEM_SIZE succeeded, and first touch would
    // fail). The size is reserved in `allocated` first, so that threads allocating together
    // cannot pass the check together.
    const size_t held = dev.allocated.fetch_add(size, std::memory_order_relaxed);
    if (size > dev.max_alloc || size > dev.global_mem || held > dev.global_mem - size) {
        dev.allocated.fetch_sub(size, std::memory_order_relaxed);
        return common::fail(INFINI_STATUS_OUT_OF_MEMORY,
                            "cannot allocate %s on opencl:%d (\"%s\"): the device has %s of memory "
                            "(%s), largest single allocation %s (CL_DEVICE_MAX_MEM_ALLOC_SIZE), "
                            "and infinirt holds %s of it",
                            common::formatBytes(size).c_str(), device, dev.name.c_str(),
                            common::formatBytes(dev.global_mem).c_str(), dev.memory_source,
                            common::formatBytes(dev.max_alloc).c_str(),
                            common::formatBytes(held).c_str());
    }
    void *p = svmAllocLocked(dev, size);
    for (int attempt = 0; !p && attempt < 6; ++attempt) {
        if (deviceSynchronize(device) != INFINI_STATUS_SUCCESS) {
            break;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(20 << attempt));
        p = svmAllocLocked(dev, size);
    }
    if (!p) {
        dev.allocated.fetch_sub(size, std::memory_order_relaxed);
        return common::fail(INFINI_STATUS_OUT_OF_MEMORY,
                            "clSVMAlloc returned NULL allocating %s on opencl:%d (largest single allocation %s, %s "
                            "of %s held by infinirt)",
                            common::formatBytes(size).c_str(), device, common::formatBytes(dev.max_alloc).c_str(),
                            common::formatBytes(held).c_str(), common::formatBytes(dev.global_mem).c_str());
    }
    try {
        allocations().insert(p, Allocation{device, size, false});
    } catch (...) {
        dev.allocated.fetch_sub(size, std::memory_order_relaxed);
        std::lock_guard<std::mutex> lock(svmMutex());
        nativeApi().clSVMFree(dev.context, p);
        throw;
    }
    *ptr = p;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t notOurs(const char *what, const void *ptr, int device) {
    return common::fail(INFINI_STATUS_BAD_PARAM, "%s of %p, which is not an allocation of opencl:%d", what, ptr,
                        device);
}

// The queue that runs a copy touching `owner`'s memory: the caller's stream on its own device,
// the owner's default stream elsewhere.
infiniStatus_t queueFor(int owner, int device, Stream *stream, Stream **out) {
    if (owner < 0 || owner == device) {
        *out = stream;
        return INFINI_STATUS_SUCCESS;
    }
    return defaultStream(owner, out);
}

// A copy that is complete on return: enqueued without blocking (so the submit lock is not held
// while it runs), then waited for.
infiniStatus_t syncCopy(Stream &stream, void *dst, const void *src, size_t size) {
    cl_event done = nullptr;
    uint64_t number = 0;
    cl_int err = submit(
        stream, [&] { return nativeApi().clEnqueueSVMMemcpy(stream.queue, CL_FALSE, dst, src, size, 0, nullptr, &done); },
        &number);
    if (err != CL_SUCCESS) {
        return nativeFailure("clEnqueueSVMMemcpy", err, "copying %s on opencl:%d", common::formatBytes(size).c_str(),
                             stream.device);
    }
    return waitCommand(stream, done, number, "clEnqueueSVMMemcpy");
}

// A copy between memory of two contexts: no OpenCL command can see both, so the bytes go through
// the host, after everything earlier on `stream`. Blocking, so stream order holds trivially.
infiniStatus_t stagedCopy(int device, void *dst, const void *src, size_t size, Stream *stream, int dst_owner,
                          int src_owner) {
    infiniStatus_t status = finishStream(*stream, "before a copy between devices");
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    std::vector<unsigned char> bounce(size);
    Stream *reader = nullptr, *writer = nullptr;
    status = queueFor(src_owner, device, stream, &reader);
    if (status == INFINI_STATUS_SUCCESS) {
        status = queueFor(dst_owner, device, stream, &writer);
    }
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    status = syncCopy(*reader, bounce.data(), src, size);
    if (status == INFINI_STATUS_SUCCESS) {
        status = syncCopy(*writer, dst, bounce.data(), size);
    }
    return status;
}

infiniStatus_t copy(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind, Stream *stream,
                    bool blocking) {
    if (kind == INFINIRT_MEMCPY_D2D || kind == INFINIRT_MEMCPY_DEFAULT) {
        const int dst_owner = deviceOwning(dst);
        const int src_owner = deviceOwning(src);
        if ((dst_owner >= 0 && dst_owner != device) || (src_owner >= 0 && src_owner != device)) {
            return stagedCopy(device, dst, src, size, stream, dst_owner, src_owner);
        }
    }
    if (kind == INFINIRT_MEMCPY_H2H && blocking) {
        // Ordered after the default stream's work like every synchronous copy, then done by the
        // CPU: no command is needed to move host bytes.
        infiniStatus_t status = finishStream(*stream, "before a host-to-host copy");
        if (status == INFINI_STATUS_SUCCESS) {
            std::memmove(dst, src, size);
        }
        return status;
    }
    if (blocking) {
        return syncCopy(*stream, dst, src, size);
    }
    uint64_t number = 0;
    cl_int err = submit(
        *stream,
        [&] { return nativeApi().clEnqueueSVMMemcpy(stream->queue, CL_FALSE, dst, src, size, 0, nullptr, nullptr); },
        &number);
    if (err != CL_SUCCESS) {
        return nativeFailure("clEnqueueSVMMemcpy", err, "copying %s on opencl:%d", common::formatBytes(size).c_str(),
                             device);
    }
    return flushStream(*stream, "clEnqueueSVMMemcpy");
}

infiniStatus_t fill(int device, void *ptr, int value, size_t count, Stream *stream, bool blocking) {
    Found found{};
    if (!allocations().find(ptr, &found) || found.allocation.host || found.allocation.device != device) {
        return notOurs("memset", ptr, device);
    }
    const size_t offset = static_cast<size_t>(static_cast<const unsigned char *>(ptr) - found.base);
    if (count > found.allocation.size - offset) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "memset of %s runs past the end of its %s allocation on opencl:%d",
                            common::formatBytes(count).c_str(), common::formatBytes(found.allocation.size).c_str(),
                            device);
    }
    const unsigned char pattern = static_cast<unsigned char>(value);
    cl_event done = nullptr;
    uint64_t number = 0;
    cl_int err = submit(
        *stream,
        [&] {
            return nativeApi().clEnqueueSVMMemFill(stream->queue, ptr, &pattern, 1, count, 0, nullptr,
                                             blocking ? &done : nullptr);
        },
        &number);
    if (err != CL_SUCCESS) {
        return nativeFailure("clEnqueueSVMMemFill", err, "setting %s on opencl:%d", common::formatBytes(count).c_str(),
                             device);
    }
    // Fills have no blocking flag.
    return blocking ? waitCommand(*stream, done, number, "clEnqueueSVMMemFill")
                    : flushStream(*stream, "clEnqueueSVMMemFill");
}

bool pinnedHostEnabled() {
    static const bool enabled = [] {
        const char *env = std::getenv("INFINIRT_OPENCL_PINNED");
        return !(env && std::strcmp(env, "0") == 0);
    }();
    return enabled;
}

// Pinned host memory the OpenCL way: a CL_MEM_ALLOC_HOST_PTR buffer, mapped once and for good
// (NVIDIA backs it with page-locked memory; copies from it then run at DMA speed). *host stays
// NULL, with SUCCESS, where the implementation will not give one (e.g. above
// CL_DEVICE_MAX_MEM_ALLOC_SIZE): the caller falls back to ordinary host memory.
infiniStatus_t pinnedBuffer(int device, size_t size, cl_mem *buffer, void **host) {
    *buffer = nullptr;
    *host = nullptr;
    if (!pinnedHostEnabled()) {
        return INFINI_STATUS_SUCCESS;
    }
    Stream *unused = nullptr;
    infiniStatus_t status = defaultStream(device, &unused); // creates the service queue
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    Device &dev = infinirt::opencl::device(device);
    cl_int err = CL_SUCCESS;
    // Serialised with SVM allocation and release (svmMutex), as every allocation and release of
    // memory objects here: NVIDIA's implementation has handed out addresses of live memory with
    // 16 threads allocating at once (svmAllocLocked).
    std::lock_guard<std::mutex> lock(svmMutex());
    cl_mem created = nativeApi().clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, size, nullptr, &err);
    if (!created) {
        common::logMessage(
            INFINIRT_LOG_DEBUG,
            "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR) of %s on opencl:%d failed, using unpinned host memory",
            common::formatBytes(size).c_str(), device);
        return INFINI_STATUS_SUCCESS;
    }
    void *mapped = nativeApi().clEnqueueMapBuffer(dev.service_queue, created, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, size,
                                            0, nullptr, nullptr, &err);
    if (!mapped) {
        nativeApi().clReleaseMemObject(created);
        common::logMessage(INFINIRT_LOG_DEBUG,
                           "clEnqueueMapBuffer of %s on opencl:%d failed, using unpinned host memory",
                           common::formatBytes(size).c_str(), device);
        return INFINI_STATUS_SUCCESS;
    }
    *buffer = created;
    *host = mapped;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t releaseHost(int device, void *host, cl_mem buffer) {
    if (!buffer) {
        std::free(host);
        return INFINI_STATUS_SUCCESS;
    }
    const Device &dev = infinirt::opencl::device(device);
    std::lock_guard<std::mutex> lock(svmMutex()); // as pinnedBuffer
    cl_int err = nativeApi().clEnqueueUnmapMemObject(dev.service_queue, buffer, host, 0, nullptr, nullptr);
    if (err == CL_SUCCESS) {
        err = nativeApi().clFinish(dev.service_queue);
    }
    nativeApi().clReleaseMemObject(buffer);
    if (err != CL_SUCCESS) {
        return nativeFailure("clEnqueueUnmapMemObject", err, "freeing pinned host memory of opencl:%d", device);
    }
    return INFINI_STATUS_SUCCESS;
}

} // namespace

void *svmAllocScratch(Device &dev, size_t size) {
    std::lock_guard<std::mutex> lock(svmMutex());
    return nativeApi().clSVMAlloc(dev.context, CL_MEM_READ_WRITE, size, 0);
}

void svmFreeScratch(Device &dev, void *p) {
    std::lock_guard<std::mutex> lock(svmMutex());
    nativeApi().clSVMFree(dev.context, p);
}

// clSVMAlloc on the device's context. NULL from the driver (including a size above
// CL_DEVICE_MAX_MEM_ALLOC_SIZE) is OUT_OF_MEMORY with the figures.
infiniStatus_t mallocDevice(int device, void **ptr, size_t size) { return svmAlloc(device, ptr, size); }

// Waits for the device's streams (as cudaFree does: clSVMFree does not wait for commands that
// still use the memory), then clSVMFree. BAD_PARAM for a pointer this plugin did not allocate.
infiniStatus_t freeDevice(int device, void *ptr) {
    Found found{};
    if (!allocations().find(ptr, &found) || found.base != ptr || found.allocation.host ||
        found.allocation.device != device) {
        return notOurs("free", ptr, device);
    }
    infiniStatus_t status = deviceSynchronize(device);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    Allocation removed{};
    if (!allocations().erase(ptr, &removed)) {
        return notOurs("free", ptr, device); // freed by another thread meanwhile
    }
    Device &dev = infinirt::opencl::device(device);
    {
        std::lock_guard<std::mutex> lock(svmMutex());
        releaseEndedFreesLocked();
        nativeApi().clSVMFree(dev.context, ptr);
    }
    dev.allocated.fetch_sub(removed.size, std::memory_order_relaxed);
    return INFINI_STATUS_SUCCESS;
}

// Pinned host memory: a CL_MEM_ALLOC_HOST_PTR buffer mapped for good (what OpenCL vendors
// recommend for fast transfers), or page-aligned host memory where the implementation refuses
// one or INFINIRT_OPENCL_PINNED=0. Either way a plain host pointer: every SVM copy accepts it
// and the host may touch it at any time (coarse-grained SVM would need map/unmap around every
// host access).
infiniStatus_t mallocHost(int device, void **ptr, size_t size) {
    // Overcommit would let a request beyond physical memory "succeed" and fail on first touch.
    static const size_t physical =
        static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<size_t>(sysconf(_SC_PAGESIZE));
    if (size > physical) {
        return common::fail(INFINI_STATUS_OUT_OF_MEMORY,
                            "cannot allocate %s of host memory for opencl:%d: the machine has %s",
                            common::formatBytes(size).c_str(), device, common::formatBytes(physical).c_str());
    }
    void *p = nullptr;
    cl_mem buffer = nullptr;
    infiniStatus_t status = pinnedBuffer(device, size, &buffer, &p);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    if (!p && (posix_memalign(&p, 4096, size) != 0 || !p)) {
        return common::fail(INFINI_STATUS_OUT_OF_MEMORY,
                            "posix_memalign failed allocating %s of host memory for opencl:%d",
                            common::formatBytes(size).c_str(), device);
    }
    try {
        allocations().insert(p, Allocation{device, size, true, buffer});
    } catch (...) {
        releaseHost(device, p, buffer);
        throw;
    }
    *ptr = p;
    return INFINI_STATUS_SUCCESS;
}

// Waits for the device's streams (asynchronous copies may still read it), then unmaps and
// releases the buffer (or frees the memory).
infiniStatus_t freeHost(int device, void *ptr) {
    Found found{};
    if (!allocations().find(ptr, &found) || found.base != ptr || !found.allocation.host) {
        return notOurs("free of host memory", ptr, device);
    }
    infiniStatus_t status = deviceSynchronize(found.allocation.device);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    Allocation removed{};
    if (!allocations().erase(ptr, &removed)) {
        return notOurs("free of host memory", ptr, device);
    }
    return releaseHost(removed.device, ptr, removed.buffer);
}

// clEnqueueSVMMemcpy on the default stream (blocking) or the given stream (non-blocking). It
// takes SVM and host pointers alike, so every kind is the same call; a copy between two
// devices' memory (two contexts) is staged through the host.
infiniStatus_t memcpySync(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind) {
    Stream *stream = nullptr;
    infiniStatus_t status = defaultStream(device, &stream);
    return status == INFINI_STATUS_SUCCESS ? copy(device, dst, src, size, kind, stream, true) : status;
}

infiniStatus_t memcpyAsync(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind,
                           void *stream_handle) {
    Stream *stream = nullptr;
    infiniStatus_t status = resolveStream(device, stream_handle, &stream);
    return status == INFINI_STATUS_SUCCESS ? copy(device, dst, src, size, kind, stream, false) : status;
}

// clEnqueueSVMMemFill with a 1-byte pattern. `ptr` .. `ptr + count` must lie in device memory
// of `device` (BAD_PARAM otherwise).
infiniStatus_t memsetSync(int device, void *ptr, int value, size_t count) {
    Stream *stream = nullptr;
    infiniStatus_t status = defaultStream(device, &stream);
    return status == INFINI_STATUS_SUCCESS ? fill(device, ptr, value, count, stream, true) : status;
}

infiniStatus_t memsetAsync(int device, void *ptr, int value, size_t count, void *stream_handle) {
    Stream *stream = nullptr;
    infiniStatus_t status = resolveStream(device, stream_handle, &stream);
    return status == INFINI_STATUS_SUCCESS ? fill(device, ptr, value, count, stream, false) : status;
}

// The allocation is immediate (clSVMAlloc has no stream), so later work on `stream` may use it.
infiniStatus_t mallocAsync(int device, void **ptr, size_t size, void *) { return svmAlloc(device, ptr, size); }

// A marker after the stream's earlier commands; the memory is released once it has ended
// (pendingFrees), at the next allocation or free of this plugin. It counts as free at once.
infiniStatus_t freeAsync(int device, void *ptr, void *stream_handle) {
    Stream *stream = nullptr;
    infiniStatus_t status = resolveStream(device, stream_handle, &stream);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    Found found{};
    if (!allocations().find(ptr, &found) || found.base != ptr || found.allocation.host ||
        found.allocation.device != device) {
        return notOurs("asynchronous free", ptr, device);
    }
    Allocation removed{};
    if (!allocations().erase(ptr, &removed)) {
        return notOurs("asynchronous free", ptr, device); // freed by another thread meanwhile
    }
    cl_event marker = nullptr;
    uint64_t number = 0;
    cl_int err = submit(
        *stream, [&] { return nativeApi().clEnqueueMarkerWithWaitList(stream->queue, 0, nullptr, &marker); }, &number);
    if (err != CL_SUCCESS) {
        allocations().insert(ptr, removed);
        return nativeFailure("clEnqueueMarkerWithWaitList", err, "freeing %s on opencl:%d",
                             common::formatBytes(removed.size).c_str(), device);
    }
    try {
        std::lock_guard<std::mutex> lock(svmMutex());
        pendingFrees().push_back(PendingFree{device, ptr, marker});
    } catch (const std::bad_alloc &) { // no room to defer it: the stream's earlier commands end first
        awaitEnded(marker);
        std::lock_guard<std::mutex> lock(svmMutex());
        nativeApi().clSVMFree(infinirt::opencl::device(device).context, ptr);
        nativeApi().clReleaseEvent(marker);
    }
    infinirt::opencl::device(device).allocated.fetch_sub(removed.size, std::memory_order_relaxed);
    return flushStream(*stream, "clEnqueueMarkerWithWaitList");
}

} // namespace infinirt::opencl

INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::opencl::memcpyAsync);
INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::opencl::memsetAsync);
