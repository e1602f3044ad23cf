// Private declarations shared by the files of the cpu backend. Nothing here crosses the plugin
// boundary: the loader sees only the table built in cpu_plugin.cpp.
//
// Lifetime rule for the whole backend: global state (configuration, devices, streams that were
// never destroyed) is created with `new` and never deleted. Worker threads may still be blocked
// on it while the process exits, so no static destructor may free or join anything.
#ifndef INFINIRT_CPU_BACKEND_H
#define INFINIRT_CPU_BACKEND_H

#include "infinirt_plugin.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

namespace infinirt_cpu {

class Stream;

constexpr int kMaxDevices = 64;
// Alignment of every block malloc_device/malloc_host return: a cache line, enough for any
// vector load the host can do.
constexpr size_t kAlignment = 64;

// ---- loader services (cpu_plugin.cpp) -------------------------------------------------------

// Formats the message and hands it to host->set_error (the loader copies it and prefixes the
// backend name). Thread-safe; a no-op when the loader gave no host table.
void report(const char *format, ...) __attribute__((format(printf, 1, 2)));
// Logs through host->log; same rules as report().
void log_message(infinirtLogLevel_t level, const char *format, ...) __attribute__((format(printf, 2, 3)));

// Runs `body` and turns any exception into a status, so none crosses the C boundary:
// std::bad_alloc -> OUT_OF_MEMORY, anything else -> INTERNAL_ERROR with its what() text.
template <class Body>
infiniStatus_t guarded(const char *entry, Body &&body) noexcept {
    try {
        return body();
    } catch (const std::bad_alloc &) {
        report("%s: out of host memory (std::bad_alloc)", entry);
        return INFINI_STATUS_OUT_OF_MEMORY;
    } catch (const std::exception &e) {
        report("%s: %s", entry, e.what());
        return INFINI_STATUS_INTERNAL_ERROR;
    } catch (...) {
        report("%s: unknown exception", entry);
        return INFINI_STATUS_INTERNAL_ERROR;
    }
}

// ---- devices (cpu_device.cpp) ---------------------------------------------------------------

// Read once by init() from the environment; constant afterwards.
struct Config {
    int device_count = 1;       // INFINIRT_CPU_DEVICE_COUNT, 1..kMaxDevices
    size_t memory_limit = 0;    // INFINIRT_CPU_MEMORY_LIMIT in bytes per device; 0 = no limit
    size_t system_memory = 0;   // physical memory (sysinfo) at init
    std::string model_name;     // /proc/cpuinfo "model name", "cpu" if absent
    std::string vendor;         // /proc/cpuinfo "vendor_id", "" if absent
    std::string architecture;   // uname machine
    std::string kernel_release; // uname release, reported as the driver version
    int hardware_threads = 0;
};

// One cpu device. Owned by the global state, never deleted; every member is thread-safe.
struct Device {
    int index = 0;
    // Bytes of live device blocks; only kept (and only limited) under INFINIRT_CPU_MEMORY_LIMIT.
    std::atomic<size_t> live_bytes{0};
    // Every live stream of the device, the default one included, for device_synchronize.
    std::mutex streams_mutex;
    std::vector<std::shared_ptr<Stream>> streams;
    // Created on first use (default_stream() in cpu_stream.cpp), then never destroyed.
    std::atomic<Stream *> default_stream{nullptr};
    std::mutex default_stream_mutex;
};

// Reads the environment and the system once; later calls do nothing. Thread-safe.
// Failure (out of memory) leaves the state unset and returns the status.
infiniStatus_t init_devices() noexcept;
// Valid after init_devices(); device must be < config().device_count (the loader checks).
const Config &config() noexcept;
Device &device_state(int device) noexcept;
// MemAvailable from /proc/meminfo (sysinfo freeram if unreadable), in bytes.
size_t system_available_memory() noexcept;

infiniStatus_t get_device_count(int *count, char *reason, size_t reason_size);
infiniStatus_t get_device_properties(int device, infinirtDeviceProperties_t *props);
infiniStatus_t set_device(int device);
infiniStatus_t device_synchronize(int device);
infiniStatus_t get_mem_info(int device, size_t *free_bytes, size_t *total_bytes);

// ---- memory (cpu_memory.cpp) ----------------------------------------------------------------

// Frees a block from malloc_device/malloc_host/malloc_async and returns its bytes to its
// device's budget. Also run by stream workers for free_async. Never fails.
void release_block(void *ptr) noexcept;

infiniStatus_t malloc_device(int device, void **ptr, size_t size);
infiniStatus_t free_device(int device, void *ptr);
infiniStatus_t malloc_host(int device, void **ptr, size_t size);
infiniStatus_t free_host(int device, void *ptr);
infiniStatus_t memcpy_sync(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind);
infiniStatus_t memcpy_async(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind,
                            void *stream);
infiniStatus_t memset_sync(int device, void *ptr, int value, size_t count);
infiniStatus_t memset_async(int device, void *ptr, int value, size_t count, void *stream);
infiniStatus_t malloc_async(int device, void **ptr, size_t size, void *stream);
infiniStatus_t free_async(int device, void *ptr, void *stream);

// ---- streams (cpu_stream.cpp) ---------------------------------------------------------------

infiniStatus_t stream_create(int device, void **stream);
infiniStatus_t stream_destroy(int device, void *stream);
infiniStatus_t stream_synchronize(int device, void *stream);
infiniStatus_t stream_query(int device, void *stream);
infiniStatus_t stream_wait_event(int device, void *stream, void *event);

// ---- events (cpu_event.cpp) -----------------------------------------------------------------

infiniStatus_t event_create(int device, uint32_t flags, void **event);
infiniStatus_t event_destroy(int device, void *event);
infiniStatus_t event_record(int device, void *event, void *stream);
infiniStatus_t event_query(int device, void *event, infinirtEventStatus_t *status);
infiniStatus_t event_synchronize(int device, void *event);
infiniStatus_t event_elapsed_time(int device, float *ms, void *start, void *end);

} // namespace infinirt_cpu

#endif // INFINIRT_CPU_BACKEND_H
