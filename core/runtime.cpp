#include "runtime.hpp"

#include "check.hpp"
#include "device_guard.hpp"
#include "thread_slot_allocator.hpp"

namespace infinicore::detail {

namespace {
infinirtStream_t makeStream(Device device) {
    DeviceGuard guard(device);
    check(guard.status(), "infinirtSetDevice");
    infinirtStream_t stream = nullptr;
    check(infinirtStreamCreate(&stream), "infinirtStreamCreate");
    return stream;
}

// A Memory that frees its block with `Free` (called once with data(), must not throw) instead of
// a Memory::Deleter (it is built with none, in line): the shared_ptr's control block destroys the
// object as this type, so the free runs when the last owner lets go, as a deleter's would, without
// a std::function to build, move, call and destroy.
template <typename Free>
class FreeingMemory final : public Memory {
public:
    FreeingMemory(void *ptr, size_t size, Device device, Free free, bool pinned)
        : Memory(FreedBySubclass(), static_cast<std::byte *>(ptr), size, device, pinned), free_(std::move(free)) {}
    ~FreeingMemory() { free_(data()); }

private:
    Free free_;
};

// A Memory whose shared_ptr control block (Memory included) lives in a recycled slot.
template <typename Free>
std::shared_ptr<Memory> makeMemory(void *ptr, size_t size, Device device, Free free, bool pinned = false) {
    return std::allocate_shared<FreeingMemory<Free>>(ThreadSlotAllocator<FreeingMemory<Free>>(), ptr, size, device,
                                                     std::move(free), pinned);
}
} // namespace

Runtime::Runtime(Device device) : device_(device) {
    stream_.store(makeStream(device_), std::memory_order_release);
    if (device_.getType() == Device::Type::CPU) {
        host_ = std::make_unique<HostAllocator>();
    } else {
        makeAllocators(AllocatorConfig::fromEnvironment());
    }
}

void Runtime::makeAllocators(const AllocatorConfig &config) {
    auto raw = std::make_shared<ResettableDevice>(makeInfinirtDevice(device_));
    auto caching = std::make_unique<DeviceCachingAllocator>(raw, config);
    auto pinned = std::make_unique<DevicePinnedHostAllocator>(raw);
    caching_generations_.reserve(caching_generations_.size() + 1);
    pinned_generations_.reserve(pinned_generations_.size() + 1);
    raw_ = raw;
    caching_.store(caching.get(), std::memory_order_release);
    pinned_.store(pinned.get(), std::memory_order_release);
    caching_generations_.push_back(std::move(caching)); // cannot throw: reserved
    pinned_generations_.push_back(std::move(pinned));
}

void Runtime::restart() noexcept {
    std::lock_guard<std::mutex> lock(restart_mutex_);
    try {
        if (raw_) {
            raw_->markReset();
            makeAllocators(caching_.load(std::memory_order_acquire)->config());
        }
        stream_.store(makeStream(device_), std::memory_order_release);
    } catch (...) {
        // What could not be made stays as it was: calls on a dead stream fail with a message.
    }
}

std::shared_ptr<Memory> Runtime::allocateMemory(size_t size) {
    if (host_) {
        return allocateHostBacked(size);
    }
    DeviceCachingAllocator *caching = caching_.load(std::memory_order_acquire);
    DeviceCachingAllocator::Block *block = caching->allocate(size, stream());
    try {
        return makeMemory(DeviceCachingAllocator::data(block), size, device_,
                          [caching, block](std::byte *) { caching->deallocate(block); });
    } catch (...) {
        caching->deallocate(block);
        throw;
    }
}

std::shared_ptr<Memory> Runtime::allocateHostBacked(size_t size) {
    void *ptr = host_->allocate(size);
    HostAllocator *host = host_.get();
    infinirtStream_t stream = this->stream();
    try {
        // cpu streams run asynchronously: work queued on the context stream may still use the
        // block, so its free waits for that work, as a device block's reuse would.
        return makeMemory(ptr, size, device_, [host, size, stream](std::byte *p) {
            if (infinirtStreamQuery(stream) == INFINI_STATUS_NOT_READY) {
                (void)infinirtStreamSynchronize(stream);
            }
            host->deallocate(p, size);
        });
    } catch (...) {
        host->deallocate(ptr, size);
        throw;
    }
}

std::shared_ptr<Memory> Runtime::allocatePinnedHostMemory(size_t size) {
    if (host_) {
        return allocateMemory(size);
    }
    DevicePinnedHostAllocator *pinned = pinned_.load(std::memory_order_acquire);
    DevicePinnedHostAllocator::Block *block = pinned->allocate(size);
    try {
        return makeMemory(block->ptr, size, device_, [pinned, block](std::byte *) { pinned->deallocate(block); },
                          true);
    } catch (...) {
        pinned->deallocate(block);
        throw;
    }
}

bool Runtime::recordStream(const void *ptr, infinirtStream_t stream) {
    DeviceCachingAllocator *caching = caching_.load(std::memory_order_acquire);
    if (caching != nullptr && caching->recordStream(ptr, stream)) {
        return true;
    }
    DevicePinnedHostAllocator *pinned = pinned_.load(std::memory_order_acquire);
    return pinned != nullptr && pinned->recordStream(ptr, stream);
}

void Runtime::recordHostUse(const void *host_ptr, infinirtStream_t stream) {
    if (DevicePinnedHostAllocator *pinned = pinned_.load(std::memory_order_acquire)) {
        pinned->recordStream(host_ptr, stream);
    }
}

void Runtime::trim() {
    if (DeviceCachingAllocator *caching = caching_.load(std::memory_order_acquire)) {
        caching->trim(true);
    }
    if (DevicePinnedHostAllocator *pinned = pinned_.load(std::memory_order_acquire)) {
        pinned->trim();
    }
}

MemoryStats Runtime::memoryStats() const {
    return host_ ? host_->stats() : caching_.load(std::memory_order_acquire)->stats();
}

void Runtime::resetPeakMemoryStats() {
    if (host_) {
        host_->resetPeakStats();
    } else {
        caching_.load(std::memory_order_acquire)->resetPeakStats();
        pinned_.load(std::memory_order_acquire)->resetPeakStats();
    }
}

MemorySnapshot Runtime::memorySnapshot() const {
    DeviceCachingAllocator *caching = caching_.load(std::memory_order_acquire);
    return caching != nullptr ? caching->snapshot() : MemorySnapshot{};
}

} // namespace infinicore::detail
