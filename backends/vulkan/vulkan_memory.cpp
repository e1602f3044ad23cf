// vulkan_memory.cpp - device memory (one VkBuffer per allocation, the pointer its buffer device
// address), pinned host memory (host-visible, coherent, mapped), copies and fills, with the maps
// of live allocations that turn any address inside one into its buffer and offset.
#include "vulkan_backend.h"
#include "vulkan_device.h"
#include "vulkan_host_copy.h"
#include "vulkan_memory.h"
#include "vulkan_pipelines.h"
#include "vulkan_stream.h"

#include "vulkan_native_api.h"

#include "common/text.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <sys/mman.h>
#include <vector>

namespace infinirt::vulkan {
namespace {

// Live allocations by start address. Leaked on purpose, like the devices: frees may come until
// the process exits.
//
// Each thread remembers the allocation it found last in each map, valid while no allocation of
// that map was erased since (`epoch_` counts the erasures): a stream of calls on one buffer finds
// it without the lock or the tree. A call racing with the free of its own memory may still see it,
// as it could through the tree an instant earlier.
class AllocationMap {
  public:
    explicit AllocationMap(int slot) : slot_(slot) {}
    void insert(uintptr_t base, const Allocation &allocation) {
        std::unique_lock<std::shared_mutex> lock(mutex_);
        map_[base] = allocation;
    }
    // Inserts the allocation unless its range meets a live one's; false then (nothing inserted).
    bool insertIfFree(uintptr_t base, const Allocation &allocation) {
        std::unique_lock<std::shared_mutex> lock(mutex_);
        if (meetsLocked(base, allocation.size)) {
            return false;
        }
        map_[base] = allocation;
        return true;
    }
    // Whether [base, base + size) meets a live allocation.
    bool meets(uintptr_t base, size_t size) const {
        std::shared_lock<std::shared_mutex> lock(mutex_);
        return meetsLocked(base, size);
    }
    // Removes the allocation starting exactly at `base`; false if there is none.
    bool erase(uintptr_t base, Allocation *removed) {
        std::unique_lock<std::shared_mutex> lock(mutex_);
        auto it = map_.find(base);
        if (it == map_.end()) {
            return false;
        }
        *removed = it->second;
        map_.erase(it);
        epoch_.fetch_add(1, std::memory_order_release);
        return true;
    }
    bool find(const void *ptr, Located *found) const {
        const uintptr_t address = reinterpret_cast<uintptr_t>(ptr);
        Last &last = lastFound()[slot_];
        const uint64_t epoch = epoch_.load(std::memory_order_acquire);
        if (last.epoch == epoch && address - last.base < last.allocation.size) {
            found->allocation = last.allocation;
            found->base = last.base;
            found->offset = address - last.base;
            return true;
        }
        std::shared_lock<std::shared_mutex> lock(mutex_);
        auto it = map_.upper_bound(address);
        if (it == map_.begin()) {
            return false;
        }
        --it;
        if (address - it->first >= it->second.size) {
            return false;
        }
        found->allocation = it->second;
        found->base = it->first;
        found->offset = address - it->first;
        last = Last{epoch, it->first, it->second};
        return true;
    }

