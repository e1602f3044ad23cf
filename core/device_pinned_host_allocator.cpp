#include "device_pinned_host_allocator.hpp"

#include "infinicore/error.hpp"
#include "memory_stat_ops.hpp"
#include "out_of_memory.hpp"

#include <algorithm>

namespace infinicore::detail {

namespace {

constexpr size_t kMinPinned = 512;
constexpr size_t kMaxPinned = SIZE_MAX / 2 + 1; // the largest power of two

unsigned sizeClass(size_t size) {
    size_t rounded = kMinPinned;
    unsigned cls = 9;
    while (rounded < size) {
        rounded <<= 1;
        ++cls;
    }
    return cls;
}

} // namespace

DevicePinnedHostAllocator::DevicePinnedHostAllocator(std::shared_ptr<RawDevice> device)
    : device_(std::move(device)) {}

DevicePinnedHostAllocator::~DevicePinnedHostAllocator() {
    events_.waitAndDestroyLocked();
    for (auto &[address, block] : blocks_) {
        (void)device_->freeHost(block->ptr);
    }
}

DevicePinnedHostAllocator::Block *DevicePinnedHostAllocator::allocate(size_t size) {
    if (size > kMaxPinned) {
        std::lock_guard<std::mutex> lock(mutex_);
        throwOutOfMemoryLocked(size, false, "the request is larger than any host");
    }
    const unsigned cls = sizeClass(size);
    const size_t rounded = size_t(1) << cls;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        ++allocs_;
        if (!events_.emptyLocked()) {
            processEventsLocked(false);
        }
        if (!free_[cls].empty()) {
            Block *block = free_[cls].back();
            free_[cls].pop_back();
            block->in_use = true;
            ++cache_hits_;
            add(allocated_bytes_, static_cast<int64_t>(block->size));
            add(active_bytes_, static_cast<int64_t>(block->size));
            add(allocations_, 1);
            return block;
        }
    }
    // Page-locking takes long: never under the mutex.
    void *ptr = nullptr;
    infiniStatus_t status = device_->mallocHost(&ptr, rounded);
    if (status == INFINI_STATUS_OUT_OF_MEMORY) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            processEventsLocked(true);
            releaseCachedLocked();
            ++retries_;
        }
        status = device_->mallocHost(&ptr, rounded);
    }
    if (status != INFINI_STATUS_SUCCESS) {
        std::string detail = device_->lastError();
        std::lock_guard<std::mutex> lock(mutex_);
        --allocs_;
        if (status == INFINI_STATUS_OUT_OF_MEMORY) {
            ++ooms_;
            throwOutOfMemoryLocked(size, true, detail);
        }
        throw Error(status, "infinirtMallocHost(" + std::to_string(rounded) + ")", detail);
    }
    auto block = std::make_unique<Block>();
    block->ptr = ptr;
    block->size = rounded;
    block->size_class = cls;
    block->in_use = true;
    std::lock_guard<std::mutex> lock(mutex_);
    Block *raw = block.get();
    blocks_.emplace(reinterpret_cast<uintptr_t>(ptr), std::move(block));
    ++host_allocs_;
    add(reserved_bytes_, static_cast<int64_t>(rounded));
    add(segments_, 1);
    add(allocated_bytes_, static_cast<int64_t>(rounded));
    add(active_bytes_, static_cast<int64_t>(rounded));
    add(allocations_, 1);
    return raw;
}

void DevicePinnedHostAllocator::throwOutOfMemoryLocked(size_t size, bool retried, const std::string &detail) const {
    OutOfMemoryReport report;
    report.memory = "pinned host memory for " + device_->device().toString();
    report.requested = size;
    report.allocated = static_cast<size_t>(allocated_bytes_.current);
    report.reserved = static_cast<size_t>(reserved_bytes_.current);
    report.retried = retried;
    report.detail = detail;
    throwOutOfMemory("DevicePinnedHostAllocator::allocate", report);
}

void DevicePinnedHostAllocator::deallocate(Block *block) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    ++frees_;
    block->in_use = false;
    add(allocated_bytes_, -static_cast<int64_t>(block->size));
    add(allocations_, -1);
    events_.recordLocked(block, block->streams);
    block->streams.clear();
    if (block->pending_events == 0) {
        cacheLocked(block);
    }
}

void DevicePinnedHostAllocator::cacheLocked(Block *block) {
    add(active_bytes_, -static_cast<int64_t>(block->size));
    try {
        free_[block->size_class].push_back(block);
    } catch (...) {
        // No room to remember it as free: give it back to the host instead.
        (void)device_->freeHost(block->ptr);
        ++host_frees_;
        add(reserved_bytes_, -static_cast<int64_t>(block->size));
        add(segments_, -1);
        blocks_.erase(reinterpret_cast<uintptr_t>(block->ptr));
    }
}

void DevicePinnedHostAllocator::processEventsLocked(bool wait) {
    events_.processLocked(wait, [this](Block *block) { cacheLocked(block); });
}

void DevicePinnedHostAllocator::releaseCachedLocked() {
    for (auto &list : free_) {
        for (Block *block : list) {
            (void)device_->freeHost(block->ptr);
            ++host_frees_;
            add(reserved_bytes_, -static_cast<int64_t>(block->size));
            add(segments_, -1);
            blocks_.erase(reinterpret_cast<uintptr_t>(block->ptr));
        }
        list.clear();
    }
}

void DevicePinnedHostAllocator::recordStream(Block *block, infinirtStream_t stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::find(block->streams.begin(), block->streams.end(), stream) == block->streams.end()) {
        block->streams.push_back(stream);
    }
}

bool DevicePinnedHostAllocator::recordStream(const void *ptr, infinirtStream_t stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto address = reinterpret_cast<uintptr_t>(ptr);
    auto it = blocks_.upper_bound(address);
    if (it == blocks_.begin()) {
        return false;
    }
    Block *block = std::prev(it)->second.get();
    if (!block->in_use || address >= std::prev(it)->first + block->size) {
        return false;
    }
    if (std::find(block->streams.begin(), block->streams.end(), stream) == block->streams.end()) {
        block->streams.push_back(stream);
    }
    return true;
}

void DevicePinnedHostAllocator::processEvents() {
    std::lock_guard<std::mutex> lock(mutex_);
    processEventsLocked(false);
}

void DevicePinnedHostAllocator::trim() {
    std::lock_guard<std::mutex> lock(mutex_);
    processEventsLocked(true);
    releaseCachedLocked();
}

MemoryStats DevicePinnedHostAllocator::stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    MemoryStats s;
    s.allocated_bytes = allocated_bytes_;
    s.reserved_bytes = reserved_bytes_;
    s.active_bytes = active_bytes_;
    s.allocations = allocations_;
    s.segments = segments_;
    s.num_allocs = allocs_;
    s.num_frees = frees_;
    s.num_cache_hits = cache_hits_;
    s.num_device_allocs = host_allocs_;
    s.num_device_frees = host_frees_;
    s.num_alloc_retries = retries_;
    s.num_ooms = ooms_;
    return s;
}

void DevicePinnedHostAllocator::resetPeakStats() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (MemoryStat *stat : {&allocated_bytes_, &reserved_bytes_, &active_bytes_, &allocations_, &segments_}) {
        resetPeak(*stat);
    }
}

} // namespace infinicore::detail
