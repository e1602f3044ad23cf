#include "resettable_device.hpp"

namespace infinicore::detail {

infiniStatus_t ResettableDevice::free(void *ptr) { return wasReset() ? INFINI_STATUS_SUCCESS : device_->free(ptr); }

infiniStatus_t ResettableDevice::freeHost(void *ptr) {
    return wasReset() ? INFINI_STATUS_SUCCESS : device_->freeHost(ptr);
}

infiniStatus_t ResettableDevice::synchronize() { return wasReset() ? INFINI_STATUS_SUCCESS : device_->synchronize(); }

infiniStatus_t ResettableDevice::streamSynchronize(infinirtStream_t stream) {
    return wasReset() ? INFINI_STATUS_SUCCESS : device_->streamSynchronize(stream);
}

infiniStatus_t ResettableDevice::eventCreate(infinirtEvent_t *event) {
    if (wasReset()) {
        *event = nullptr;
        return INFINI_STATUS_SUCCESS;
    }
    return device_->eventCreate(event);
}

// Handles are never reused (a destroyed one never validates again), so an event made before the
// reset may still be destroyed: it is dead (INVALID_HANDLE, ignored) or of another device.
infiniStatus_t ResettableDevice::eventDestroy(infinirtEvent_t event) {
    if (!wasReset()) {
        return device_->eventDestroy(event);
    }
    if (event != nullptr) {
        (void)device_->eventDestroy(event);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t ResettableDevice::eventRecord(infinirtEvent_t event, infinirtStream_t stream) {
    return wasReset() ? INFINI_STATUS_SUCCESS : device_->eventRecord(event, stream);
}

infiniStatus_t ResettableDevice::eventQuery(infinirtEvent_t event, bool *complete) {
    if (wasReset()) {
        *complete = true;
        return INFINI_STATUS_SUCCESS;
    }
    return device_->eventQuery(event, complete);
}

infiniStatus_t ResettableDevice::eventSynchronize(infinirtEvent_t event) {
    return wasReset() ? INFINI_STATUS_SUCCESS : device_->eventSynchronize(event);
}

infiniStatus_t ResettableDevice::eventRecordOnStreamsDevice(infinirtEvent_t *event, infinirtStream_t stream) {
    if (wasReset()) {
        *event = nullptr;
        return INFINI_STATUS_SUCCESS;
    }
    return device_->eventRecordOnStreamsDevice(event, stream);
}

infiniStatus_t ResettableDevice::memUnmap(void *ptr, size_t size) {
    return wasReset() ? INFINI_STATUS_SUCCESS : device_->memUnmap(ptr, size);
}

} // namespace infinicore::detail