  private:
    bool meetsLocked(uintptr_t base, size_t size) const {
        const size_t span = size == 0 ? 1 : size;
        auto next = map_.lower_bound(base);
        if (next != map_.end() && next->first - base < span) {
            return true;
        }
        if (next == map_.begin()) {
            return false;
        }
        --next;
        return base - next->first < next->second.size;
    }
    struct Last {
        uint64_t epoch = 0; // never the map's: epoch_ starts at 1
        uintptr_t base = 0;
        Allocation allocation;
    };
    static Last *lastFound() {
        static thread_local Last last[2];
        return last;
    }
    const int slot_; // this map's entry of lastFound()
    std::atomic<uint64_t> epoch_{1};
    mutable std::shared_mutex mutex_;
    std::map<uintptr_t, Allocation> map_;
};

AllocationMap &deviceMap() {
    static AllocationMap *map = new AllocationMap(0);
    return *map;
}

AllocationMap &hostMap() {
    static AllocationMap *map = new AllocationMap(1);
    return *map;
}

// Pageable host memory moves through chunks of this size, kDepth in turn (the host copies one while
// the device copies the others).
constexpr size_t kChunk = size_t{8} << 20;
constexpr size_t kDepth = 4;

infiniStatus_t acquireChunk(Device &dev, StagingChunk *out) {
    {
        std::lock_guard<std::mutex> lock(dev.staging_mutex);
        if (!dev.staging.empty()) {
            *out = dev.staging.back();
            dev.staging.pop_back();
            return INFINI_STATUS_SUCCESS;
        }
    }
    StagingChunk chunk;
    infiniStatus_t status =
        createBuffer(dev, kChunk, dev.host_type, &chunk.buffer, &chunk.memory, nullptr, "a staging chunk");
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    void *mapped = nullptr;
    VkResult result = nativeApi().vkMapMemory(dev.device, chunk.memory, 0, VK_WHOLE_SIZE, 0, &mapped);
    if (result != VK_SUCCESS) {
        destroyBuffer(dev, chunk.buffer, chunk.memory);
        return deviceFailure(dev, "vkMapMemory", result, "mapping a staging chunk");
    }
    chunk.host = static_cast<unsigned char *>(mapped);
    *out = chunk;
    return INFINI_STATUS_SUCCESS;
}

void releaseChunk(Device &dev, const StagingChunk &chunk) {
    if (chunk.buffer == VK_NULL_HANDLE) {
        return;
    }
    std::lock_guard<std::mutex> lock(dev.staging_mutex);
    try {
        dev.staging.push_back(chunk);
    } catch (...) {
        destroyBuffer(dev, chunk.buffer, chunk.memory);
    }
}

// Waits for the stream (no copy reads or writes the chunks any more, failed or not), then gives
// the chunks back; when the wait fails they are kept out of the pool for good (a copy may still
// use them). Returns `status`, else the wait's failure.
infiniStatus_t releaseChunks(Stream &stream, const StagingChunk (&chunks)[kDepth], infiniStatus_t status,
                             const char *what) {
    const infiniStatus_t finished = finishStream(stream, what);
    if (finished == INFINI_STATUS_SUCCESS) {
        for (const StagingChunk &chunk : chunks) {
            releaseChunk(*stream.dev, chunk);
        }
    }
    return status != INFINI_STATUS_SUCCESS ? status : finished;
}

// A range as a buffer of `device`: its device memory or its pinned host memory. `ours` says
// whether the start lies in memory of this plugin at all (another device's pinned memory is host
// memory here, not ours).
struct Side {
    VkBuffer buffer = VK_NULL_HANDLE;
    size_t offset = 0;
    bool ours = false;  // the start lies in device memory of any device, or pinned memory of `device`
    Located located;
};

void locate(int device, const void *ptr, size_t size, Side *side) {
    Located &found = side->located;
    if (findDeviceMemory(ptr, &found) || findHostMemory(ptr, &found)) {
        if (found.allocation.host && found.allocation.device != device) {
            return; // another device's pinned memory: host memory here, as pageable memory is
        }
        side->ours = true;
        if (found.allocation.device == device && size <= found.allocation.size - found.offset) {
            side->buffer = found.allocation.buffer;
            side->offset = found.offset;
        }
    }
}

// Memory of this plugin that is not usable here: another device's device memory (locate leaves
// another device's pinned memory to be host memory), or a range running past its end.
infiniStatus_t unusable(int device, const Side &side, const void *ptr, size_t size, const char *what) {
    const Allocation &a = side.located.allocation;
    if (a.device != device) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "%s of %p: device memory of vulkan:%d, not of vulkan:%d", what,
                            ptr, a.device, device);
    }
    return common::fail(INFINI_STATUS_BAD_PARAM, "%s of %s at offset %zu runs past the end of its %s allocation on vulkan:%d",
                        what, common::formatBytes(size).c_str(), side.located.offset,
                        common::formatBytes(a.size).c_str(), device);
}

// What a copy of `size` bytes between two buffers touches (for the batch's barriers).
Access copyAccess(VkBuffer dst, size_t dst_offset, VkBuffer src, size_t src_offset, size_t size) {
    Access access;
    access.read = Range{src, src_offset, src_offset + size};
    access.write = Range{dst, dst_offset, dst_offset + size};
    access.content.from = src;
    access.content.shift = static_cast<int64_t>(src_offset) - static_cast<int64_t>(dst_offset);
    return access;
}

// A copy between two buffers, in the stream's order; waited for when `blocking`.
infiniStatus_t bufferCopy(Stream &stream, VkBuffer dst, size_t dst_offset, VkBuffer src, size_t src_offset,
                          size_t size, bool blocking) {
    auto record = [&](VkCommandBuffer buffer) {
        const VkBufferCopy region{src_offset, dst_offset, size};
        nativeApi().vkCmdCopyBuffer(buffer, src, dst, 1, &region);
    };
    if (!blocking) {
        return enqueueWith(stream, record, copyAccess(dst, dst_offset, src, src_offset, size), "copying");
    }
    uint64_t value = 0;
    infiniStatus_t status = submitWith(stream, record, "copying", &value);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    return waitValue(*stream.dev, stream.timeline, value, "waiting for a copy");
}

