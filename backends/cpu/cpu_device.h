// A cpu device's state (cpu_device.cpp): its memory budget, its streams, its default stream and
// its kernel worker pool. Owned by the global state and never deleted (the lifetime rule in
// cpu_backend.h); every member is thread-safe.
#ifndef INFINIRT_CPU_DEVICE_H
#define INFINIRT_CPU_DEVICE_H

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace infinirt::cpu {

class Stream;
class Pool;

struct Device {
    int index = 0;
    // Bytes of live device blocks; only kept (and only limited) under INFINIRT_CPU_MEMORY_LIMIT.
    std::atomic<size_t> live_bytes{0};
    // Every live stream of the device, the default one included, for device_synchronize.
    std::mutex streams_mutex;
    std::vector<std::shared_ptr<Stream>> streams;
    // Created on first use (resolveStream() in cpu_stream.cpp), then never destroyed.
    std::atomic<Stream *> default_stream{nullptr};
    std::mutex default_stream_mutex;
    // The kernel worker pool, created by the first launch that needs it (ensurePool() in
    // cpu_launch.cpp), then never destroyed.
    std::atomic<Pool *> pool{nullptr};
    std::mutex pool_mutex;
    // INFINIRT_LIMIT_STACK_SIZE: the stack of pool threads started from now on; 0 until set
    // (the system's default).
    std::atomic<size_t> pool_stack_bytes{0};
};

// Valid after init(); device must be < config().device_count (the loader checks).
Device &deviceState(int device) noexcept;
// Bytes left of the device's INFINIRT_CPU_MEMORY_LIMIT budget; only meaningful under a limit.
size_t budgetLeft(int device) noexcept;
// Waits for every stream of the device (device_synchronize without its failure report; the
// frees use it). Throws std::bad_alloc.
void drainDevice(int device);

} // namespace infinirt::cpu

#endif // INFINIRT_CPU_DEVICE_H
