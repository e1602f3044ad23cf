// StreamEventQueues: the events that hold freed blocks back until the streams that used them have
// caught up. Shared by DeviceCachingAllocator and DevicePinnedHostAllocator; what becomes of a
// block once it is free to reuse is up to them (the callback of processLocked).
//
// A freed block gets an event recorded on each stream that used it; the events wait in one queue
// per stream, so that one slow stream holds back only its own blocks, and a queue is checked from
// its front only (a stream runs in order: behind an incomplete event none is complete). Events
// come from a pool: created on demand, reused once complete, destroyed with the queues.
//
// `Block` is any type with an `int pending_events` member: how many of its events are queued.
//
// Thread safety: none of its own. Every method carries the Locked suffix: it is called with the
// owning allocator's mutex held (the destructor, and waitAndDestroyLocked from the owner's
// destructor, when no other thread can reach the allocator).
// Lifetime: the device must outlive the queues.
#ifndef INFINICORE_CORE_STREAM_EVENT_QUEUES_HPP
#define INFINICORE_CORE_STREAM_EVENT_QUEUES_HPP

#include "raw_device.hpp"

#include <deque>
#include <iterator>
#include <unordered_map>
#include <vector>

namespace infinicore::detail {

template <class Block>
class StreamEventQueues {
public:
    explicit StreamEventQueues(RawDevice &device) : device_(device) {}
    ~StreamEventQueues() { waitAndDestroyLocked(); }
    StreamEventQueues(const StreamEventQueues &) = delete;
    StreamEventQueues &operator=(const StreamEventQueues &) = delete;

    // Records an event on each of `streams` and queues it there with `block`, counting it in
    // block->pending_events. A stream of another device gets an event of its own device (queued
    // the same way, destroyed once complete): the free never waits on the host for it. Where no
    // event can be recorded at all (none can be made, or the stream is gone), waits on the host
    // for the stream, else for the whole device, which leaves nothing on that stream to guard.
    // Never throws.
    void recordLocked(Block *block, const std::vector<infinirtStream_t> &streams) noexcept {
        for (infinirtStream_t stream : streams) {
            infinirtEvent_t event = eventLocked();
            bool foreign = false;
            if (event == nullptr || device_.eventRecord(event, stream) != INFINI_STATUS_SUCCESS) {
                if (event != nullptr) {
                    spare_events_.push_back(event);
                }
                // The stream may be another device's: an event of that device guards the block.
                event = nullptr;
                if (device_.eventRecordOnStreamsDevice(&event, stream) != INFINI_STATUS_SUCCESS) {
                    if (device_.streamSynchronize(stream) != INFINI_STATUS_SUCCESS) {
                        (void)device_.synchronize();
                    }
                    continue;
                }
                foreign = true;
            }
            try {
                pending_[stream].push_back(PendingEvent{event, block, foreign});
            } catch (...) {
                (void)device_.eventSynchronize(event);
                retireLocked(event, foreign);
                continue;
            }
            ++block->pending_events;
        }
    }

    // True if no event is queued.
    bool emptyLocked() const noexcept { return pending_.empty(); }

    // Takes the completed events off every queue, or with `wait` waits for every queued event, and
    // calls released(block) for each block whose last event that was (its pending_events is then
    // 0). An event that cannot be queried or waited for is taken as complete after waiting for the
    // whole device, after which its work has certainly run. `released` must not use the queues.
    template <class Released>
    void processLocked(bool wait, Released &&released) {
        for (auto it = pending_.begin(); it != pending_.end();) {
            auto &queue = it->second;
            while (!queue.empty()) {
                PendingEvent &pending = queue.front();
                bool complete = false;
                if (wait) {
                    complete = true;
                    if (device_.eventSynchronize(pending.event) != INFINI_STATUS_SUCCESS) {
                        (void)device_.synchronize();
                    }
                } else if (device_.eventQuery(pending.event, &complete) != INFINI_STATUS_SUCCESS) {
                    // An event that cannot be queried cannot be trusted either way: wait for the
                    // whole device, after which its work has certainly run.
                    (void)device_.synchronize();
                    complete = true;
                }
                if (!complete) {
                    break; // later events of this in-order stream cannot be complete either
                }
                retireLocked(pending.event, pending.foreign);
                Block *block = pending.block;
                queue.pop_front();
                if (--block->pending_events == 0) {
                    released(block);
                }
            }
            it = queue.empty() ? pending_.erase(it) : std::next(it);
        }
    }

    // Waits for every queued event, without releasing the blocks they guard, and destroys every
    // event. For the owner's destructor, before it frees the memory the events guard; the queues
    // are empty afterwards. Never throws.
    void waitAndDestroyLocked() noexcept {
        for (auto &[stream, queue] : pending_) {
            for (PendingEvent &pending : queue) {
                (void)device_.eventSynchronize(pending.event);
                if (pending.foreign) {
                    (void)device_.eventDestroy(pending.event);
                }
            }
        }
        pending_.clear();
        for (infinirtEvent_t event : all_events_) {
            (void)device_.eventDestroy(event);
        }
        all_events_.clear();
        spare_events_.clear();
    }

private:
    struct PendingEvent {
        infinirtEvent_t event;
        Block *block;
        bool foreign; // an event of another device (eventRecordOnStreamsDevice), not of the pool
    };

    // An event that guards nothing any more: back to the pool, or destroyed if another device's.
    void retireLocked(infinirtEvent_t event, bool foreign) noexcept {
        if (foreign) {
            (void)device_.eventDestroy(event);
        } else {
            spare_events_.push_back(event);
        }
    }

    // A spare event, or a new one; nullptr if none can be made.
    infinirtEvent_t eventLocked() noexcept {
        if (!spare_events_.empty()) {
            infinirtEvent_t event = spare_events_.back();
            spare_events_.pop_back();
            return event;
        }
        infinirtEvent_t event = nullptr;
        if (device_.eventCreate(&event) != INFINI_STATUS_SUCCESS) {
            return nullptr;
        }
        try {
            // Room for every event first: giving one back never allocates.
            spare_events_.reserve(all_events_.size() + 1);
            all_events_.push_back(event);
        } catch (...) {
            (void)device_.eventDestroy(event); // not listed anywhere yet
            return nullptr;
        }
        return event;
    }

    RawDevice &device_;
    std::unordered_map<infinirtStream_t, std::deque<PendingEvent>> pending_;
    std::vector<infinirtEvent_t> spare_events_;
    std::vector<infinirtEvent_t> all_events_;
};

} // namespace infinicore::detail

#endif // INFINICORE_CORE_STREAM_EVENT_QUEUES_HPP
