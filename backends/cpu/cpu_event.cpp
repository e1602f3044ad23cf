// Events: markers on streams (see cpu_event.h).
#include "cpu_backend.h"
#include "cpu_event.h"
#include "cpu_stream.h"

#include "common/host_services.hpp"

namespace infinirt::cpu {

Event *Event::create(int device, uint32_t flags) {
    auto event = std::make_shared<Event>(device, flags);
    Event *raw = event.get();
    raw->owner_ = std::move(event);
    return raw;
}

void Event::destroyHandle() noexcept {
    // Moved out first: dropping the last reference destroys *this, owner_ included.
    std::shared_ptr<Event> owner = std::move(owner_);
}

void Event::record(Stream &stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    Task task;
    task.kind = Task::Kind::Mark;
    task.event = shared_from_this();
    task.number = generation_ + 1;
    // The marker may run before submit() returns; it then waits for mutex_ in onMarker and
    // finds generation_ already updated below.
    uint64_t number = stream.submit(std::move(task));
    ++generation_;
    recording_.stream = stream.shared_from_this();
    recording_.number = number;
}

bool Event::complete() const noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    return recording_.stream == nullptr || recording_.stream->reached(recording_.number);
}

infiniStatus_t Event::synchronize() {
    Recording awaited = current();
    if (awaited.stream == nullptr) {
        return INFINI_STATUS_SUCCESS;
    }
    awaited.stream->wait(awaited.number);
    // A kernel failure of a launch before the recording (not after it) is reported here.
    return awaited.stream->takeFailure(awaited.number, "event_synchronize");
}

Event::Recording Event::current() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return recording_;
}

Event::Timing Event::timing() const noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    Timing timing;
    timing.timed = (flags_ & INFINIRT_EVENT_DISABLE_TIMING) == 0;
    timing.recorded = recording_.stream != nullptr;
    timing.complete = !timing.recorded || recording_.stream->reached(recording_.number);
    timing.stamp = stamp_;
    return timing;
}

void Event::onMarker(uint64_t generation) noexcept {
    // Stamped before taking the lock so that a concurrent record() does not delay the time.
    Clock::time_point now = Clock::now();
    std::lock_guard<std::mutex> lock(mutex_);
    if (generation == generation_) {
        stamp_ = now;
    }
}

// ---- entries -----------------------------------------------------------------------------

namespace {

// INTERPROCESS is accepted; exporting the event is refused with the reason (cpu_ipc.cpp).
constexpr uint32_t kKnownFlags = INFINIRT_EVENT_DISABLE_TIMING | INFINIRT_EVENT_BLOCKING_SYNC | INFINIRT_EVENT_INTERPROCESS;

} // namespace

infiniStatus_t eventCreate(int device, uint32_t flags, void **event) {
    if ((flags & ~kKnownFlags) != 0) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "event_create: unknown flag bits 0x%x (known: 0x%x)",
                            flags & ~kKnownFlags, kKnownFlags);
    }
    *event = Event::create(device, flags);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventDestroy(int, void *event) {
    static_cast<Event *>(event)->destroyHandle();
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventRecord(int device, void *event, void *stream) {
    static_cast<Event *>(event)->record(resolveStream(device, stream));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventQuery(int, void *event, infinirtEventStatus_t *status) {
    *status = static_cast<Event *>(event)->complete() ? INFINIRT_EVENT_COMPLETE : INFINIRT_EVENT_NOT_READY;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventSynchronize(int, void *event) {
    return static_cast<Event *>(event)->synchronize();
}

infiniStatus_t eventElapsedTime(int, float *ms, void *start, void *end) {
    Event::Timing first = static_cast<Event *>(start)->timing();
    Event::Timing last = static_cast<Event *>(end)->timing();
    if (!first.timed || !last.timed) {
        return common::fail(INFINI_STATUS_BAD_PARAM,
                            "event_elapsed_time: the %s event was created with INFINIRT_EVENT_DISABLE_TIMING",
                            !first.timed ? "start" : "end");
    }
    if (!first.recorded || !last.recorded) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "event_elapsed_time: the %s event was never recorded",
                            !first.recorded ? "start" : "end");
    }
    if (!first.complete || !last.complete) {
        return INFINI_STATUS_NOT_READY;
    }
    *ms = std::chrono::duration<float, std::milli>(last.stamp - first.stamp).count();
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::cpu

INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::cpu::eventRecord);
INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::cpu::eventQuery);