// A device-to-device copy through the built-in copy shader: the 16-byte words (both addresses
// aligned to 16), then the up to 15 bytes left with vkCmdCopyBuffer, in one submission. Falls back
// to vkCmdCopyBuffer alone when the pipeline cannot be made.
infiniStatus_t shaderCopy(Stream &stream, const Side &to, const Side &from, size_t size, bool blocking) {
    Device &dev = *stream.dev;
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    if (copyPipeline(dev, &pipeline, &layout) != INFINI_STATUS_SUCCESS) {
        common::logMessage(INFINIRT_LOG_DEBUG, "vulkan:%d: no copy shader (%s); copying with vkCmdCopyBuffer",
                           dev.index, "its pipeline could not be created");
        return bufferCopy(stream, to.buffer, to.offset, from.buffer, from.offset, size, blocking);
    }
    const CopyArguments arguments{from.located.base + from.offset, to.located.base + to.offset, size / 16};
    const size_t bulk = arguments.count * 16;
    auto record = [&](VkCommandBuffer buffer) {
        recordShaderCopy(stream, buffer, pipeline, layout, arguments);
        if (bulk < size) {
            const VkBufferCopy region{from.offset + bulk, to.offset + bulk, size - bulk};
            nativeApi().vkCmdCopyBuffer(buffer, from.buffer, to.buffer, 1, &region);
        }
    };
    if (!blocking) {
        return enqueueWith(stream, record, copyAccess(to.buffer, to.offset, from.buffer, from.offset, size),
                           "copying through the copy shader");
    }
    uint64_t value = 0;
    infiniStatus_t status = submitWith(stream, record, "copying through the copy shader", &value);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    return waitValue(dev, stream.timeline, value, "waiting for a copy");
}

// Pageable host memory imported for one copy (VK_EXT_external_memory_host): the range covering the
// caller's bytes, widened to the device's minImportedHostPointerAlignment, as a buffer of its own;
// the caller's bytes start at `offset` in it.
struct Imported {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    size_t offset = 0;
};

// The smallest pageable copy that is imported: below it, pinning the pages costs more than the
// host copy into a staging chunk.
constexpr size_t kImportLeast = size_t{1} << 20;

// Imports [ptr, ptr + size) where the device can and INFINIRT_VULKAN_HOST_IMPORT=1 asks for it
// (false: stage it instead; the reason is logged at DEBUG). The pages stay the caller's: the import only pins them until releaseImport.
bool importHost(Device &dev, const void *ptr, size_t size, Imported *out) {
    if (dev.host_pointer_properties == nullptr || size < kImportLeast) {
        return false;
    }
    const NativeApi &vk = nativeApi();
    const size_t align = dev.import_alignment;
    const uintptr_t first = reinterpret_cast<uintptr_t>(ptr) & ~(uintptr_t{align} - 1);
    const size_t length = (reinterpret_cast<uintptr_t>(ptr) + size - first + align - 1) & ~(align - 1);
    void *begin = reinterpret_cast<void *>(first);
    const char *failed = nullptr;
    VkResult result = VK_SUCCESS;
    VkMemoryHostPointerPropertiesEXT properties{};
    properties.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT;
    VkExternalMemoryBufferCreateInfo external{};
    external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    VkBufferCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.pNext = &external;
    info.size = length;
    info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkMemoryRequirements needs{};
    Imported imported;
    if (length > dev.max_alloc) {
        failed = "the range is larger than one allocation may be";
    } else if ((result = dev.host_pointer_properties(dev.device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
                                                     begin, &properties)) != VK_SUCCESS) {
        failed = "vkGetMemoryHostPointerPropertiesEXT";
    } else if ((result = vk.vkCreateBuffer(dev.device, &info, nullptr, &imported.buffer)) != VK_SUCCESS) {
        failed = "vkCreateBuffer";
    } else {
        vk.vkGetBufferMemoryRequirements(dev.device, imported.buffer, &needs);
        const uint32_t types = needs.memoryTypeBits & properties.memoryTypeBits;
        VkImportMemoryHostPointerInfoEXT import{};
        import.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT;
        import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
        import.pHostPointer = begin;
        VkMemoryAllocateInfo alloc{};
        alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
        alloc.pNext = &import;
        alloc.allocationSize = length;
        alloc.memoryTypeIndex = types != 0 ? static_cast<uint32_t>(__builtin_ctz(types)) : 0;
        if (types == 0 || needs.size > length) {
            failed = "no memory type fits both the buffer and the host pointer";
        } else if ((result = vk.vkAllocateMemory(dev.device, &alloc, nullptr, &imported.memory)) != VK_SUCCESS) {
            failed = "vkAllocateMemory (importing the host pointer)";
        } else if ((result = vk.vkBindBufferMemory(dev.device, imported.buffer, imported.memory, 0)) != VK_SUCCESS) {
            failed = "vkBindBufferMemory";
        }
    }
    if (failed != nullptr) {
        if (imported.memory != VK_NULL_HANDLE) {
            vk.vkFreeMemory(dev.device, imported.memory, nullptr);
        }
        if (imported.buffer != VK_NULL_HANDLE) {
            vk.vkDestroyBuffer(dev.device, imported.buffer, nullptr);
        }
        common::logMessage(INFINIRT_LOG_DEBUG, "vulkan:%d: %s of pageable memory at %p not imported: %s (%s); staged",
                           dev.index, common::formatBytes(size).c_str(), ptr, failed, nativeErrorName(result));
        return false;
    }
    imported.offset = reinterpret_cast<uintptr_t>(ptr) - first;
    *out = imported;
    return true;
}

