// infinicore::Memory: one block of memory owned through a deleter.
//
// Ownership: the Memory owns [data(), data() + size()) and hands it back to whoever allocated it
// (through the deleter, or the destructor of a subclass built without one) when destroyed. Not
// copyable or movable: share it with shared_ptr, as the context does. Thread safety: the accessors
// are const and safe from any thread; destruction may happen on any thread.
#ifndef INFINICORE_MEMORY_HPP
#define INFINICORE_MEMORY_HPP

#include "device.hpp"

#include <cstddef>
#include <functional>

namespace infinicore {

class __export Memory {
public:
    // Called once with data() when the Memory dies; must not throw.
    using Deleter = std::function<void(std::byte *)>;

    Memory(std::byte *data, size_t size, Device device, Deleter deleter, bool pin_memory = false);
    ~Memory();

    Memory(const Memory &) = delete;
    Memory &operator=(const Memory &) = delete;

    std::byte *data() const { return data_; }
    size_t size() const { return size_; }
    Device device() const { return device_; }
    // True for page-locked host memory usable in asynchronous copies with device().
    bool isPinned() const { return is_pinned_; }

    // The name before the C++ layer settled on lowerCamelCase; it forwards to the new one.
    [[deprecated("use isPinned")]] bool is_pinned() const { return isPinned(); }

protected:
    // For a subclass that hands the block back in its own destructor (which must not throw):
    // no deleter is kept or called. Waits for nothing; the block is not checked.
    struct FreedBySubclass {};
    Memory(FreedBySubclass, std::byte *data, size_t size, Device device, bool pin_memory) noexcept
        : data_(data), size_(size), device_(device), is_pinned_(pin_memory) {}

private:
    std::byte *data_;
    size_t size_;
    Device device_;
    Deleter deleter_;
    bool is_pinned_;
};

} // namespace infinicore

#endif // INFINICORE_MEMORY_HPP
