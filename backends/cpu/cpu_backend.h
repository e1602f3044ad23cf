// Private declarations shared by the files of the cpu backend (namespace infinirt::cpu). Nothing
// here crosses the plugin boundary: the loader sees only the table built in cpu_plugin.cpp, where
// every entry declared below is installed inside the exception guard of backends/common.
//
// Lifetime rule for the whole backend: global state (configuration, devices, streams that were
// never destroyed, each device's kernel worker pool) is created with `new` and never deleted.
// Worker threads may still be blocked on it while the process exits, so no static destructor may
// free or join anything.
//
// Kernel failures: a cpu kernel that returns non-zero from a block fails its launch. The stream
// remembers the first such failure (kernel name, block id, returned value) and its next
// synchronising call on it -- stream_synchronize, event_synchronize of an event recorded after the
// launch, device_synchronize -- returns INFINI_STATUS_DRIVER_ERROR ("a native call failed": here
// the native call is the kernel) with the detail "kernel <name> failed in block (x,y,z) with <v>".
// It is reported once, then cleared. The launch's remaining blocks may be skipped.
#ifndef INFINIRT_CPU_BACKEND_H
#define INFINIRT_CPU_BACKEND_H

#include "infinirt_cpu_kernel.h"
#include "common/plugin_table.hpp"
#include "infinirt_plugin.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace infinirt::cpu {

class Stream;
class Event;
class Module;
class Pool;
struct LaunchRecord;

constexpr int kMaxDevices = 64;
// Alignment of every block malloc_device/malloc_host return: a cache line, enough for any
// vector load the host can do.
constexpr size_t kAlignment = 64;

// The buffers one thread uses to run a launch's blocks (cpu_launch.cpp): the scratch
// (dynamic_shared_bytes + LOCAL sizes) and the argument pointer array (the args, then one void *
// per LOCAL argument). Grown when a launch needs more, never shrunk. Owned by whoever owns the
// thread -- a stream (its worker is a launch's owner) or the device's pool (one per pool thread)
// -- not thread_local, so that no thread's TLS holds heap memory (LeakSanitizer then scans TLS
// without trouble).
struct BlockBuffers {
    void *scratch = nullptr;
    size_t scratch_capacity = 0;
    void **slots = nullptr;
    size_t slot_capacity = 0;

    BlockBuffers() = default;
    BlockBuffers(const BlockBuffers &) = delete;
    BlockBuffers &operator=(const BlockBuffers &) = delete;
    ~BlockBuffers();
    // Room for `scratch_bytes` of scratch and `slot_count` pointers; false if memory ran out.
    bool reserve(size_t scratch_bytes, size_t slot_count) noexcept;
};

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
bool spinUntil(Done done, std::chrono::microseconds limit = kSpin) noexcept;

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

constexpr int kMaxWorkers = 4096;

// One cpu device. Owned by the global state, never deleted; every member is thread-safe.
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
};

// Valid after init(); device must be < config().device_count (the loader checks).
const Config &config() noexcept;
Device &deviceState(int device) noexcept;
// Bytes left of the device's INFINIRT_CPU_MEMORY_LIMIT budget; only meaningful under a limit.
size_t budgetLeft(int device) noexcept;
// Waits for every stream of the device (device_synchronize without its failure report; the
// frees use it). Throws std::bad_alloc.
void drainDevice(int device);
// MemAvailable from /proc/meminfo (sysinfo freeram if unreadable), in bytes.
size_t systemAvailableMemory() noexcept;

// The table's init: reads the environment and the system once; later calls do nothing.
// Thread-safe. Failure (out of memory) leaves the state unset.

infinirtPluginGetDeviceCountFn getDeviceCount;
infinirtPluginGetDevicePropertiesFn getDeviceProperties;
infinirtPluginSetDeviceFn setDevice;
infinirtPluginDeviceSynchronizeFn deviceSynchronize;
infinirtPluginGetMemInfoFn getMemInfo;

// ---- memory (cpu_memory.cpp) ----------------------------------------------------------------

// Frees a block from malloc_device/malloc_host/malloc_async and returns its bytes to its
// device's budget. Also run by stream workers for free_async. Never fails.
void releaseBlock(void *ptr) noexcept;

infinirtPluginMallocDeviceFn mallocDevice;
infinirtPluginFreeDeviceFn freeDevice;
infinirtPluginMallocHostFn mallocHost;
infinirtPluginFreeHostFn freeHost;
infinirtPluginMemcpySyncFn memcpySync;
infinirtPluginMemcpyAsyncFn memcpyAsync;
infinirtPluginMemsetSyncFn memsetSync;
infinirtPluginMemsetAsyncFn memsetAsync;
infinirtPluginMallocAsyncFn mallocAsync;
infinirtPluginFreeAsyncFn freeAsync;

