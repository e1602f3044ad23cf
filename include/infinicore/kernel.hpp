// infinicore::Kernel: an entry point of a Module, and a launch that builds the C ABI's argument
// array from the types of the call:
//
//     kernel.launch(LaunchConfig{{blocks}, {256}}, stream, dst_ptr, src_ptr, 1.5f, n);
//
// Pointers (T *, nullptr) are POINTER arguments (device addresses); LocalMemory{bytes} is a
// LOCAL argument (per-block shared memory); anything else is passed by value (VALUE, its bytes
// as they are: it must be trivially copyable). A struct passed by value must have the device's
// layout: declare members the device aligns to 16 bytes (float4, ...) with alignas(16)
// (docs/kernels.md). Argument bytes are copied before launch() returns.
//
// Ownership: a Kernel does not own anything; it is valid while its Module lives (afterwards
// every call fails with INVALID_HANDLE). A value type; launch() may be called from many threads.
#ifndef INFINICORE_KERNEL_HPP
#define INFINICORE_KERNEL_HPP

#include "../infinirt.h"
#include "device.hpp"

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace infinicore {

// A LOCAL kernel argument of `bytes` bytes of per-block shared memory.
struct LocalMemory {
    std::size_t bytes;
};

struct Dim3 {
    uint32_t x = 1, y = 1, z = 1;
    Dim3(uint32_t x_ = 1, uint32_t y_ = 1, uint32_t z_ = 1) : x(x_), y(y_), z(z_) {}
};

struct LaunchConfig {
    Dim3 grid;
    Dim3 block;
    std::size_t dynamicSharedBytes = 0;
    uint32_t flags = 0;               // INFINIRT_LAUNCH_COOPERATIVE
    Dim3 cluster{0, 0, 0};            // {0,0,0}: no clusters

    infinirtLaunchConfig_t toC() const {
        infinirtLaunchConfig_t c{};
        c.struct_size = sizeof c;
        c.grid[0] = grid.x, c.grid[1] = grid.y, c.grid[2] = grid.z;
        c.block[0] = block.x, c.block[1] = block.y, c.block[2] = block.z;
        c.dynamic_shared_bytes = dynamicSharedBytes;
        c.flags = flags;
        c.cluster[0] = cluster.x, c.cluster[1] = cluster.y, c.cluster[2] = cluster.z;
        return c;
    }
};

namespace detail {

// One argument of a variadic launch, as the C ABI takes it. `slot` holds a pointer argument's
// address for the duration of the call.
template <class T> infinirtKernelArg_t kernelArg(const T &value, void *&slot) {
    using U = std::decay_t<T>;
    if constexpr (std::is_same_v<U, LocalMemory>) {
        (void)slot;
        return {INFINIRT_KERNEL_ARG_LOCAL, value.bytes, nullptr};
    } else if constexpr (std::is_pointer_v<U> || std::is_null_pointer_v<U>) {
        slot = const_cast<void *>(static_cast<const void *>(value));
        return {INFINIRT_KERNEL_ARG_POINTER, sizeof(void *), &slot};
    } else {
        static_assert(std::is_trivially_copyable_v<U>, "kernel arguments passed by value must be trivially copyable");
        (void)slot;
        return {INFINIRT_KERNEL_ARG_VALUE, sizeof(U), &value};
    }
}

} // namespace detail

class __export Kernel {
public:
    Kernel() = default;
    Kernel(infinirtKernel_t kernel, Device device) : kernel_(kernel), device_(device) {}

    // Launches with the arguments of the call (see the top of this file) on `stream` (nullptr:
    // the calling thread's context stream, which must be on this kernel's device).
    template <class... Args> void launch(const LaunchConfig &config, infinirtStream_t stream, const Args &...args) const {
        constexpr std::size_t n = sizeof...(Args);
        [[maybe_unused]] void *slots[n > 0 ? n : 1] = {};
        [[maybe_unused]] std::size_t i = 0;
        infinirtKernelArg_t list[n > 0 ? n : 1] = {detail::kernelArg(args, slots[i++])...};
        launchRaw(config.toC(), n > 0 ? list : nullptr, static_cast<uint32_t>(n), stream);
    }
    // The C ABI's argument list as it is.
    void launchRaw(const infinirtLaunchConfig_t &config, const infinirtKernelArg_t *args, uint32_t num_args,
                   infinirtStream_t stream) const;

    int64_t attribute(infinirtKernelAttribute_t attr) const;
    void setAttribute(infinirtKernelAttribute_t attr, int64_t value) const;

    Device device() const { return device_; }
    infinirtKernel_t get() const { return kernel_; }

private:
    infinirtKernel_t kernel_ = nullptr;
    Device device_;
};

} // namespace infinicore

#endif // INFINICORE_KERNEL_HPP
