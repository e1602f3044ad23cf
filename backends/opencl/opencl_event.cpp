// opencl_event.cpp - events: the marker enqueued by the last record, whose completion and
// profiling timestamp answer queries and elapsed-time requests.
#include "opencl_backend.h"
#include "opencl_device.h"
#include "opencl_event.h"
#include "opencl_stream.h"

#include "opencl_native_api.h"

#include <chrono>
#include <new>
#include <thread>

namespace infinirt::opencl {
namespace {

// CL_COMPLETE, a positive "still running" state, or a negative error code of the command.
infiniStatus_t executionStatus(cl_event event, cl_int *state, int device) {
    cl_int err = nativeApi().clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(*state), state, nullptr);
    if (err != CL_SUCCESS) {
        return nativeFailure("clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS)", err, "on opencl:%d", device);
    }
    if (*state < 0) {
        return nativeFailure("recorded command", *state, "on opencl:%d (an earlier command of its stream failed)",
                             device);
    }
    return INFINI_STATUS_SUCCESS;
}

} // namespace

Recorded::~Recorded() {
    if (event) {
        nativeApi().clReleaseEvent(event);
    }
}

void Recorded::completed() const {
    if (stream_progress) {
        finishedThrough(*stream_progress, number);
    }
}

void snapshot(Event &event, Recorded *out) {
    std::lock_guard<std::mutex> lock(event.mutex);
    if (!event.ever_recorded) {
        return;
    }
    nativeApi().clRetainEvent(event.recorded);
    out->event = event.recorded;
    out->stream_progress = event.stream_progress;
    out->number = event.number;
}