// ---- streams (cpu_stream.cpp) ---------------------------------------------------------------
// A cpu stream: an in-order queue of tasks run by one worker thread of its own.
//
// Progress is tracked with two counters: submit() numbers each task (1, 2, ...) and the worker
// publishes how many have completed. "Everything up to task n has run" is then one atomic
// comparison, which is what event_query, stream_query and cross-stream waits need.

// A launch's copy of its config and arguments, in one allocation (cpu_launch.cpp). Owned by its
// task; holds a reference to the kernel's module.
struct LaunchDeleter {
    void operator()(LaunchRecord *launch) const noexcept;
};
using LaunchPtr = std::unique_ptr<LaunchRecord, LaunchDeleter>;

// One unit of stream work. Holds references that keep the event it marks, the stream it waits
// for or the module it launches from alive until it has run.
struct Task {
    enum class Kind : uint8_t { Copy, Fill, Release, Mark, Wait, Launch };
    Kind kind = Kind::Copy;
    void *dst = nullptr;       // Copy, Fill, Release: the destination / block
    const void *src = nullptr; // Copy
    size_t size = 0;           // Copy, Fill
    int value = 0;             // Fill
    uint64_t number = 0;       // Mark: the event's recording generation; Wait: the task awaited
    std::shared_ptr<Event> event;   // Mark
    std::shared_ptr<Stream> stream; // Wait: the stream whose task `number` must have run
    LaunchPtr launch;               // Launch
};

// Thread-safe: any member may be called from any thread, except that shutdown() is called once
// (by stream_destroy) and nothing may be submitted during or after it. Owned through
// shared_ptr: by its device's stream list while it is alive, and by events recorded on it and
// wait tasks that refer to it.
class Stream : public std::enable_shared_from_this<Stream> {
public:
    explicit Stream(int device) : device_(device) {}
    Stream(const Stream &) = delete;
    Stream &operator=(const Stream &) = delete;
    // The worker was joined by shutdown() or never started: a stream is only released by
    // stream_destroy, and default streams never are.
    ~Stream() = default;

    int device() const noexcept { return device_; }

    // Enqueues `task` and returns its number. Starts the worker on first use. Throws
    // std::bad_alloc / std::system_error (the task is not queued then).
    uint64_t submit(Task &&task);

    // True once every task up to `number` has run.
    bool reached(uint64_t number) const noexcept { return completed_.load(std::memory_order_acquire) >= number; }
    bool idle() const noexcept {
        return completed_.load(std::memory_order_acquire) >= submitted_.load(std::memory_order_acquire);
    }
    // Blocks until every task up to `number` has run.
    void wait(uint64_t number);
    // Blocks until every task submitted before the call has run; returns the last such task's
    // number.
    uint64_t synchronize() {
        const uint64_t number = submitted_.load(std::memory_order_acquire);
        wait(number);
        return number;
    }
    // Drains the queue, then stops and joins the worker.
    void shutdown();

    // Kernel failures (see the top of this file). Called by the worker running task `number`:
    // keeps `text` unless an unreported failure is already kept.
    void noteFailure(uint64_t number, const char *text) noexcept;
    bool hasFailure() const noexcept { return has_failure_.load(std::memory_order_acquire); }
    // If the kept failure comes from a task up to `up_to`: clears it and returns
    // INFINI_STATUS_DRIVER_ERROR with the detail "<entry>: <text>"; else SUCCESS.
    infiniStatus_t takeFailure(uint64_t up_to, const char *entry) noexcept;

    // The worker's buffers for the blocks of the launches it owns (only the worker touches them).
    BlockBuffers &blockBuffers() noexcept { return block_buffers_; }

private:
    void run() noexcept;
    void push(Task &&task);
    Task pop() noexcept;

    const int device_;
    std::mutex mutex_;
    std::condition_variable work_ready_; // worker sleeps here while the queue is empty
    std::condition_variable progress_;   // wait() sleeps here
    // Ring buffer of pending tasks (grown by doubling, never shrunk, so steady submission does
    // not allocate). Guarded by mutex_.
    std::vector<Task> ring_;
    size_t head_ = 0;
    size_t count_ = 0;
    bool worker_sleeping_ = false;
    bool stopping_ = false;
    int waiters_ = 0;
    std::thread worker_;
    // Written under mutex_, read without it.
    std::atomic<uint64_t> submitted_{0};
    std::atomic<uint64_t> completed_{0};
    // The kept kernel failure; has_failure_ is read without the mutex.
    std::atomic<bool> has_failure_{false};
    std::mutex failure_mutex_;
    uint64_t failure_number_ = 0;
    char failure_text_[256] = {};
    BlockBuffers block_buffers_;
};

