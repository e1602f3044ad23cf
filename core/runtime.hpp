// Runtime: what the context keeps for one device: its context stream and its allocators
// (cpu: HostAllocator; any other type: DeviceCachingAllocator and DevicePinnedHostAllocator).
//
// Created by ContextImpl on the first use of its device, then lives until the process exits
// (never destroyed: blocks may be freed by static destructors and thread exits at any time).
// Thread safety: every method may be called from any thread.
#ifndef INFINICORE_CORE_RUNTIME_HPP
#define INFINICORE_CORE_RUNTIME_HPP

#include "device_caching_allocator.hpp"
#include "device_pinned_host_allocator.hpp"
#include "host_allocator.hpp"
#include "infinicore/memory.hpp"

#include <memory>

namespace infinicore::detail {

class Runtime {
public:
    // Creates the context stream on `device`. Throws Error.
    explicit Runtime(Device device);
    Runtime(const Runtime &) = delete;
    Runtime &operator=(const Runtime &) = delete;

    Device device() const { return device_; }
    infinirtStream_t stream() const { return stream_; }

    std::shared_ptr<Memory> allocateMemory(size_t size);
    std::shared_ptr<Memory> allocatePinnedHostMemory(size_t size);
    // Records a use by `stream` of the block starting at (device) or containing (pinned host)
    // `ptr`; false if neither allocator holds it.
    bool recordStream(const void *ptr, infinirtStream_t stream);
    // After an asynchronous copy from or to host memory: if it is a pinned block of this device,
    // keep it from being reused before the copy has run.
    void recordHostUse(const void *host_ptr, infinirtStream_t stream);

    void trim();
    MemoryStats memoryStats() const;
    void resetPeakMemoryStats();
    MemorySnapshot memorySnapshot() const;

private:
    const Device device_;
    infinirtStream_t stream_ = nullptr;
    std::unique_ptr<HostAllocator> host_;
    std::unique_ptr<DeviceCachingAllocator> caching_;
    std::unique_ptr<DevicePinnedHostAllocator> pinned_;
};

} // namespace infinicore::detail

#endif // INFINICORE_CORE_RUNTIME_HPP
