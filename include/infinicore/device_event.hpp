// infinicore::DeviceEvent: an RAII event bound to the device it was created on.
//
// Ownership: owns its infinirt event; destroyed (whatever device is current) with the object.
// Move-only. Thread safety: like any object, one thread at a time; the event handle itself may
// be queried or waited on from any thread. Failures throw infinicore::Error.
#ifndef INFINICORE_DEVICE_EVENT_HPP
#define INFINICORE_DEVICE_EVENT_HPP

#include "../infinirt.h"
#include "device.hpp"

#include <cstdint>

namespace infinicore {

class __export DeviceEvent {
public:
    // On the calling thread's current device (context::getDevice()).
    DeviceEvent();
    // flags: a combination of infinirtEventFlags_t.
    explicit DeviceEvent(uint32_t flags);
    explicit DeviceEvent(Device device);
    DeviceEvent(Device device, uint32_t flags);
    ~DeviceEvent();

    DeviceEvent(const DeviceEvent &) = delete;
    DeviceEvent &operator=(const DeviceEvent &) = delete;
    // The moved-from event holds nothing: using it throws, destroying it does nothing.
    DeviceEvent(DeviceEvent &&other) noexcept;
    DeviceEvent &operator=(DeviceEvent &&other) noexcept;

    // On the context stream of the event's device.
    void record();
    // `stream` must belong to the event's device.
    void record(infinirtStream_t stream);
    // Blocks until the recorded work has run.
    void synchronize();
    // True when the recorded work has run (or the event was never recorded).
    bool query() const;
    // Milliseconds from this event to `end`; both recorded, completed, created with timing.
    float elapsedTime(const DeviceEvent &end) const;
    // Work submitted to `stream` (nullptr: the current context stream) after this call waits for
    // the recorded work.
    void wait(infinirtStream_t stream = nullptr) const;

    Device device() const { return device_; }
    infinirtEvent_t get() const { return event_; }
    // True once record() has been called on it.
    bool isRecorded() const { return is_recorded_; }

    // The names before the C++ layer settled on lowerCamelCase; they forward to the new ones.
    [[deprecated("use elapsedTime")]] float elapsed_time(const DeviceEvent &end) const { return elapsedTime(end); }
    [[deprecated("use isRecorded")]] bool is_recorded() const { return isRecorded(); }

private:
    infinirtEvent_t event_ = nullptr;
    Device device_;
    bool is_recorded_ = false;
};

} // namespace infinicore

#endif // INFINICORE_DEVICE_EVENT_HPP