// The stream a plugin call names: `stream` itself, or the device's default stream (created on
// first use) when it is NULL. Throws std::bad_alloc.
Stream &resolveStream(int device, void *stream);
// The device's default stream if it was ever created, else nullptr (then it has no work).
Stream *existingDefaultStream(int device) noexcept;

infinirtPluginStreamCreateFn streamCreate;
infinirtPluginStreamDestroyFn streamDestroy;
infinirtPluginStreamSynchronizeFn streamSynchronize;
infinirtPluginStreamQueryFn streamQuery;
infinirtPluginStreamWaitEventFn streamWaitEvent;

// ---- events (cpu_event.cpp) -----------------------------------------------------------------
// A cpu event: a marker task on a stream. Recording enqueues the marker and remembers which task
// of which stream it is; the event is complete once that stream's worker has run it, and the
// marker takes the event's timestamp (steady_clock) at that moment.
//
// Each recording gets a generation number, so a marker left over from an earlier recording
// (re-recording while it was still queued) cannot overwrite the newer recording's timestamp.

// Thread-safe. Owned through shared_ptr: by its handle (owner_, released by event_destroy) and
// by the marker tasks still queued for it, so destroying an event with a pending recording is
// safe.
class Event : public std::enable_shared_from_this<Event> {
public:
    using Clock = std::chrono::steady_clock;

    // A recording: task `number` of `stream`. stream is null if the event was never recorded.
    struct Recording {
        std::shared_ptr<Stream> stream;
        uint64_t number = 0;
    };

    // What event_elapsed_time needs, read in one lock.
    struct Timing {
        bool timed = false;    // created without DISABLE_TIMING
        bool recorded = false; // recorded at least once
        bool complete = false; // its last recording has run
        Clock::time_point stamp;
    };

    Event(int device, uint32_t flags) : device_(device), flags_(flags) {}
    Event(const Event &) = delete;
    Event &operator=(const Event &) = delete;

    // Creates an event whose handle holds the owning reference; release it with
    // destroyHandle(). Throws std::bad_alloc.
    static Event *create(int device, uint32_t flags);
    // Drops the handle's reference; the object lives on while markers for it are queued.
    void destroyHandle() noexcept;

    int device() const noexcept { return device_; }

    // Makes the event's current recording a new marker on `stream`. Throws (bad_alloc,
    // system_error) without changing the event.
    void record(Stream &stream);
    // True if never recorded or the last recording has run.
    bool complete() const noexcept;
    // Blocks until the recording current at the call has run; then reports (and clears) a kernel
    // failure its stream kept from a task up to the recording (Stream::takeFailure).
    infiniStatus_t synchronize();
    Recording current() const;
    Timing timing() const noexcept;
    // Called by the worker when the marker of recording `generation` runs.
    void onMarker(uint64_t generation) noexcept;

private:
    const int device_;
    const uint32_t flags_;
    std::shared_ptr<Event> owner_; // the handle's reference
    mutable std::mutex mutex_;
    uint64_t generation_ = 0; // recordings made so far
    Recording recording_;     // the last one
    Clock::time_point stamp_; // set when the last recording's marker ran
};

infinirtPluginEventCreateFn eventCreate;
infinirtPluginEventDestroyFn eventDestroy;
infinirtPluginEventRecordFn eventRecord;
infinirtPluginEventQueryFn eventQuery;
infinirtPluginEventSynchronizeFn eventSynchronize;
infinirtPluginEventElapsedTimeFn eventElapsedTime;

// ---- modules (cpu_module.cpp) ---------------------------------------------------------------
// A module is a host shared object (format HOST_SO) loaded from memory: the image is written to a
// memfd (or, without memfd, a private temporary file, unlinked once loaded) and dlopen'ed with
// RTLD_NOW | RTLD_LOCAL. Its kernels are exported functions of type infinirtCpuKernel_t, its
// globals exported data objects. What the object exports is read from the image's ELF dynamic
// symbol table, so that a name is only found if the object itself defines it (dlsym would also
// search its dependencies) and of the right kind, and so that a miss can list names that exist.

// MAX_DYNAMIC_SHARED_BYTES of a kernel until kernel_set_attribute raises it, and the most it can
// be raised to (the per-worker scratch is host memory; this bounds what one launch reserves on
// every worker).
constexpr size_t kDefaultDynamicShared = 48 * 1024;
constexpr size_t kMaxDynamicShared = 1024 * 1024;

