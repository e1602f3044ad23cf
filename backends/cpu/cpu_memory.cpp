// Memory: device and host blocks are both aligned host memory; copies are memmove.
//
// Every block starts kAlignment bytes after a header recording its size and device, so a free
// (possibly run by a stream worker, possibly on behalf of another device) returns the bytes to
// the right budget without a lookup table.
#include "cpu_stream.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace infinirt_cpu {

namespace {

struct BlockHeader {
    size_t size;
    int device;
    bool counted; // its bytes are in device_state(device).live_bytes
};
static_assert(sizeof(BlockHeader) <= kAlignment, "the header must fit in the padding before a block");

// "600000 bytes (585.9 KiB)": exact for the reader who compares with a request, scaled for
// the one who skims.
struct Size {
    char text[64];
    explicit Size(size_t bytes) {
        static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double scaled = static_cast<double>(bytes);
        int unit = -1;
        while (scaled >= 1024.0 && unit < 5) {
            scaled /= 1024.0;
            ++unit;
        }
        if (unit < 0) {
            std::snprintf(text, sizeof text, "%zu bytes", bytes);
        } else {
            std::snprintf(text, sizeof text, "%zu bytes (%.1f %s)", bytes, scaled, units[unit]);
        }
    }
};

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
        Device &dev = device_state(device);
        if (!reserve(dev, size, cfg.memory_limit)) {
            size_t live = dev.live_bytes.load(std::memory_order_relaxed);
            size_t free_bytes = live < cfg.memory_limit ? cfg.memory_limit - live : 0;
            report("%s: cannot allocate %s on cpu:%d: INFINIRT_CPU_MEMORY_LIMIT is %s, %s free", entry,
                   Size(size).text, device, Size(cfg.memory_limit).text, Size(free_bytes).text);
            return INFINI_STATUS_OUT_OF_MEMORY;
        }
    } else if (size > cfg.system_memory) {
        // Checked before malloc: with overcommit a huge request may "succeed" and fault later.
        size_t free_bytes = system_available_memory();
        report("%s: cannot allocate %s on cpu:%d: more than the %s of physical memory, %s free", entry,
               Size(size).text, device, Size(cfg.system_memory).text, Size(free_bytes).text);
        return INFINI_STATUS_OUT_OF_MEMORY;
    }
    void *base = nullptr;
    int err = size <= SIZE_MAX - kAlignment ? posix_memalign(&base, kAlignment, size + kAlignment) : ENOMEM;
    if (err != 0) {
        if (counted) {
            device_state(device).live_bytes.fetch_sub(size, std::memory_order_relaxed);
        }
        size_t free_bytes = system_available_memory();
        report("%s: posix_memalign failed: %s (%d) while allocating %s on cpu:%d, %s free", entry,
               err == ENOMEM ? "ENOMEM" : "EINVAL", err, Size(size).text, device, Size(free_bytes).text);
        return INFINI_STATUS_OUT_OF_MEMORY;
    }
    new (base) BlockHeader{size, device, counted};
    *ptr = static_cast<char *>(base) + kAlignment;
    return INFINI_STATUS_SUCCESS;
}

} // namespace

void release_block(void *ptr) noexcept {
    void *base = static_cast<char *>(ptr) - kAlignment;
    const BlockHeader *header = static_cast<const BlockHeader *>(base);
    if (header->counted) {
        device_state(header->device).live_bytes.fetch_sub(header->size, std::memory_order_relaxed);
    }
    std::free(base);
}

infiniStatus_t malloc_device(int device, void **ptr, size_t size) {
    return allocate("malloc_device", device, size, true, ptr);
}

infiniStatus_t free_device(int device, void *ptr) {
    // As cudaFree: queued work may still read or write the block.
    infiniStatus_t status = device_synchronize(device);
    if (status == INFINI_STATUS_SUCCESS) {
        release_block(ptr);
    }
    return status;
}

infiniStatus_t malloc_host(int device, void **ptr, size_t size) {
    return allocate("malloc_host", device, size, false, ptr);
}

infiniStatus_t free_host(int device, void *ptr) {
    // As cudaFreeHost: a queued copy may still use the block.
    infiniStatus_t status = device_synchronize(device);
    if (status == INFINI_STATUS_SUCCESS) {
        release_block(ptr);
    }
    return status;
}

infiniStatus_t memcpy_sync(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t) {
    return guarded("memcpy_sync", [&] {
        // Waiting for the default stream and copying here gives the ordering of enqueue-and-wait
        // without handing the copy to the worker and back.
        if (Stream *stream = existing_default_stream(device)) {
            stream->synchronize();
        }
        std::memmove(dst, src, size);
        return INFINI_STATUS_SUCCESS;
    });
}

infiniStatus_t memcpy_async(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t,
                            void *stream) {
    return guarded("memcpy_async", [&] {
        Task task;
        task.kind = Task::Kind::copy;
        task.dst = dst;
        task.src = src;
        task.size = size;
        resolve_stream(device, stream).submit(std::move(task));
        return INFINI_STATUS_SUCCESS;
    });
}

infiniStatus_t memset_sync(int device, void *ptr, int value, size_t count) {
    return guarded("memset_sync", [&] {
        if (Stream *stream = existing_default_stream(device)) {
            stream->synchronize();
        }
        std::memset(ptr, value, count);
        return INFINI_STATUS_SUCCESS;
    });
}

infiniStatus_t memset_async(int device, void *ptr, int value, size_t count, void *stream) {
    return guarded("memset_async", [&] {
        Task task;
        task.kind = Task::Kind::fill;
        task.dst = ptr;
        task.value = value;
        task.size = count;
        resolve_stream(device, stream).submit(std::move(task));
        return INFINI_STATUS_SUCCESS;
    });
}

infiniStatus_t malloc_async(int device, void **ptr, size_t size, void *) {
    // Allocated now, so it is usable by everything later in stream order (and earlier, harmlessly).
    return allocate("malloc_async", device, size, true, ptr);
}

infiniStatus_t free_async(int device, void *ptr, void *stream) {
    return guarded("free_async", [&] {
        Task task;
        task.kind = Task::Kind::release;
        task.dst = ptr;
        resolve_stream(device, stream).submit(std::move(task));
        return INFINI_STATUS_SUCCESS;
    });
}

} // namespace infinirt_cpu