void releaseImport(Device &dev, const Imported &imported) { destroyBuffer(dev, imported.buffer, imported.memory); }

// A copy between a buffer and pageable host memory imported for it, complete on return. The
// import goes once no copy reads it (kept for good when the wait fails: a copy may still use it).
infiniStatus_t importedCopy(Stream &stream, const Imported &imported, VkBuffer buffer, size_t offset, size_t size,
                            bool to_host) {
    infiniStatus_t status =
        to_host ? bufferCopy(stream, imported.buffer, imported.offset, buffer, offset, size, true)
                : bufferCopy(stream, buffer, offset, imported.buffer, imported.offset, size, true);
    const infiniStatus_t finished =
        status == INFINI_STATUS_SUCCESS ? status : finishStream(stream, "after a copy with imported host memory");
    if (finished == INFINI_STATUS_SUCCESS) {
        releaseImport(*stream.dev, imported);
    }
    return status;
}

// Host memory the device cannot read (pageable) into a buffer, through kDepth staging chunks in
// turn: the host fills one (hostCopy) while the device copies the ones filled before it. Complete on
// return (the chunks go back).
infiniStatus_t stagedUpload(Stream &stream, VkBuffer dst, size_t dst_offset, const unsigned char *src, size_t size) {
    Device &dev = *stream.dev;
    StagingChunk chunks[kDepth];
    uint64_t values[kDepth] = {};
    infiniStatus_t status = INFINI_STATUS_SUCCESS;
    size_t k = 0;
    for (size_t done = 0; done < size && status == INFINI_STATUS_SUCCESS; done += kChunk, k = (k + 1) % kDepth) {
        const size_t n = std::min(kChunk, size - done);
        if (chunks[k].buffer == VK_NULL_HANDLE) {
            status = acquireChunk(dev, &chunks[k]);
        } else {
            status = waitValue(dev, stream.timeline, values[k], "staging a copy from pageable memory");
        }
        if (status != INFINI_STATUS_SUCCESS) {
            break;
        }
        hostCopy(chunks[k].host, src + done, n);
        const VkBuffer from = chunks[k].buffer;
        status = submitWith(
            stream,
            [&](VkCommandBuffer buffer) {
                const VkBufferCopy region{0, dst_offset + done, n};
                nativeApi().vkCmdCopyBuffer(buffer, from, dst, 1, &region);
            },
            "copying from pageable memory", &values[k]);
    }
    return releaseChunks(stream, chunks, status, "staging a copy from pageable memory");
}

// A buffer into pageable host memory, through kDepth staging chunks in turn: the device copies
// the next pieces while the host copies one out (hostCopy). After the stream's earlier work;
// complete on return.
infiniStatus_t stagedDownload(Stream &stream, unsigned char *dst, VkBuffer src, size_t src_offset, size_t size) {
    Device &dev = *stream.dev;
    StagingChunk chunks[kDepth];
    uint64_t values[kDepth] = {};
    // The device's copy of the piece at `done` into chunk k.
    auto enqueue = [&](size_t k, size_t done) -> infiniStatus_t {
        if (chunks[k].buffer == VK_NULL_HANDLE) {
            infiniStatus_t status = acquireChunk(dev, &chunks[k]);
            if (status != INFINI_STATUS_SUCCESS) {
                return status;
            }
        }
        const size_t n = std::min(kChunk, size - done);
        const VkBuffer to = chunks[k].buffer;
        return submitWith(
            stream,
            [&](VkCommandBuffer buffer) {
                const VkBufferCopy region{src_offset + done, 0, n};
                nativeApi().vkCmdCopyBuffer(buffer, src, to, 1, &region);
            },
            "copying into pageable memory", &values[k]);
    };
    infiniStatus_t status = INFINI_STATUS_SUCCESS;
    for (size_t k = 0; k < kDepth && k * kChunk < size && status == INFINI_STATUS_SUCCESS; ++k) {
        status = enqueue(k, k * kChunk);
    }
    size_t k = 0;
    for (size_t done = 0; done < size && status == INFINI_STATUS_SUCCESS; done += kChunk, k = (k + 1) % kDepth) {
        status = waitValue(dev, stream.timeline, values[k], "staging a copy into pageable memory");
        if (status != INFINI_STATUS_SUCCESS) {
            break;
        }
        hostCopy(dst + done, chunks[k].host, std::min(kChunk, size - done));
        if (done + kDepth * kChunk < size) {
            status = enqueue(k, done + kDepth * kChunk);
        }
    }
    return releaseChunks(stream, chunks, status, "staging a copy into pageable memory");
}

// The vulkan device whose device memory holds a side; -1 for host memory (pinned or pageable).
int deviceMemoryOwner(const Side &side) {
    return side.ours && !side.located.allocation.host ? side.located.allocation.device : -1;
}

infiniStatus_t copy(int device, void *dst, const void *src, size_t size, Stream &stream, bool blocking);