// An entry point of a module. Owned by its module; its address is the plugin's kernel object.
struct Kernel {
    Module *module = nullptr;
    infinirtCpuKernel_t function = nullptr;
    std::string name;
    std::atomic<size_t> max_dynamic_shared{kDefaultDynamicShared};
};

// What the image's ELF dynamic symbol table says about one defined, exported symbol.
struct ExportedSymbol {
    bool function = false; // STT_FUNC / STT_GNU_IFUNC; else a data object (STT_OBJECT / STT_COMMON)
    size_t size = 0;       // st_size
};

// Thread-safe. Owned through shared_ptr: by its handle (released by module_unload) and by every
// launch still queued from it; the object is dlclose'd when the last reference goes.
class Module : public std::enable_shared_from_this<Module> {
public:
    Module(int device, void *library, int fd, std::string path)
        : device_(device), library_(library), fd_(fd), path_(std::move(path)) {}
    Module(const Module &) = delete;
    Module &operator=(const Module &) = delete;
    // dlclose; then closes the memfd unless the object is still mapped (see cpu_module.cpp).
    ~Module();

    int device() const noexcept { return device_; }
    void *library() const noexcept { return library_; }

    // Makes `module`'s handle reference; release it with destroyHandle().
    static Module *adopt(std::shared_ptr<Module> module) noexcept;
    // Drops the handle's reference; the object lives on while launches from it are queued.
    void destroyHandle() noexcept;

    // Filled once by module_load, read-only afterwards. symbols_readable is false when the image
    // has no section headers (then any name dlsym finds is accepted).
    std::unordered_map<std::string, ExportedSymbol> symbols;
    std::vector<std::string> function_names; // sorted, for SYMBOL_NOT_FOUND messages
    bool symbols_readable = false;

    // The kernel for `name`, one per name. Throws std::bad_alloc.
    Kernel *kernel(const std::string &name, infinirtCpuKernel_t function);

private:
    const int device_;
    void *const library_;
    const int fd_;           // the memfd the object was loaded from, or -1
    const std::string path_; // the path dlopen was given
    std::shared_ptr<Module> owner_;
    std::mutex kernels_mutex_;
    std::unordered_map<std::string, std::unique_ptr<Kernel>> kernels_;
};

infinirtPluginModuleLoadFn moduleLoad;
infinirtPluginModuleUnloadFn moduleUnload;
infinirtPluginModuleGetKernelFn moduleGetKernel;
infinirtPluginModuleGetGlobalFn moduleGetGlobal;
infinirtPluginKernelGetAttributeFn kernelGetAttribute;
infinirtPluginKernelSetAttributeFn kernelSetAttribute;

// ---- launches (cpu_launch.cpp) --------------------------------------------------------------
// A launch is one Launch task. The stream's worker runs it: a 1-block launch (or any launch when
// there is one worker) on its own; otherwise it posts the launch to a slot of the device's pool
// and runs blocks alongside the pool's threads, blocks handed out in chunks by an atomic counter,
// until the last one is done. Each thread has its BlockBuffers (the stream's for its worker, the
// pool's for each pool thread), reused for every block it runs.

// Called by the stream's worker for task `number`. Returns after the launch's last block.
void runLaunch(const LaunchRecord &launch, Stream &stream, uint64_t number) noexcept;

infinirtPluginLaunchKernelFn launchKernel;

// ---- peers (cpu_peer.cpp) --------------------------------------------------------------------
// Every cpu device is the same host memory: access is always possible (enable/disable only keep
// the state the caller set), copies between devices are Copy tasks on the stream named, and a
// stream waits for another device's event with a Wait task.

infinirtPluginDeviceCanAccessPeerFn deviceCanAccessPeer;
infinirtPluginDeviceGetPeerAttributeFn deviceGetPeerAttribute;
infinirtPluginDeviceEnablePeerAccessFn deviceEnablePeerAccess;
infinirtPluginDeviceDisablePeerAccessFn deviceDisablePeerAccess;
infinirtPluginMemcpyPeerAsyncFn memcpyPeerAsync;
infinirtPluginStreamWaitPeerEventFn streamWaitPeerEvent;

// ---- template definitions --------------------------------------------------------------------

template <class Done>
bool spinUntil(Done done, std::chrono::microseconds limit) noexcept {
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

} // namespace infinirt::cpu

namespace infinirt::cpu {
// Every entry of the list (include/infinirt_plugin.h), by its impl name; cpu_plugin.cpp installs
// those defined here and names the ones left NULL.
INFINIRT_COMMON_DECLARE_ENTRIES();
} // namespace infinirt::cpu

// The hot entries' guards live beside their definitions (common/entry_guard.hpp).
INFINIRT_COMMON_HOT_ENTRIES(infinirt::cpu);

#endif // INFINIRT_CPU_BACKEND_H
