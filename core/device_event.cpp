#include "infinicore/device_event.hpp"

#include "check.hpp"
#include "context_impl.hpp"
#include "device_guard.hpp"

#include <utility>

namespace infinicore {

using detail::check;

namespace {

infinirtEvent_t createOn(Device device, uint32_t flags) {
    detail::DeviceGuard guard(device);
    check(guard.status(), ("infinirtSetDevice(" + device.toString() + ")").c_str());
    infinirtEvent_t event = nullptr;
    check(infinirtEventCreateWithFlags(&event, flags), "infinirtEventCreateWithFlags");
    return event;
}

void requireEvent(infinirtEvent_t event, const char *call) {
    if (event == nullptr) {
        throw Error(INFINI_STATUS_INVALID_HANDLE, call, "the DeviceEvent was moved from");
    }
}

} // namespace

DeviceEvent::DeviceEvent() : DeviceEvent(detail::ContextImpl::instance().currentDevice(), INFINIRT_EVENT_DEFAULT) {}

DeviceEvent::DeviceEvent(uint32_t flags) : DeviceEvent(detail::ContextImpl::instance().currentDevice(), flags) {}

DeviceEvent::DeviceEvent(Device device) : DeviceEvent(device, INFINIRT_EVENT_DEFAULT) {}

DeviceEvent::DeviceEvent(Device device, uint32_t flags) : event_(createOn(device, flags)), device_(device) {}

DeviceEvent::~DeviceEvent() {
    if (event_ != nullptr) {
        // The handle knows its device: destroying it needs no device switch.
        (void)infinirtEventDestroy(event_);
    }
}

DeviceEvent::DeviceEvent(DeviceEvent &&other) noexcept
    : event_(std::exchange(other.event_, nullptr)), device_(other.device_),
      is_recorded_(std::exchange(other.is_recorded_, false)) {}

DeviceEvent &DeviceEvent::operator=(DeviceEvent &&other) noexcept {
    if (this != &other) {
        if (event_ != nullptr) {
            (void)infinirtEventDestroy(event_);
        }
        event_ = std::exchange(other.event_, nullptr);
        device_ = other.device_;
        is_recorded_ = std::exchange(other.is_recorded_, false);
    }
    return *this;
}

void DeviceEvent::record() {
    requireEvent(event_, "DeviceEvent::record");
    record(detail::ContextImpl::instance().runtime(device_).stream());
}

void DeviceEvent::record(infinirtStream_t stream) {
    requireEvent(event_, "DeviceEvent::record");
    check(infinirtEventRecord(event_, stream), "infinirtEventRecord");
    is_recorded_ = true;
}

void DeviceEvent::synchronize() {
    requireEvent(event_, "DeviceEvent::synchronize");
    check(infinirtEventSynchronize(event_), "infinirtEventSynchronize");
}

bool DeviceEvent::query() const {
    requireEvent(event_, "DeviceEvent::query");
    infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
    check(infinirtEventQuery(event_, &status), "infinirtEventQuery");
    return status == INFINIRT_EVENT_COMPLETE;
}

float DeviceEvent::elapsedTime(const DeviceEvent &end) const {
    requireEvent(event_, "DeviceEvent::elapsedTime");
    requireEvent(end.event_, "DeviceEvent::elapsedTime");
    float ms = 0.0f;
    check(infinirtEventElapsedTime(&ms, event_, end.event_), "infinirtEventElapsedTime");
    return ms;
}

void DeviceEvent::wait(infinirtStream_t stream) const {
    requireEvent(event_, "DeviceEvent::wait");
    if (stream == nullptr) {
        stream = detail::ContextImpl::instance().current().stream();
    }
    check(infinirtStreamWaitEvent(stream, event_), "infinirtStreamWaitEvent");
}

} // namespace infinicore
