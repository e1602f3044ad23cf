// Private declarations shared by the files of the cpu backend (namespace infinirt::cpu): the
// backend's configuration, the helpers every file uses, and the plugin entries. Nothing here
// crosses the plugin boundary: the loader sees only the table built in cpu_plugin.cpp, where
// every entry declared below is installed inside the exception guard of backends/common. The
// backend's objects have a header each: cpu_device.h, cpu_memory.h, cpu_stream.h, cpu_event.h,
// cpu_module.h, cpu_launch.h.
//
// Lifetime rule for the whole backend: global state (configuration, devices, streams that were
// never destroyed, each device's kernel worker pool) is created with `new` and never deleted.
// Worker threads may still be blocked on it while the process exits, so no static destructor may
// free or join anything.
#ifndef INFINIRT_CPU_BACKEND_H
#define INFINIRT_CPU_BACKEND_H

#include "common/plugin_table.hpp"
#include "infinirt_plugin.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace infinirt::cpu {

constexpr int kMaxDevices = 64;
constexpr int kMaxWorkers = 4096;

// ---- configuration (cpu_device.cpp) -----------------------------------------------------------

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
    // Threads that run a launch's blocks: the stream's own worker plus workers - 1 threads of the
    // device's pool. INFINIRT_CPU_WORKERS (1..kMaxWorkers), else the CPUs this process may run on.
    int workers = 1;
    // A kernel's MAX_THREADS_PER_BLOCK: INFINIRT_CPU_MAX_THREADS_PER_BLOCK (1..2^30), else 1024.
    int64_t max_threads_per_block = 1024;
    // PREFERRED_BLOCK_MULTIPLE: 32-bit lanes of the widest vector unit (4, 8 or 16; 1 if unknown).
    int simd_lanes = 1;
    // cpufreq's cpuinfo_max_freq of cpu0 in kHz; 0 where the kernel has no cpufreq (VMs).
    int max_clock_khz = 0;
    // The largest data or unified cache of cpu0 (sysfs cache/index*/size, else sysconf); 0 if unknown.
    size_t largest_cache_bytes = 0;
};

// Valid after init().
const Config &config() noexcept;
// MemAvailable from /proc/meminfo (sysinfo freeram if unreadable), in bytes.
size_t systemAvailableMemory() noexcept;

// ---- polling before sleeping ------------------------------------------------------------------

// How long a waiter, or a worker that ran out of work, polls before sleeping. Synchronising right
// after a small task is common; a futex sleep and wake on each side costs tens of microseconds, a
// short poll catches most such handoffs.
constexpr std::chrono::microseconds kSpin(20);

inline void cpuRelax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

// Polls `done` for up to `limit`; true if it became true. Never polls on a single hardware
// thread, where polling only delays the thread being waited for.
template <class Done>
bool spinUntil(Done done, std::chrono::microseconds limit = kSpin) noexcept {
    if (config().hardware_threads < 2) {
        return false;
    }
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
        for (int i = 0; i < 64; ++i) {
            if (done()) {
                return true;
            }
            cpuRelax();
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return false;
        }
    }
}

// ---- failures (cpu_errors.cpp) --------------------------------------------------------------
// The cpu has no native error codes: what fails is an allocation (an errno from posix_memalign,
// a budget or the physical memory exceeded). Other failures are reported with common::fail, and
// exceptions (std::bad_alloc, std::system_error from a worker's start) by the entry guard.

// A size as allocation messages print it: "600000 bytes (585.9 KiB)", exact for the reader who
// compares with a request, scaled (common::formatBytes) for the one who skims.
struct SizeText {
    char text[48];
    const char *c_str() const noexcept { return text; }
};
SizeText sizeText(size_t bytes) noexcept;

// Sets the thread's error detail "<entry>: cannot allocate <size> on cpu:<device>: <why>, <free>
// free" and returns INFINI_STATUS_OUT_OF_MEMORY.
infiniStatus_t outOfMemory(const char *entry, int device, size_t size, size_t free_bytes, const char *why_format,
                           ...) noexcept __attribute__((format(printf, 5, 6)));

// An allocation call (posix_memalign) that failed with errno value `err`: outOfMemory's detail
// with the why "<call> failed: <NAME> (<err>)" and the system's free memory, and the status the
// errno maps to.
infiniStatus_t allocationFailure(const char *entry, const char *call, int err, int device, size_t size) noexcept;

// ---- devices (cpu_device.cpp) ---------------------------------------------------------------

// ---- the plugin entries ---------------------------------------------------------------------
// Every entry of the list (include/infinirt_plugin.h), by its impl name; cpu_plugin.cpp installs
// those defined and names the ones left NULL. Defined in cpu_device.cpp (init reads the
// environment and the system once, thread-safe; later calls do nothing), cpu_memory.cpp,
// cpu_stream.cpp, cpu_event.cpp, cpu_module.cpp, cpu_launch.cpp and cpu_peer.cpp: every cpu
// device is the same host memory, so peer access is always possible (enable/disable only keep the
// state the caller set), copies between devices are Copy tasks on the stream named, and a stream
// waits for another device's event with a Wait task.
INFINIRT_COMMON_DECLARE_ENTRIES();

} // namespace infinirt::cpu

// The hot entries' guards live beside their definitions (common/entry_guard.hpp).
INFINIRT_COMMON_HOT_ENTRIES(infinirt::cpu);

#endif // INFINIRT_CPU_BACKEND_H