// Creates the completed user event that stands for "never recorded".
infiniStatus_t eventCreate(int device, uint32_t flags, void **out) {
    cl_int err = CL_SUCCESS;
    cl_event initial = nativeApi().clCreateUserEvent(infinirt::opencl::device(device).context, &err);
    if (!initial) {
        return nativeFailure("clCreateUserEvent", err, "creating an event on opencl:%d", device);
    }
    err = nativeApi().clSetUserEventStatus(initial, CL_COMPLETE);
    if (err != CL_SUCCESS) {
        nativeApi().clReleaseEvent(initial);
        return nativeFailure("clSetUserEventStatus", err, "creating an event on opencl:%d", device);
    }
    Event *event = new (std::nothrow) Event;
    if (!event) {
        nativeApi().clReleaseEvent(initial);
        return common::fail(INFINI_STATUS_OUT_OF_MEMORY, "out of host memory creating an event on opencl:%d", device);
    }
    event->device = device;
    event->flags = flags;
    event->recorded = initial;
    *out = event;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventDestroy(int, void *handle) {
    Event *event = static_cast<Event *>(handle);
    nativeApi().clReleaseEvent(event->recorded);
    delete event;
    return INFINI_STATUS_SUCCESS;
}

// Enqueues a marker (it completes when all earlier work of the stream has) and flushes.
infiniStatus_t eventRecord(int device, void *handle, void *stream_handle) {
    Event *event = static_cast<Event *>(handle);
    Stream *stream = nullptr;
    infiniStatus_t status = resolveStream(device, stream_handle, &stream);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    Device &dev = infinirt::opencl::device(device);
    const bool timed = !(event->flags & INFINIRT_EVENT_DISABLE_TIMING);
    if (timed && stream_handle) {
        // The default stream's creation probes marker timestamps (Device::marker_timestamps).
        Stream *probed = nullptr;
        status = defaultStream(device, &probed);
        if (status != INFINI_STATUS_SUCCESS) {
            return status;
        }
    }
    cl_event marker = nullptr;
    uint64_t number = 0;
    cl_int err = CL_SUCCESS;
    const char *call = "clEnqueueMarkerWithWaitList";
    if (timed && !dev.marker_timestamps) {
        // In an in-order queue the fill, like a marker, completes after all earlier work.
        call = "clEnqueueSVMMemFill";
        err = submit(
            *stream,
            [&] {
                const unsigned char zero = 0;
                return nativeApi().clEnqueueSVMMemFill(stream->queue, dev.timing_scratch, &zero, 1, 1, 0, nullptr, &marker);
            },
            &number);
    } else {
        err = submit(
            *stream, [&] { return nativeApi().clEnqueueMarkerWithWaitList(stream->queue, 0, nullptr, &marker); }, &number);
    }
    if (err != CL_SUCCESS) {
        return nativeFailure(call, err, "recording an event on opencl:%d", device);
    }
    cl_event previous = nullptr;
    {
        std::lock_guard<std::mutex> lock(event->mutex);
        previous = event->recorded;
        event->recorded = marker;
        event->ever_recorded = true;
        event->stream_progress = stream->finished;
        event->number = number;
    }
    nativeApi().clReleaseEvent(previous);
    return flushStream(*stream, call);
}

infiniStatus_t eventQuery(int device, void *handle, infinirtEventStatus_t *out) {
    Event *event = static_cast<Event *>(handle);
    cl_int state = CL_COMPLETE;
    {
        // Held across the (non-blocking) status query instead of retaining the marker: two
        // fewer driver calls on the hottest path.
        std::lock_guard<std::mutex> lock(event->mutex);
        if (event->ever_recorded) {
            infiniStatus_t status = executionStatus(event->recorded, &state, device);
            if (status != INFINI_STATUS_SUCCESS) {
                return status;
            }
            if (state == CL_COMPLETE) {
                finishedThrough(*event->stream_progress, event->number);
            }
        }
    }
    *out = state == CL_COMPLETE ? INFINIRT_EVENT_COMPLETE : INFINIRT_EVENT_NOT_READY;
    return INFINI_STATUS_SUCCESS;
}

void awaitEnded(cl_event event) {
    for (;;) {
        cl_int status = CL_QUEUED;
        if (nativeApi().clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr) !=
                CL_SUCCESS ||
            status <= CL_COMPLETE) { // complete, or terminated (a negative error code)
            return;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

infiniStatus_t eventSynchronize(int device, void *handle) {
    Recorded marker;
    snapshot(*static_cast<Event *>(handle), &marker);
    if (!marker.event) {
        return INFINI_STATUS_SUCCESS;
    }
    cl_int err = nativeApi().clWaitForEvents(1, &marker.event);
    if (err != CL_SUCCESS) {
        // Failed or not, the synchronize returns once the recorded work has ended.
        awaitEnded(marker.event);
        return nativeFailure("clWaitForEvents", err, "on opencl:%d", device);
    }
    marker.completed();
    return INFINI_STATUS_SUCCESS;
}

// From the CL_PROFILING_COMMAND_END of both recorded commands.
infiniStatus_t eventElapsedTime(int device, float *ms, void *start_handle, void *end_handle) {
    Event *start = static_cast<Event *>(start_handle);
    Event *end = static_cast<Event *>(end_handle);
    if ((start->flags | end->flags) & INFINIRT_EVENT_DISABLE_TIMING) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "elapsed time asked of an event created with DISABLE_TIMING");
    }
    Recorded first, second;
    snapshot(*start, &first);
    snapshot(*end, &second);
    if (!first.event || !second.event) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "elapsed time asked of an event that was never recorded");
    }
    cl_ulong stamps[2] = {0, 0};
    const cl_event events[2] = {first.event, second.event};
    for (int i = 0; i < 2; ++i) {
        cl_int state = CL_COMPLETE;
        infiniStatus_t status = executionStatus(events[i], &state, device);
        if (status != INFINI_STATUS_SUCCESS) {
            return status;
        }
        if (state != CL_COMPLETE) {
            return common::fail(INFINI_STATUS_NOT_READY, "elapsed time asked before both events completed");
        }
        cl_int err = nativeApi().clGetEventProfilingInfo(events[i], CL_PROFILING_COMMAND_END, sizeof(cl_ulong), &stamps[i],
                                                   nullptr);
        if (err != CL_SUCCESS) {
            return nativeFailure("clGetEventProfilingInfo(CL_PROFILING_COMMAND_END)", err, "on opencl:%d", device);
        }
    }
    // Signed: the end event may have been recorded on another stream and completed first.
    const double nanoseconds = stamps[1] >= stamps[0] ? static_cast<double>(stamps[1] - stamps[0])
                                                      : -static_cast<double>(stamps[0] - stamps[1]);
    *ms = static_cast<float>(nanoseconds / 1e6);
    return INFINI_STATUS_SUCCESS;
}

// The cl_event of the last record (valid until the next record or destroy); before the first
// record, a completed user event.
infiniStatus_t eventGetNative(int, void *handle, void **native) {
    Event *event = static_cast<Event *>(handle);
    std::lock_guard<std::mutex> lock(event->mutex);
    *native = event->recorded;
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::opencl

INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::opencl::eventRecord);
INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::opencl::eventQuery);