// A copy on `stream` (of `device`) with device memory of another vulkan device on one side or
// both. A buffer of one VkDevice is not usable by another, so after the stream's earlier work each
// owner copies its own side on its default stream (or `stream`, for `device`'s side), through a
// host bounce buffer when both sides are device memory of two devices. Complete on return, so a
// Free of either side after it finds no work of this stream reading it.
infiniStatus_t crossDeviceCopy(int device, void *dst, const void *src, size_t size, Stream &stream, int to_owner,
                               int from_owner) {
    infiniStatus_t status = finishStream(stream, "before a copy with another device's memory");
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    // The copy `owner` makes of its side: on `stream` for this device, else on its default stream.
    auto copyOn = [&](int owner, void *to, const void *from, size_t n) {
        if (owner == device) {
            return copy(owner, to, from, n, stream, true);
        }
        Stream *other = nullptr;
        infiniStatus_t found = defaultStream(owner, &other);
        return found == INFINI_STATUS_SUCCESS ? copy(owner, to, from, n, *other, true) : found;
    };
    if (to_owner < 0 || from_owner < 0 || to_owner == from_owner) {
        return copyOn(to_owner >= 0 ? to_owner : from_owner, dst, src, size);
    }
    constexpr size_t kBounce = size_t{64} << 20;
    std::vector<unsigned char> bounce(std::min(size, kBounce));
    for (size_t done = 0; done < size && status == INFINI_STATUS_SUCCESS; done += kBounce) {
        const size_t n = std::min(kBounce, size - done);
        status = copyOn(from_owner, bounce.data(), static_cast<const unsigned char *>(src) + done, n);
        if (status == INFINI_STATUS_SUCCESS) {
            status = copyOn(to_owner, static_cast<unsigned char *>(dst) + done, bounce.data(), n);
        }
    }
    return status;
}

infiniStatus_t copy(int device, void *dst, const void *src, size_t size, Stream &stream, bool blocking) {
    Side to, from;
    locate(device, dst, size, &to);
    locate(device, src, size, &from);
    const int to_owner = deviceMemoryOwner(to), from_owner = deviceMemoryOwner(from);
    if ((to_owner >= 0 && to_owner != device) || (from_owner >= 0 && from_owner != device)) {
        return crossDeviceCopy(device, dst, src, size, stream, to_owner, from_owner);
    }
    if (to.ours && to.buffer == VK_NULL_HANDLE) {
        return unusable(device, to, dst, size, "copy to");
    }
    if (from.ours && from.buffer == VK_NULL_HANDLE) {
        return unusable(device, from, src, size, "copy from");
    }
    if (to.buffer != VK_NULL_HANDLE && from.buffer != VK_NULL_HANDLE) {
        const bool overlap = to.buffer == from.buffer && to.offset < from.offset + size && from.offset < to.offset + size;
        if (!overlap) {
            const bool device_memory = !to.located.allocation.host && !from.located.allocation.host;
            const uintptr_t dst_address = to.located.base + to.offset, src_address = from.located.base + from.offset;
            if (stream.dev->shader_copy && device_memory && size >= stream.dev->shader_copy_least &&
                size >= 16 && dst_address % 16 == 0 && src_address % 16 == 0) {
                return shaderCopy(stream, to, from, size, blocking);
            }
            return bufferCopy(stream, to.buffer, to.offset, from.buffer, from.offset, size, blocking);
        }
        // vkCmdCopyBuffer's regions must not overlap: through the host, in the stream's order.
        std::vector<unsigned char> bounce(size);
        infiniStatus_t status = stagedDownload(stream, bounce.data(), from.buffer, from.offset, size);
        return status == INFINI_STATUS_SUCCESS ? stagedUpload(stream, to.buffer, to.offset, bounce.data(), size)
                                               : status;
    }
    Imported imported;
    if (to.buffer != VK_NULL_HANDLE) {
        if (importHost(*stream.dev, src, size, &imported)) {
            return importedCopy(stream, imported, to.buffer, to.offset, size, false);
        }
        return stagedUpload(stream, to.buffer, to.offset, static_cast<const unsigned char *>(src), size);
    }
    if (from.buffer != VK_NULL_HANDLE) {
        if (importHost(*stream.dev, dst, size, &imported)) {
            return importedCopy(stream, imported, from.buffer, from.offset, size, true);
        }
        return stagedDownload(stream, static_cast<unsigned char *>(dst), from.buffer, from.offset, size);
    }
    // Two pieces of host memory the device does not hold: by the CPU, after the stream's work.
    infiniStatus_t status = finishStream(stream, "before a host-to-host copy");
    if (status == INFINI_STATUS_SUCCESS) {
        std::memmove(dst, src, size);
    }
    return status;
}

// The bytes from `from` to the end of its 4-byte word, and the bytes of the word holding byte
// `to` - 1 up to `to`, as masks of the word.
uint32_t fromMask(size_t from) { return 0xffffffffu << (8 * (from & 3)); }
uint32_t toMask(size_t to) { return (to & 3) != 0 ? 0xffffffffu >> (8 * (4 - (to & 3))) : 0xffffffffu; }

