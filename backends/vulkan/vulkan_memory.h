// The vulkan block record (vulkan_memory.cpp): every live allocation of this plugin, one VkBuffer
// each, found from any address inside it. Device memory is recorded by its buffer device address,
// pinned host memory (MallocHost) by its mapped host address, in two maps: on lavapipe the two
// address spaces are one, and a pointer's meaning depends on which map holds it.
#pragma once

#include "vulkan_native_api.h"

#include <cstddef>
#include <cstdint>

namespace infinirt::vulkan {

struct Allocation {
    int device = 0;
    size_t size = 0;
    bool host = false; // pinned host memory (mapped); device memory otherwise
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    uint64_t address = 0;  // the buffer's device address (for device memory, the pointer given out)
    bool reserved = false; // device memory whose address range this plugin reserved in the host's (see mallocDevice)
};

// An address inside an allocation: the allocation, where it starts and the offset in its buffer.
struct Located {
    Allocation allocation;
    uintptr_t base = 0;
    size_t offset = 0;
};

// The device memory holding `ptr` (a buffer device address, interior ones included); false if none.
bool findDeviceMemory(const void *ptr, Located *found);

// The pinned host memory holding `ptr`; false if none.
bool findHostMemory(const void *ptr, Located *found);

} // namespace infinirt::vulkan
