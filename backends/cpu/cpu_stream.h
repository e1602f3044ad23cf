// A cpu stream (cpu_stream.cpp): an in-order queue of tasks run by one worker thread of its own.
//
// Progress is tracked with two counters: submit() numbers each task (1, 2, ...) and the worker
// publishes how many have completed. "Everything up to task n has run" is then one atomic
// comparison, which is what event_query, stream_query and cross-stream waits need.
//
// Kernel failures: a cpu kernel that returns non-zero from a block fails its launch. The stream
// remembers the first such failure (kernel name, block id, returned value) and its next
// synchronising call on it -- stream_synchronize, event_synchronize of an event recorded after the
// launch, device_synchronize -- returns INFINI_STATUS_DRIVER_ERROR ("a native call failed": here
// the native call is the kernel) with the detail "kernel <name> failed in block (x,y,z) with <v>".
// It is reported once, then cleared. The launch's remaining blocks may be skipped.
#ifndef INFINIRT_CPU_STREAM_H
#define INFINIRT_CPU_STREAM_H

#include "cpu_launch.h"
#include "infinicore.h"

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace infinirt::cpu {

class Event;
class Stream;

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
    // Stream priorities as CUDA numbers them: 0 (the least, every stream's by default) down to
    // kGreatestPriority. A launch's blocks go to the device's pool by its stream's priority
    // (cpu_launch.cpp); copies and fills run on the stream's own worker, which no other stream
    // shares, so no lower-priority stream's work is ever queued before them.
    static constexpr int kGreatestPriority = -2;
    static constexpr int kLevels = 1 - kGreatestPriority;

    explicit Stream(int device, int priority = 0) : device_(device), priority_(priority) {}
    Stream(const Stream &) = delete;
    Stream &operator=(const Stream &) = delete;
    // The worker was joined by shutdown() or never started: a stream is only released by
    // stream_destroy, and default streams never are.
    ~Stream() = default;

    int device() const noexcept { return device_; }
    // 0 (the least) .. kGreatestPriority; fixed at creation.
    int priority() const noexcept { return priority_; }

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
    const int priority_;
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

} // namespace infinirt::cpu

#endif // INFINIRT_CPU_STREAM_H
