// opencl_stream.h - streams: one in-order command queue each, with profiling enabled.
#pragma once

// First: infinicore.h defines a macro __C, which breaks <emmintrin.h> (pulled in by cl_platform.h)
// when it comes later.
#include <CL/cl.h>

#include "infinirt.h"

#include <atomic>
#include <cstdint>
#include <mutex>

namespace infinirt::opencl {

struct Device;

// A stream of one device. The queue is in order, so every command runs after the ones enqueued
// before it, which is the stream order infinirt promises. Owned by the loader's handle between
// streamCreate and streamDestroy; default streams live until the process exits.
//
// OpenCL cannot ask a queue whether it is idle, so the stream counts the commands infinirt put
// on it (`enqueued`, counted after each enqueue call returns, so a count always covers commands
// already in the queue) and remembers how many are known done (`finished`: through clFinish, a
// blocking command, or a completed probe marker).
struct Stream {
    int device = 0;
    cl_command_queue queue = nullptr;
    std::atomic<uint64_t> enqueued{0};
    std::atomic<uint64_t> finished{0};
    // The marker streamQuery enqueued last and the count it covers; reused while nothing new
    // is enqueued, so polling does not grow the queue. Guarded by probe_mutex.
    std::mutex probe_mutex;
    cl_event probe = nullptr;
    uint64_t probe_covers = 0;
};

// Creates an in-order, profiling-enabled queue on `dev` (the queue is owned by the caller).
infiniStatus_t createQueue(Device &dev, cl_command_queue *queue);

// `stream` as the plugin table receives it: NULL is the device's default stream (created on
// first use).
infiniStatus_t resolveStream(int device, void *stream, Stream **out);

// Called after every non-blocking enqueue: counts the command and flushes, since OpenCL may hold
// commands back until a flush and infinirt's work must progress (and its events complete)
// without a synchronising call.
infiniStatus_t submitted(Stream &stream, const char *after);

// For a blocking command: `before` is stream.enqueued read before it was enqueued; once it has
// completed, so have those.
void finishedThrough(Stream &stream, uint64_t before);

// clFinish, then everything counted before it is known done.
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