// Under stream.mutex: records the fill of bytes [begin, end) of `target` (buffer device address
// `base`) with `byte` into `buffer`, the stream's. vkCmdFillBuffer writes aligned 4-byte words:
// the middle of the range; the up to 3 bytes before and after it are set by the fill shader
// (fill.comp) in the same command buffer, or, where its pipeline cannot be made, copied from the
// device's pattern buffer.
void recordFill(Stream &stream, VkCommandBuffer buffer, VkBuffer target, uint64_t base, size_t begin, size_t end,
                uint32_t byte) {
    const NativeApi &vk = nativeApi();
    Device &dev = *stream.dev;
    const size_t head_end = std::min(end, (begin + 3) & ~size_t{3});
    const size_t middle_end = head_end + ((end - head_end) & ~size_t{3});
    if (middle_end > head_end) {
        vk.vkCmdFillBuffer(buffer, target, head_end, middle_end - head_end, byte * 0x01010101u);
    }
    if (head_end == begin && end == middle_end) {
        return;
    }
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    if (fillPipeline(dev, &pipeline, &layout) == INFINI_STATUS_SUCCESS) {
        // The edge words by address: a device allocation's base is its device address; pinned host
        // memory has a buffer device address of its own.
        FillEdgeArguments edges{};
        int n = 0;
        if (head_end > begin) {
            edges.word[n] = base + (begin & ~size_t{3});
            edges.mask[n++] = fromMask(begin) & toMask(head_end);
        }
        if (end > middle_end) {
            edges.word[n] = base + middle_end;
            edges.mask[n++] = toMask(end);
        }
        edges.value = byte * 0x01010101u;
        recordShaderFillEdges(stream, buffer, pipeline, layout, edges);
        return;
    }
    if (head_end > begin) {
        const VkBufferCopy region{4 * byte, begin, head_end - begin};
        vk.vkCmdCopyBuffer(buffer, dev.patterns, target, 1, &region);
    }
    if (end > middle_end) {
        const VkBufferCopy region{4 * byte, middle_end, end - middle_end};
        vk.vkCmdCopyBuffer(buffer, dev.patterns, target, 1, &region);
    }
}

// A fill of `count` bytes at `ptr`: an asynchronous one of at most Device::fill_list_most bytes
// goes into the stream's fill list (enqueueFill), any other is recorded by recordFill.
infiniStatus_t fill(int device, void *ptr, int value, size_t count, Stream &stream, bool blocking) {
    Side side;
    locate(device, ptr, count, &side);
    if (!side.ours) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "memset of %p, which is not memory of vulkan:%d", ptr, device);
    }
    if (side.buffer == VK_NULL_HANDLE) {
        return unusable(device, side, ptr, count, "memset");
    }
    Device &dev = *stream.dev;
    const uint32_t byte = static_cast<unsigned char>(value);
    const size_t begin = side.offset, end = side.offset + count;
    const VkBuffer target = side.buffer;
    const uint64_t base = side.located.allocation.address;
    auto record = [&](VkCommandBuffer buffer) { recordFill(stream, buffer, target, base, begin, end, byte); };
    // The words holding the range: the edge words are rewritten whole (only the range's bytes change).
    Access access;
    access.write = Range{target, begin & ~size_t{3}, (end + 3) & ~size_t{3}};
    access.content.shift = byte;
    if (!blocking && count > 0 && count <= dev.fill_list_most) {
        FillRecord listed;
        listed.address = base + (begin & ~size_t{3});
        listed.words = static_cast<uint32_t>(((end + 3) >> 2) - (begin >> 2));
        listed.value = byte * 0x01010101u;
        listed.first_mask = fromMask(begin);
        listed.last_mask = toMask(end);
        return enqueueFillWith(stream, listed, record, access, "setting memory");
    }
    if (!blocking) {
        return enqueueWith(stream, record, access, "setting memory");
    }
    uint64_t done = 0;
    infiniStatus_t status = submitWith(stream, record, "setting memory", &done);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    return waitValue(dev, stream.timeline, done, "waiting for a memset");
}

// A buffer device address is a GPU virtual address, and infinirt keeps every allocation of every
// backend in one record by address: a device address that the host's address space also hands
// out (a later malloc of the program, another backend's memory) would be two allocations at one
// address. So the range is reserved in the host's address space (PROT_NONE, no memory behind it)
// where nothing is mapped there yet; where something already is (lavapipe: its device memory is
// host memory; a driver that maps its device addresses for the host), nothing is reserved.
bool reserveHostRange(uintptr_t address, size_t size) {
#ifdef MAP_FIXED_NOREPLACE
    void *want = reinterpret_cast<void *>(address);
    void *got = mmap(want, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (got == MAP_FAILED) {
        return false; // EEXIST: already mapped; anything else: nothing reserved either
    }
    if (got != want) { // a kernel before 4.17 took the flag for a hint
        munmap(got, size);
        return false;
    }
    return true;
#else
    (void)address;
    (void)size;
    return false;
#endif
}

// Destroys a device allocation's buffer and memory and gives back its host range where it was
// reserved (reserveHostRange).
void releaseDeviceAllocation(Device &dev, const Allocation &allocation) {
    if (allocation.reserved) {
        munmap(reinterpret_cast<void *>(static_cast<uintptr_t>(allocation.address)), allocation.size);
    }
    destroyBuffer(dev, allocation.buffer, allocation.memory);
}

infiniStatus_t notOurs(const char *what, const void *ptr, int device) {
    return common::fail(INFINI_STATUS_BAD_PARAM, "%s of %p, which is not an allocation of vulkan:%d", what, ptr,
                        device);
}

} // namespace

