// A cpu event (cpu_event.cpp): a marker task on a stream. Recording enqueues the marker and
// remembers which task of which stream it is; the event is complete once that stream's worker has
// run it, and the marker takes the event's timestamp (steady_clock) at that moment.
//
// Each recording gets a generation number, so a marker left over from an earlier recording
// (re-recording while it was still queued) cannot overwrite the newer recording's timestamp.
#ifndef INFINIRT_CPU_EVENT_H
#define INFINIRT_CPU_EVENT_H

#include "infinicore.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>

namespace infinirt::cpu {

class Stream;

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

} // namespace infinirt::cpu

#endif // INFINIRT_CPU_EVENT_H
