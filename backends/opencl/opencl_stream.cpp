// opencl_stream.cpp - streams: one in-order, profiling-enabled command queue each, the command
// numbering behind stream queries, and waits on events (across contexts through user events).
#include "opencl_backend.h"
#include "opencl_device.h"
#include "opencl_event.h"
#include "opencl_stream.h"

#include "opencl_native_api.h"

#include <CL/cl_ext.h>

#include <new>

namespace infinirt::opencl {
namespace {

// Completes `user` (a user event of another context) when the marker it stands for completes,
// then drops the reference the callback was given.
void CL_CALLBACK completeUserEvent(cl_event, cl_int state, void *user) {
    cl_event stand_in = static_cast<cl_event>(user);
    nativeApi().clSetUserEventStatus(stand_in, state < 0 ? state : CL_COMPLETE);
    nativeApi().clReleaseEvent(stand_in);
}

} // namespace

infiniStatus_t createQueue(Device &dev, cl_command_queue *queue, int priority) {
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0, 0, 0};
    if (priority != 0) {
        props[2] = CL_QUEUE_PRIORITY_KHR;
        props[3] = priority < 0 ? CL_QUEUE_PRIORITY_HIGH_KHR : CL_QUEUE_PRIORITY_LOW_KHR;
    }
    cl_int err = CL_SUCCESS;
    cl_command_queue created = nativeApi().clCreateCommandQueueWithProperties(dev.context, dev.id, props, &err);
    if (!created) {
        return nativeFailure("clCreateCommandQueueWithProperties", err, "creating a stream of priority %d on opencl:%d",
                             priority, dev.index);
    }
    *queue = created;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t resolveStream(int device, void *stream, Stream **out) {
    if (stream) {
        *out = static_cast<Stream *>(stream);
        return INFINI_STATUS_SUCCESS;
    }
    return defaultStream(device, out);
}

infiniStatus_t flushStream(const Stream &stream, const char *after) {
    cl_int err = nativeApi().clFlush(stream.queue);
    if (err != CL_SUCCESS) {
        return nativeFailure("clFlush", err, "after %s on opencl:%d", after, stream.device);
    }
    return INFINI_STATUS_SUCCESS;
}

void finishedThrough(Progress &progress, uint64_t n) {
    uint64_t known = progress.load(std::memory_order_acquire);
    while (known < n && !progress.compare_exchange_weak(known, n, std::memory_order_acq_rel)) {
    }
}

infiniStatus_t waitCommand(Stream &stream, cl_event done, uint64_t n, const char *after) {
    cl_int err = nativeApi().clWaitForEvents(1, &done);
    if (err != CL_SUCCESS) {
        // A synchronous call returns only once its command has completed or terminated: the
        // caller frees its buffers after it, failed or not.
        awaitEnded(done);
        nativeApi().clReleaseEvent(done);
        return nativeFailure("clWaitForEvents", err, "after %s on opencl:%d", after, stream.device);
    }
    nativeApi().clReleaseEvent(done);
    finishedThrough(*stream.finished, n);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t finishStream(Stream &stream, const char *why) {
    const uint64_t before = stream.enqueued.load(std::memory_order_acquire);
    cl_int err = nativeApi().clFinish(stream.queue);
    if (err != CL_SUCCESS) {
        return nativeFailure("clFinish", err, "%s on opencl:%d", why, stream.device);
    }
    finishedThrough(*stream.finished, before);
    return INFINI_STATUS_SUCCESS;
}

// With cl_khr_priority_hints: 1 is CL_QUEUE_PRIORITY_LOW_KHR, 0 OpenCL's default (MED, that of
// every queue created without the hint: default streams and infinirtStreamCreate's, whose priority
// is 0), -1 HIGH. Without it one level, (0, 0).
infiniStatus_t deviceGetStreamPriorityRange(int device, int *least, int *greatest) {
    const bool hints = infinirt::opencl::device(device).priority_hints;
    *least = hints ? 1 : 0;
    *greatest = hints ? -1 : 0;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamCreateWithPriority(int device, int priority, void **out) {
    Device &dev = infinirt::opencl::device(device);
    cl_command_queue queue = nullptr;
    infiniStatus_t status = createQueue(dev, &queue, priority);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    Stream *stream = new (std::nothrow) Stream;
    if (!stream) {
        nativeApi().clReleaseCommandQueue(queue);
        return common::fail(INFINI_STATUS_OUT_OF_MEMORY, "out of host memory creating a stream on opencl:%d", device);
    }
    stream->device = device;
    stream->queue = queue;
    {
        std::lock_guard<std::mutex> lock(dev.mutex);
        dev.streams.insert(stream);
    }
    *out = stream;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamCreate(int device, void **out) { return streamCreateWithPriority(device, 0, out); }

infiniStatus_t streamDestroy(int device, void *handle) {
    Stream *stream = static_cast<Stream *>(handle);
    Device &dev = infinirt::opencl::device(device);
    {
        std::lock_guard<std::mutex> lock(dev.mutex);
        dev.streams.erase(stream);
    }
    infiniStatus_t status = finishStream(*stream, "destroying a stream");
    if (status != INFINI_STATUS_SUCCESS) {
        // The queue's work may still run: the stream stays, usable, and the loader keeps its
        // handle (a later destroy tries again).
        std::lock_guard<std::mutex> lock(dev.mutex);
        dev.streams.insert(stream);
        return status;
    }
    if (stream->probe) {
        nativeApi().clReleaseEvent(stream->probe);
    }
    nativeApi().clReleaseCommandQueue(stream->queue);
    delete stream;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamSynchronize(int device, void *handle) {
    Stream *stream = nullptr;
    infiniStatus_t status = resolveStream(device, handle, &stream);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    return finishStream(*stream, "synchronizing a stream");
}

// SUCCESS when every command enqueued so far has completed, NOT_READY otherwise.
infiniStatus_t streamQuery(int device, void *handle) {
    Stream *stream = nullptr;
    infiniStatus_t status = resolveStream(device, handle, &stream);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    if (stream->finished->load(std::memory_order_acquire) >= stream->enqueued.load(std::memory_order_acquire)) {
        return INFINI_STATUS_SUCCESS;
    }
    std::lock_guard<std::mutex> lock(stream->probe_mutex);
    if (!stream->probe || stream->probe_covers != stream->enqueued.load(std::memory_order_acquire)) {
        // A marker completes exactly when all the work enqueued before it has. It is not
        // numbered: it is not work, only a question.
        cl_event marker = nullptr;
        uint64_t covers = 0;
        cl_int err = CL_SUCCESS;
        {
            std::lock_guard<SubmitLock> submit_lock(stream->submit_lock);
            err = nativeApi().clEnqueueMarkerWithWaitList(stream->queue, 0, nullptr, &marker);
            covers = stream->enqueued.load(std::memory_order_relaxed);
        }
        if (err != CL_SUCCESS) {
            return nativeFailure("clEnqueueMarkerWithWaitList", err, "querying a stream of opencl:%d", device);
        }
        if (stream->probe) {
            nativeApi().clReleaseEvent(stream->probe);
        }
        stream->probe = marker;
        stream->probe_covers = covers;
        infiniStatus_t flushed = flushStream(*stream, "clEnqueueMarkerWithWaitList");
        if (flushed != INFINI_STATUS_SUCCESS) {
            return flushed;
        }
    }
    cl_int state = CL_COMPLETE;
    cl_int err =
        nativeApi().clGetEventInfo(stream->probe, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(state), &state, nullptr);
    if (err != CL_SUCCESS) {
        return nativeFailure("clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS)", err, "on opencl:%d", device);
    }
    if (state < 0) {
        return nativeFailure("stream command", state, "on opencl:%d", device);
    }
    if (state != CL_COMPLETE) {
        return INFINI_STATUS_NOT_READY;
    }
    finishedThrough(*stream->finished, stream->probe_covers);
    return stream->finished->load(std::memory_order_acquire) >= stream->enqueued.load(std::memory_order_acquire)
               ? INFINI_STATUS_SUCCESS
               : INFINI_STATUS_NOT_READY;
}

// A barrier on the stream's queue waiting for the event's marker; across contexts (another
// device) a user event completed by a callback on the marker stands in for it.
infiniStatus_t streamWaitEvent(int device, void *stream_handle, void *event_handle) {
    Stream *stream = nullptr;
    infiniStatus_t status = resolveStream(device, stream_handle, &stream);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    Event *event = static_cast<Event *>(event_handle);
    Recorded marker;
    snapshot(*event, &marker);
    if (!marker.event) {
        return INFINI_STATUS_SUCCESS; // never recorded: nothing to wait for
    }
    cl_event wait_for = marker.event;
    cl_event stand_in = nullptr; // our reference, when one is needed
    if (event->device != stream->device) {
        // A wait list may only hold events of the queue's context.
        cl_int err = CL_SUCCESS;
        stand_in = nativeApi().clCreateUserEvent(infinirt::opencl::device(stream->device).context, &err);
        if (!stand_in) {
            return nativeFailure("clCreateUserEvent", err, "waiting on an event of opencl:%d", event->device);
        }
        nativeApi().clRetainEvent(stand_in); // the callback's reference
        err = nativeApi().clSetEventCallback(marker.event, CL_COMPLETE, completeUserEvent, stand_in);
        if (err != CL_SUCCESS) {
            nativeApi().clSetUserEventStatus(stand_in, CL_COMPLETE);
            nativeApi().clReleaseEvent(stand_in);
            nativeApi().clReleaseEvent(stand_in);
            return nativeFailure("clSetEventCallback", err, "waiting on an event of opencl:%d", event->device);
        }
        wait_for = stand_in;
    }
    uint64_t number = 0;
    cl_int err = submit(
        *stream, [&] { return nativeApi().clEnqueueBarrierWithWaitList(stream->queue, 1, &wait_for, nullptr); }, &number);
    if (stand_in) {
        nativeApi().clReleaseEvent(stand_in);
    }
    if (err != CL_SUCCESS) {
        return nativeFailure("clEnqueueBarrierWithWaitList", err, "making a stream of opencl:%d wait", device);
    }
    return flushStream(*stream, "clEnqueueBarrierWithWaitList");
}

infiniStatus_t streamGetNative(int device, void *handle, void **native) {
    Stream *stream = nullptr;
    infiniStatus_t status = resolveStream(device, handle, &stream);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    *native = stream->queue;
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::opencl

INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::opencl::streamQuery);
INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::opencl::streamWaitEvent);