bool findDeviceMemory(const void *ptr, Located *found) { return deviceMap().find(ptr, found); }

bool findHostMemory(const void *ptr, Located *found) { return hostMap().find(ptr, found); }

// A buffer of the device-local memory type with a device address (the returned pointer). Checked
// first against the heap (or INFINIRT_VULKAN_MEMORY_LIMIT) less what infinirt holds, and the
// largest single allocation (maxMemoryAllocationSize, maxBufferSize): OUT_OF_MEMORY with figures.
infiniStatus_t mallocDevice(int device, void **ptr, size_t size) {
    Device &dev = infinirt::vulkan::device(device);
    const size_t held = dev.allocated.fetch_add(size, std::memory_order_relaxed);
    if (size > dev.max_alloc || size > dev.heap_size || held > dev.heap_size - size) {
        dev.allocated.fetch_sub(size, std::memory_order_relaxed);
        return common::fail(INFINI_STATUS_OUT_OF_MEMORY,
                            "cannot allocate %s on vulkan:%d (\"%s\"): the device has %s of memory (%s), largest "
                            "single allocation %s (maxMemoryAllocationSize, maxBufferSize), and infinirt holds %s of it",
                            common::formatBytes(size).c_str(), device, dev.properties.deviceName,
                            common::formatBytes(dev.heap_size).c_str(), dev.memory_source,
                            common::formatBytes(dev.max_alloc).c_str(), common::formatBytes(held).c_str());
    }
    // Each VkDevice has a GPU address space of its own, and two devices may give the same addresses
    // (NVIDIA's driver does), while a pointer must name one allocation: a buffer whose range meets
    // live memory of this plugin (another device's, or pinned host memory) is held while the device
    // gives another, then freed.
    constexpr int kAttempts = 16;
    std::array<Allocation, kAttempts> taken;
    int held_aside = 0;
    infiniStatus_t status = INFINI_STATUS_SUCCESS;
    Allocation allocation;
    allocation.device = device;
    allocation.size = size;
    for (;;) {
        VkDeviceAddress address = 0;
        status = createBuffer(dev, size, dev.device_type, &allocation.buffer, &allocation.memory, &address,
                              "device memory");
        if (status != INFINI_STATUS_SUCCESS) {
            if (status == INFINI_STATUS_OUT_OF_MEMORY) {
                common::fail(status,
                             "out of memory allocating %s on vulkan:%d (\"%s\"): %s of %s (%s) held by infinirt",
                             common::formatBytes(size).c_str(), device, dev.properties.deviceName,
                             common::formatBytes(held).c_str(), common::formatBytes(dev.heap_size).c_str(),
                             dev.memory_source);
            }
            break;
        }
        allocation.address = address;
        const auto base = static_cast<uintptr_t>(address);
        allocation.reserved = address % 4096 == 0 && reserveHostRange(base, size);
        bool inserted = false;
        try {
            inserted = !hostMap().meets(base, size) && deviceMap().insertIfFree(base, allocation);
        } catch (...) {
            releaseDeviceAllocation(dev, allocation);
            for (int i = 0; i < held_aside; ++i) {
                releaseDeviceAllocation(dev, taken[i]);
            }
            dev.allocated.fetch_sub(size, std::memory_order_relaxed);
            throw;
        }
        if (inserted) {
            break;
        }
        if (held_aside + 1 == kAttempts) {
            releaseDeviceAllocation(dev, allocation);
            status = common::fail(INFINI_STATUS_OUT_OF_MEMORY,
                                  "cannot allocate %s on vulkan:%d (\"%s\"): %d buffers in a row got device "
                                  "addresses that other memory of infinirt's vulkan devices holds",
                                  common::formatBytes(size).c_str(), device, dev.properties.deviceName, kAttempts);
            break;
        }
        taken[held_aside++] = allocation;
    }
    for (int i = 0; i < held_aside; ++i) {
        releaseDeviceAllocation(dev, taken[i]);
    }
    if (status != INFINI_STATUS_SUCCESS) {
        dev.allocated.fetch_sub(size, std::memory_order_relaxed);
        return status;
    }
    *ptr = reinterpret_cast<void *>(static_cast<uintptr_t>(allocation.address));
    return INFINI_STATUS_SUCCESS;
}

