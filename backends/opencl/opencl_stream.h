// opencl_stream.h - streams: one in-order command queue each, with profiling enabled.
#pragma once

#include <CL/cl.h>

#include "infinirt.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

namespace infinirt::opencl {

struct Device;

// How many of a stream's commands are known complete. Shared with the events recorded on the
// stream, so that an event found complete can tell the stream (which may be gone by then).
using Progress = std::atomic<uint64_t>;

// A stream of one device. The queue is in order, so every command runs after the ones enqueued
// before it, which is the stream order infinirt promises. Owned by the loader's handle between
// streamCreate and streamDestroy; default streams live until the process exits.
//
// OpenCL cannot ask a queue whether it is idle, so the stream numbers the commands infinirt puts
// on it: enqueueing and numbering happen under submit_mutex, so command n is the n-th in the
// queue, and "commands 1..n are done" follows from command n being done (or from clFinish).
struct Stream {
    int device = 0;
    cl_command_queue queue = nullptr;
    std::mutex submit_mutex;
    std::atomic<uint64_t> enqueued{0}; // written under submit_mutex
    std::shared_ptr<Progress> finished = std::make_shared<Progress>(0);
    // The marker streamQuery enqueued last and how many commands precede it; reused while
    // nothing new is enqueued, so polling does not grow the queue. Guarded by probe_mutex
    // (taken before submit_mutex).
    std::mutex probe_mutex;
    cl_event probe = nullptr;
    uint64_t probe_covers = 0;
};

// Creates an in-order, profiling-enabled queue on `dev` (the queue is owned by the caller).
infiniStatus_t createQueue(Device &dev, cl_command_queue *queue);

// `stream` as the plugin table receives it: NULL is the device's default stream (created on
// first use).
infiniStatus_t resolveStream(int device, void *stream, Stream **out);

// Runs `enqueue` (a callable enqueueing exactly one command on stream.queue and returning its
// cl_int) under the stream's submit lock and, on success, numbers the command (*number).
template <typename F>
cl_int submit(Stream &stream, F &&enqueue, uint64_t *number) {
    std::lock_guard<std::mutex> lock(stream.submit_mutex);
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

// Waits for `done` (command number n of `stream`), releases it and records the progress. For
// the synchronous calls, which enqueue without blocking and wait here.
infiniStatus_t waitCommand(Stream &stream, cl_event done, uint64_t n, const char *after);

// clFinish, then every command numbered before it is known done.
infiniStatus_t finishStream(Stream &stream, const char *why);

infiniStatus_t streamCreate(int device, void **stream);
infiniStatus_t streamDestroy(int device, void *stream);
infiniStatus_t streamSynchronize(int device, void *stream);
// SUCCESS when every command enqueued so far has completed, NOT_READY otherwise.
infiniStatus_t streamQuery(int device, void *stream);
// A barrier on the stream's queue waiting for the event's marker; across contexts (another
// device) a user event completed by a callback on the marker stands in for it.
infiniStatus_t streamWaitEvent(int device, void *stream, void *event);
infiniStatus_t streamGetNative(int device, void *stream, void **native);

} // namespace infinirt::opencl
