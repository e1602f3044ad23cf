#include "infinicore/memory.hpp"

#include <utility>

namespace infinicore {

Memory::Memory(std::byte *data, size_t size, Device device, Deleter deleter, bool pin_memory)
    : data_(data), size_(size), device_(device), deleter_(std::move(deleter)), is_pinned_(pin_memory) {}

Memory::~Memory() {
    if (deleter_) {
        deleter_(data_);
    }
}

} // namespace infinicore
