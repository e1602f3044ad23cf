// An opencl event (opencl_event.cpp): the marker enqueued by the last record, whose completion and
// profiling timestamp answer queries and elapsed-time requests.
#pragma once

#include <CL/cl.h>

#include "opencl_stream.h"

#include <cstdint>
#include <memory>
#include <mutex>

namespace infinirt::opencl {

// Owned by the loader's handle between eventCreate and eventDestroy. Recording and reading may
// happen from different threads, hence the mutex around `recorded`.
struct Event {
    int device = 0;
    uint32_t flags = 0; // infinirtEventFlags_t
    std::mutex mutex;
    // The command of the last record (a marker, or a 1-byte fill where markers carry no
    // timestamps); before the first record, a user event already complete, so that the event
    // has a native handle from the start. Holds one reference.
    cl_event recorded = nullptr;
    bool ever_recorded = false;
    // The recording stream's progress and the recorded command's number there: once the
    // command is seen complete, so are all the stream's commands up to it.
    std::shared_ptr<Progress> stream_progress;
    uint64_t number = 0;
};

// What a waiter needs of an event's last record.
struct Recorded {
    cl_event event = nullptr; // holds a reference (released by the destructor); NULL if never recorded
    std::shared_ptr<Progress> stream_progress;
    uint64_t number = 0;
    Recorded() = default;
    Recorded(const Recorded &) = delete;
    Recorded &operator=(const Recorded &) = delete;
    ~Recorded();
    // The command is complete: tell the stream it came from.
    void completed() const;
};

// The last record, with a reference added to its command (see Recorded).
void snapshot(Event &event, Recorded *out);

} // namespace infinirt::opencl
