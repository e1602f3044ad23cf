#include "runtime.hpp"

#include "check.hpp"
#include "device_guard.hpp"

namespace infinicore::detail {

Runtime::Runtime(Device device) : device_(device) {
    {
        DeviceGuard guard(device_);
        check(guard.status(), "infinirtSetDevice");
        check(infinirtStreamCreate(&stream_), "infinirtStreamCreate");
    }
    if (device_.getType() == Device::Type::CPU) {
        host_ = std::make_unique<HostAllocator>();
    } else {
        auto raw = makeInfinirtDevice(device_);
        caching_ = std::make_unique<DeviceCachingAllocator>(raw, AllocatorConfig::fromEnvironment());
        pinned_ = std::make_unique<DevicePinnedHostAllocator>(raw);
    }
}

std::shared_ptr<Memory> Runtime::allocateMemory(size_t size) {
    if (host_) {
        void *ptr = host_->allocate(size);
        HostAllocator *host = host_.get();
        infinirtStream_t stream = stream_;
        try {
            // cpu streams run asynchronously: work queued on the context stream may still use
            // the block, so its free waits for that work, as a device block's reuse would.
            return std::make_shared<Memory>(static_cast<std::byte *>(ptr), size, device_,
                                            [host, size, stream](std::byte *p) {
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
    DeviceCachingAllocator *caching = caching_.get();
    DeviceCachingAllocator::Block *block = caching->allocate(size, stream_);
    try {
        return std::make_shared<Memory>(static_cast<std::byte *>(DeviceCachingAllocator::data(block)), size, device_,
                                        [caching, block](std::byte *) { caching->deallocate(block); });
    } catch (...) {
        caching->deallocate(block);
        throw;
    }
}

std::shared_ptr<Memory> Runtime::allocatePinnedHostMemory(size_t size) {
    if (host_) {
        return allocateMemory(size);
    }
    DevicePinnedHostAllocator *pinned = pinned_.get();
    DevicePinnedHostAllocator::Block *block = pinned->allocate(size);
    try {
        return std::make_shared<Memory>(static_cast<std::byte *>(block->ptr), size, device_,
                                        [pinned, block](std::byte *) { pinned->deallocate(block); }, true);
    } catch (...) {
        pinned->deallocate(block);
        throw;
    }
}

bool Runtime::recordStream(const void *ptr, infinirtStream_t stream) {
    if (caching_ && caching_->recordStream(ptr, stream)) {
        return true;
    }
    return pinned_ && pinned_->recordStream(ptr, stream);
}

void Runtime::recordHostUse(const void *host_ptr, infinirtStream_t stream) {
    if (pinned_) {
        pinned_->recordStream(host_ptr, stream);
    }
}

void Runtime::trim() {
    if (caching_) {
        caching_->trim(true);
    }
    if (pinned_) {
        pinned_->trim();
    }
}

MemoryStats Runtime::memoryStats() const {
    return host_ ? host_->stats() : caching_->stats();
}

void Runtime::resetPeakMemoryStats() {
    if (host_) {
        host_->resetPeakStats();
    } else {
        caching_->resetPeakStats();
        pinned_->resetPeakStats();
    }
}

MemorySnapshot Runtime::memorySnapshot() const {
    return caching_ ? caching_->snapshot() : MemorySnapshot{};
}

} // namespace infinicore::detail
