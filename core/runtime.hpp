// Runtime: what the context keeps for one device: its context stream and its allocators
// (cpu: HostAllocator; any other type: DeviceCachingAllocator and DevicePinnedHostAllocator).
//
// Created by ContextImpl on the first use of its device, then lives until the process exits
// (never destroyed: blocks may be freed by static destructors and thread exits at any time).
// After infinirtDeviceReset of its device it starts afresh (restart()): a new context stream and
// new allocators; the old allocators forget the device's blocks (ResettableDevice) and take back
// the blocks still handed out without reusing or freeing them. Like the runtime, allocators are
// never destroyed.
// Thread safety: every method may be called from any thread.
#ifndef INFINICORE_CORE_RUNTIME_HPP
#define INFINICORE_CORE_RUNTIME_HPP

#include "device_caching_allocator.hpp"
#include "device_pinned_host_allocator.hpp"

#include <vector>
#include "host_allocator.hpp"
#include "resettable_device.hpp"
#include "infinicore/memory.hpp"

#include <atomic>
#include <memory>
#include <mutex>

namespace infinicore::detail {

class Runtime {
public:
    // Creates the context stream on `device`. Throws Error.
    explicit Runtime(Device device);
    Runtime(const Runtime &) = delete;
    Runtime &operator=(const Runtime &) = delete;

    Device device() const { return device_; }
    infinirtStream_t stream() const { return stream_.load(std::memory_order_acquire); }

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

    // The device was reset (everything infinirt made on it is gone): starts afresh as above.
    // Never throws; a stream that cannot be made leaves the old one (dead: calls on it fail).
    void restart() noexcept;

private:
    // allocateMemory of a cpu device: host memory whose free waits for the context stream.
    std::shared_ptr<Memory> allocateHostBacked(size_t size);
    // New allocators over a new ResettableDevice (not for cpu, whose memory is the host's).
    void makeAllocators(const AllocatorConfig &config);

    const Device device_;
    std::atomic<infinirtStream_t> stream_{nullptr};
    std::unique_ptr<HostAllocator> host_;
    std::mutex restart_mutex_;
    std::shared_ptr<ResettableDevice> raw_; // under restart_mutex_ once constructed
    // Every generation of allocators, the current one last (under restart_mutex_): those of a
    // reset device stay alive, since blocks handed out before the reset still free into them
    // (their ResettableDevice forgets the memory), and go with the runtime.
    std::vector<std::unique_ptr<DeviceCachingAllocator>> caching_generations_;
    std::vector<std::unique_ptr<DevicePinnedHostAllocator>> pinned_generations_;
    // The current generation, read without the lock on the allocation paths.
    std::atomic<DeviceCachingAllocator *> caching_{nullptr};
    std::atomic<DevicePinnedHostAllocator *> pinned_{nullptr};
};

} // namespace infinicore::detail

#endif // INFINICORE_CORE_RUNTIME_HPP
