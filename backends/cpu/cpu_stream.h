// A cpu stream: an in-order queue of tasks run by one worker thread of its own.
//
// Progress is tracked with two counters: submit() numbers each task (1, 2, ...) and the worker
// publishes how many have completed. "Everything up to task n has run" is then one atomic
// comparison, which is what event_query, stream_query and cross-stream waits need.
#ifndef INFINIRT_CPU_STREAM_H
#define INFINIRT_CPU_STREAM_H

#include "cpu_backend.h"

#include <condition_variable>
#include <thread>

namespace infinirt_cpu {

class Event;

// One unit of stream work. Holds references that keep the event it marks or the stream it
// waits for alive until it has run.
struct Task {
    enum class Kind : uint8_t { copy, fill, release, mark, wait };
    Kind kind = Kind::copy;
    void *dst = nullptr;       // copy, fill, release: the destination / block
    const void *src = nullptr; // copy
    size_t size = 0;           // copy, fill
    int value = 0;             // fill
    uint64_t number = 0;       // mark: the event's recording generation; wait: the task awaited
    std::shared_ptr<Event> event;   // mark
    std::shared_ptr<Stream> stream; // wait: the stream whose task `number` must have run
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
    // Blocks until every task submitted before the call has run.
    void synchronize() { wait(submitted_.load(std::memory_order_acquire)); }
    // Drains the queue, then stops and joins the worker.
    void shutdown();

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
};

// The stream a plugin call names: `stream` itself, or the device's default stream (created on
// first use) when it is NULL. Throws std::bad_alloc.
Stream &resolve_stream(int device, void *stream);
// The device's default stream if it was ever created, else nullptr (then it has no work).
Stream *existing_default_stream(int device) noexcept;

} // namespace infinirt_cpu

#endif // INFINIRT_CPU_STREAM_H