// Waits for the device's streams (vkFreeMemory does not wait for work that still uses the memory),
// then destroys the buffer and frees its memory. BAD_PARAM for a pointer this plugin did not give.
infiniStatus_t freeDevice(int device, void *ptr) {
    Located found;
    if (!findDeviceMemory(ptr, &found) || found.offset != 0 || found.allocation.device != device) {
        return notOurs("free", ptr, device);
    }
    infiniStatus_t status = deviceSynchronize(device);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    Allocation removed;
    if (!deviceMap().erase(found.base, &removed)) {
        return notOurs("free", ptr, device); // freed by another thread meanwhile
    }
    Device &dev = infinirt::vulkan::device(device);
    releaseDeviceAllocation(dev, removed);
    dev.allocated.fetch_sub(removed.size, std::memory_order_relaxed);
    return INFINI_STATUS_SUCCESS;
}

// Host-visible, coherent memory (cached where the device offers it), mapped for good: the host
// pointer is returned, and copies between it and device memory are one vkCmdCopyBuffer.
infiniStatus_t mallocHost(int device, void **ptr, size_t size) {
    Device &dev = infinirt::vulkan::device(device);
    if (size > dev.max_alloc) {
        return common::fail(INFINI_STATUS_OUT_OF_MEMORY,
                            "cannot allocate %s of pinned host memory for vulkan:%d (\"%s\"): the largest single "
                            "allocation is %s (maxMemoryAllocationSize, maxBufferSize)",
                            common::formatBytes(size).c_str(), device, dev.properties.deviceName,
                            common::formatBytes(dev.max_alloc).c_str());
    }
    Allocation allocation;
    allocation.device = device;
    allocation.size = size;
    allocation.host = true;
    infiniStatus_t status = createBuffer(dev, size, dev.host_type, &allocation.buffer, &allocation.memory,
                                         &allocation.address, "pinned host memory");
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    void *mapped = nullptr;
    VkResult result = nativeApi().vkMapMemory(dev.device, allocation.memory, 0, VK_WHOLE_SIZE, 0, &mapped);
    if (result != VK_SUCCESS) {
        destroyBuffer(dev, allocation.buffer, allocation.memory);
        return deviceFailure(dev, "vkMapMemory", result, "mapping pinned host memory");
    }
    try {
        hostMap().insert(reinterpret_cast<uintptr_t>(mapped), allocation);
    } catch (...) {
        destroyBuffer(dev, allocation.buffer, allocation.memory);
        throw;
    }
    *ptr = mapped;
    return INFINI_STATUS_SUCCESS;
}

// Waits for the owning device's streams (asynchronous copies may still use it), then frees it
// (vkFreeMemory unmaps it).
infiniStatus_t freeHost(int device, void *ptr) {
    Located found;
    if (!findHostMemory(ptr, &found) || found.offset != 0) {
        return notOurs("free of host memory", ptr, device);
    }
    const int owner = found.allocation.device;
    infiniStatus_t status = deviceSynchronize(owner);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    Allocation removed;
    if (!hostMap().erase(found.base, &removed)) {
        return notOurs("free of host memory", ptr, device);
    }
    destroyBuffer(infinirt::vulkan::device(owner), removed.buffer, removed.memory);
    return INFINI_STATUS_SUCCESS;
}

// Every kind: between two buffers of the device (device memory or pinned host memory) one
// vkCmdCopyBuffer; with pageable host memory on one side, staged through host-visible chunks (and
// complete on return); between two pieces of host memory, memmove after the stream's work. The
// kind is not needed: the addresses say which side each pointer is.
infiniStatus_t memcpySync(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t) {
    Stream *stream = nullptr;
    infiniStatus_t status = defaultStream(device, &stream);
    return status == INFINI_STATUS_SUCCESS ? copy(device, dst, src, size, *stream, true) : status;
}

infiniStatus_t memcpyAsync(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t,
                           void *stream_handle) {
    Stream *stream = nullptr;
    infiniStatus_t status = resolveStream(device, stream_handle, &stream);
    return status == INFINI_STATUS_SUCCESS ? copy(device, dst, src, size, *stream, false) : status;
}

// Any count at any alignment, in device memory or pinned host memory of `device` (BAD_PARAM for
// anything else).
infiniStatus_t memsetSync(int device, void *ptr, int value, size_t count) {
    Stream *stream = nullptr;
    infiniStatus_t status = defaultStream(device, &stream);
    return status == INFINI_STATUS_SUCCESS ? fill(device, ptr, value, count, *stream, true) : status;
}

infiniStatus_t memsetAsync(int device, void *ptr, int value, size_t count, void *stream_handle) {
    Stream *stream = nullptr;
    infiniStatus_t status = resolveStream(device, stream_handle, &stream);
    return status == INFINI_STATUS_SUCCESS ? fill(device, ptr, value, count, *stream, false) : status;
}

} // namespace infinirt::vulkan

INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::vulkan::memcpyAsync);
INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::vulkan::memsetAsync);
