// ContextImpl: the process's one context. Owns one Runtime per device, each created on the first
// call that needs its device (never for devices the process does not use), and the host
// allocator of allocateHostMemory.
//
// The current device is the C ABI's (infinirtGetDevice / infinirtSetDevice, per thread); each
// thread memoises the runtime of its current device and checks the memo against the C ABI on
// every call, so the two layers can never disagree.
//
// A reset of a device (infinirtDeviceReset, whoever calls it) restarts its runtime (Runtime::restart),
// through the callback the context adds when it is created.
//
// Lifetime: created on first use and never destroyed (blocks and threads may outlive static
// destruction). Thread safety: every method may be called from any thread; runtimes are found
// without locking once created.
#ifndef INFINICORE_CORE_CONTEXT_IMPL_HPP
#define INFINICORE_CORE_CONTEXT_IMPL_HPP

#include "host_allocator.hpp"
#include "runtime.hpp"

#include <atomic>
#include <memory>
#include <mutex>

namespace infinicore::detail {

class ContextImpl {
public:
    static ContextImpl &instance();

    // The calling thread's current device, as the C ABI reports it.
    Device currentDevice();
    // The runtime of the current device, created if needed (with the context).
    static Runtime &current();
    // Created if needed. Throws Error for a device that does not exist.
    Runtime &runtime(Device device);
    // nullptr if not created yet; throws for a device that does not exist.
    Runtime *find(Device device);
    // Throws Error (DEVICE_TYPE_NOT_SUPPORTED / DEVICE_NOT_FOUND, with what exists) unless
    // `device` exists; `call` names the caller in the message.
    void validate(Device device, const std::string &call);
    size_t deviceCount(Device::Type type);

    HostAllocator &hostAllocator() { return host_; }

    // Calls f(Runtime &) for every runtime created so far.
    template <typename F>
    void forEachRuntime(F f) {
        for (auto &entry : types_) {
            if (Slots *slots = entry.load(std::memory_order_acquire)) {
                for (int i = 0; i < slots->count; ++i) {
                    if (Runtime *rt = slots->runtimes[i].load(std::memory_order_acquire)) {
                        f(*rt);
                    }
                }
            }
        }
    }

private:
    ContextImpl() = default;

    // The runtimes of one device type, sized by its device count at first use.
    struct Slots {
        int count = 0;
        std::unique_ptr<std::atomic<Runtime *>[]> runtimes;
    };
    Slots &slots(Device::Type type);
    // current() when the thread's memo names another device (or none yet): finds the runtime
    // and remembers it.
    static Runtime &rememberCurrent(infiniDevice_t type, int index);

    std::atomic<Slots *> types_[static_cast<int>(Device::Type::COUNT)] = {};
    std::mutex mutex_; // creation of slots and runtimes
    HostAllocator host_;
};

} // namespace infinicore::detail

#endif // INFINICORE_CORE_CONTEXT_IMPL_HPP
