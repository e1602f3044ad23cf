// A vulkan event (vulkan_event.cpp): the recording stream's timeline semaphore and the value its
// work up to the record signals; a timed event also writes a timestamp query after that work.
#pragma once

#include "vulkan_device.h"
#include "vulkan_native_api.h"

#include <cstdint>
#include <mutex>

namespace infinirt::vulkan {

// Owned by the loader's handle between eventCreate and eventDestroy. Recording and reading may
// happen from different threads, hence the mutex.
struct Event {
    Device *dev = nullptr;
    uint32_t flags = 0; // infinirtEventFlags_t
    // Timed events (no DISABLE_TIMING, on a queue family with timestamps): kSlots timestamp
    // queries used in turn by successive records, so that a record never resets the query an
    // earlier one may still be writing.
    static constexpr uint32_t kSlots = 4;
    VkQueryPool queries = VK_NULL_HANDLE;
    std::mutex mutex;
    uint32_t next_slot = 0;                  // under mutex
    VkSemaphore semaphore = VK_NULL_HANDLE;  // the last record's (NULL: never recorded); under mutex
    uint64_t value = 0;                      // complete once the semaphore reaches it; under mutex
    uint32_t slot = 0;                       // the last record's query; under mutex
};

// What a waiter needs of an event's last record. Semaphores are never destroyed (a destroyed
// stream's is kept for another), so this stays valid after the stream is gone.
struct Recorded {
    VkSemaphore semaphore = VK_NULL_HANDLE; // NULL if never recorded
    uint64_t value = 0;
    uint32_t slot = 0;
};

// The last record.
void snapshot(Event &event, Recorded *out);

} // namespace infinirt::vulkan
