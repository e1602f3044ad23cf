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

#include "check.hpp"
#include "host_allocator.hpp"
#include "runtime.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

namespace infinicore::detail {

// The thread's current device (deviceKey: type in the low half, index in the high half; no device
// has the initial key) and its runtime, as ContextImpl::current() last found them. Plain __thread
// of a trivial type with a constant initialiser, initial-exec: current(), inline, reaches it
// without a TLS wrapper or __tls_get_addr call. Written by context_impl.cpp only.
struct CurrentMemo {
    uint64_t key;
    Runtime *runtime;
};
#if defined(__GNUC__)
extern __thread CurrentMemo t_current __attribute__((tls_model("initial-exec")));
#else
extern thread_local CurrentMemo t_current;
#endif

inline uint64_t deviceKey(infiniDevice_t type, int index) {
    return static_cast<uint32_t>(type) | static_cast<uint64_t>(static_cast<uint32_t>(index)) << 32;
}

class ContextImpl {
public:
    static ContextImpl &instance();

    // The calling thread's current device, as the C ABI reports it.
    Device currentDevice();
    // The runtime of the current device, created if needed (with the context).
    static Runtime &current() {
        infiniDevice_t type = INFINI_DEVICE_CPU;
        int index = 0;
        check(infinirtGetDevice(&type, &index), "infinirtGetDevice");
        const CurrentMemo &memo = t_current;
        if (memo.key == deviceKey(type, index)) {
            return *memo.runtime;
        }
        return rememberCurrent(type, index);
    }
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
