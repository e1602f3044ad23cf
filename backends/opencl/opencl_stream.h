// An opencl stream (opencl_stream.cpp): one in-order command queue, with profiling enabled, and
// the helpers that submit to it and wait for it.
#pragma once

#include <CL/cl.h>

#include "infinicore.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

namespace infinirt::opencl {

struct Device;

// How many of a stream's commands are known complete. Shared with the events recorded on the
// stream, so that an event found complete can tell the stream (which may be gone by then).
using Progress = std::atomic<uint64_t>;

// The lock a stream's submissions take: it is held across one enqueue call only (a few
// microseconds at most), so a thread that finds it taken spins briefly, then yields. Cheaper than
// std::mutex on the launch path: taking it is one exchange, releasing it a plain store.
class SubmitLock {
public:
    void lock() noexcept {
        for (unsigned tries = 0; locked_.exchange(true, std::memory_order_acquire); ++tries) {
            while (locked_.load(std::memory_order_relaxed)) {
                if (++tries < 64) {
#if defined(__x86_64__) || defined(__i386__)
                    __builtin_ia32_pause();
#endif
                } else {
                    std::this_thread::yield();
                }
            }
        }
    }
    void unlock() noexcept { locked_.store(false, std::memory_order_release); }

private:
    std::atomic<bool> locked_{false};
};

// A stream of one device. The queue is in order, so every command runs after the ones enqueued
// before it, which is the stream order infinirt promises. Owned by the loader's handle between
// streamCreate and streamDestroy; default streams live until the process exits.
//
// OpenCL cannot ask a queue whether it is idle, so the stream numbers the commands infinirt puts
// on it: enqueueing and numbering happen under submit_lock, so command n is the n-th in the
// queue, and "commands 1..n are done" follows from command n being done (or from clFinish).
struct Stream {
    int device = 0;
    cl_command_queue queue = nullptr;
    SubmitLock submit_lock;
    std::atomic<uint64_t> enqueued{0}; // written under submit_lock
    std::shared_ptr<Progress> finished = std::make_shared<Progress>(0);
    // The marker streamQuery enqueued last and how many commands precede it; reused while
    // nothing new is enqueued, so polling does not grow the queue. Guarded by probe_mutex
    // (taken before submit_lock).
    std::mutex probe_mutex;
    cl_event probe = nullptr;
    uint64_t probe_covers = 0;
};

// Creates an in-order, profiling-enabled queue on `dev` (the queue is owned by the caller). A
// `priority` other than 0 (infinirt's numbering, within deviceGetStreamPriorityRange: only where
// the device has cl_khr_priority_hints) sets CL_QUEUE_PRIORITY_KHR; 0 leaves OpenCL's default.
infiniStatus_t createQueue(Device &dev, cl_command_queue *queue, int priority = 0);

// `stream` as the plugin table receives it: NULL is the device's default stream (created on
// first use).
infiniStatus_t resolveStream(int device, void *stream, Stream **out);

// Runs `enqueue` (a callable enqueueing exactly one command on stream.queue and returning its
// cl_int) under the stream's submit lock and, on success, numbers the command (*number).
template <typename F>
cl_int submit(Stream &stream, F &&enqueue, uint64_t *number) {
    std::lock_guard<SubmitLock> lock(stream.submit_lock);
    const cl_int err = enqueue();
    if (err == CL_SUCCESS) {
        *number = stream.enqueued.load(std::memory_order_relaxed) + 1;
        stream.enqueued.store(*number, std::memory_order_release);
    }
    return err;
}

// Called after every non-blocking submit: OpenCL may hold commands back until a flush, and
// infinirt's work must progress (and its events complete) without a synchronising call.
infiniStatus_t flushStream(const Stream &stream, const char *after);

// Commands 1..n of the stream owning `progress` are done.
void finishedThrough(Progress &progress, uint64_t n);

// Returns once `event`'s command has completed or terminated, reading its status until it has:
// for when clWaitForEvents failed for a reason of its own (resources, host memory) and the
// command may still be queued, so that a caller never frees what the command still uses. Stops
// early only when the status cannot be read.
void awaitEnded(cl_event event);

// Waits for `done` (command number n of `stream`), releases it and records the progress. For
// the synchronous calls, which enqueue without blocking and wait here. Failed or not, it returns
// only once the command has completed or terminated (awaitEnded).
infiniStatus_t waitCommand(Stream &stream, cl_event done, uint64_t n, const char *after);

// clFinish, then every command numbered before it is known done.
infiniStatus_t finishStream(Stream &stream, const char *why);

} // namespace infinirt::opencl
