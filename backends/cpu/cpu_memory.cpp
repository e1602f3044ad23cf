// Memory: device and host blocks (their layout: cpu_memory.h); copies are memmove.
#include "cpu_backend.h"
#include "cpu_device.h"
#include "cpu_memory.h"
#include "cpu_stream.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

namespace infinirt::cpu {

namespace {

struct BlockHeader {
    size_t size;
    int device;
    bool counted; // its bytes are in deviceState(device).live_bytes
};
static_assert(sizeof(BlockHeader) <= kAlignment, "the header must fit in the padding before a block");

// Reserves `size` bytes of the device's INFINIRT_CPU_MEMORY_LIMIT budget. Lock-free so that
// concurrent allocations do not serialise.
bool reserve(Device &dev, size_t size, size_t limit) noexcept {
    size_t live = dev.live_bytes.load(std::memory_order_relaxed);
    do {
        if (size > limit - live) {
            return false;
        }
    } while (!dev.live_bytes.compare_exchange_weak(live, live + size, std::memory_order_relaxed));
    return true;
}

infiniStatus_t allocate(const char *entry, int device, size_t size, bool device_memory, void **ptr) {
    const Config &cfg = config();
    const bool counted = device_memory && cfg.memory_limit != 0;
    if (counted) {
        if (!reserve(deviceState(device), size, cfg.memory_limit)) {
            return outOfMemory(entry, device, size, budgetLeft(device), "INFINIRT_CPU_MEMORY_LIMIT is %s",
                               sizeText(cfg.memory_limit).c_str());
        }
    } else if (size > cfg.system_memory) {
        // Checked before malloc: with overcommit a huge request may "succeed" and fault later.
        return outOfMemory(entry, device, size, systemAvailableMemory(), "more than the %s of physical memory",
                           sizeText(cfg.system_memory).c_str());
    }
    void *base = nullptr;
    int err = size <= SIZE_MAX - kAlignment ? posix_memalign(&base, kAlignment, size + kAlignment) : ENOMEM;
    if (err != 0) {
        if (counted) {
            deviceState(device).live_bytes.fetch_sub(size, std::memory_order_relaxed);
        }
        return allocationFailure(entry, "posix_memalign", err, device, size);
    }
    new (base) BlockHeader{size, device, counted};
    *ptr = static_cast<char *>(base) + kAlignment;
    return INFINI_STATUS_SUCCESS;
}

// Frees a block once every stream of its device has drained, as cudaFree/cudaFreeHost do: queued
// work may still read or write it. A kernel failure a stream keeps is left for that stream's next
// synchronising call.
infiniStatus_t releaseAfterDevice(int device, void *ptr) {
    drainDevice(device);
    releaseBlock(ptr);
    return INFINI_STATUS_SUCCESS;
}

// Synchronous copies and memsets: waiting for the default stream and working on the calling
// thread gives the ordering of enqueue-and-wait without a round trip through the worker.
void waitForDefaultStream(int device) {
    if (Stream *stream = existingDefaultStream(device)) {
        stream->synchronize();
    }
}

// Queues a Copy, Fill or Release task on `stream` (NULL: the device's default stream).
infiniStatus_t enqueue(int device, void *stream, Task::Kind kind, void *dst, const void *src, size_t size,
                       int value) {
    Task task;
    task.kind = kind;
    task.dst = dst;
    task.src = src;
    task.size = size;
    task.value = value;
    resolveStream(device, stream).submit(std::move(task));
    return INFINI_STATUS_SUCCESS;
}

} // namespace

void releaseBlock(void *ptr) noexcept {
    void *base = static_cast<char *>(ptr) - kAlignment;
    const BlockHeader *header = static_cast<const BlockHeader *>(base);
    if (header->counted) {
        deviceState(header->device).live_bytes.fetch_sub(header->size, std::memory_order_relaxed);
    }
    std::free(base);
}

infiniStatus_t mallocDevice(int device, void **ptr, size_t size) {
    return allocate("malloc_device", device, size, true, ptr);
}

infiniStatus_t freeDevice(int device, void *ptr) {
    return releaseAfterDevice(device, ptr);
}

infiniStatus_t mallocHost(int device, void **ptr, size_t size) {
    return allocate("malloc_host", device, size, false, ptr);
}

infiniStatus_t freeHost(int device, void *ptr) {
    return releaseAfterDevice(device, ptr);
}

infiniStatus_t memcpySync(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t) {
    waitForDefaultStream(device);
    std::memmove(dst, src, size);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memcpyAsync(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t,
                           void *stream) {
    return enqueue(device, stream, Task::Kind::Copy, dst, src, size, 0);
}

infiniStatus_t memsetSync(int device, void *ptr, int value, size_t count) {
    waitForDefaultStream(device);
    std::memset(ptr, value, count);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memsetAsync(int device, void *ptr, int value, size_t count, void *stream) {
    return enqueue(device, stream, Task::Kind::Fill, ptr, nullptr, count, value);
}

infiniStatus_t mallocAsync(int device, void **ptr, size_t size, void *) {
    // Allocated now, so it is usable by everything later in stream order (and earlier, harmlessly).
    return allocate("malloc_async", device, size, true, ptr);
}

infiniStatus_t freeAsync(int device, void *ptr, void *stream) {
    // Stream work: no wait, the block is freed when the stream reaches it.
    return enqueue(device, stream, Task::Kind::Release, ptr, nullptr, 0, 0);
}

} // namespace infinirt::cpu

INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::cpu::memcpyAsync);
INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::cpu::memsetAsync);
