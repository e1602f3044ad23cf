// ResettableDevice: a RawDevice that forwards to another until the device is reset
// (infinirtDeviceReset), then forgets what the device had.
//
// A reset frees every block and destroys every event the allocators built on the device had: an
// allocator left with them must never free them again (their addresses may already belong to new
// allocations) nor wait on them. After markReset(), releases (free, freeHost, memUnmap) and waits
// (synchronize, streamSynchronize, eventQuery: complete, eventSynchronize) answer SUCCESS without
// calling the device, and event creation answers SUCCESS with no event (NULL), so the abandoned
// allocators run out their remaining frees harmlessly. Allocation, reservations (a reset keeps
// them) and queries keep forwarding. Thread safety: as RawDevice's; markReset() from any thread.
#ifndef INFINICORE_CORE_RESETTABLE_DEVICE_HPP
#define INFINICORE_CORE_RESETTABLE_DEVICE_HPP

#include "raw_device.hpp"

#include <atomic>
#include <memory>

namespace infinicore::detail {

class ResettableDevice final : public RawDevice {
public:
    explicit ResettableDevice(std::shared_ptr<RawDevice> device) : device_(std::move(device)) {}

    // The device was reset: from now on, forget instead of release.
    void markReset() { reset_.store(true, std::memory_order_release); }

    Device device() const override { return device_->device(); }
    infiniStatus_t malloc(void **ptr, size_t size) override { return device_->malloc(ptr, size); }
    infiniStatus_t free(void *ptr) override;
    infiniStatus_t mallocHost(void **ptr, size_t size) override { return device_->mallocHost(ptr, size); }
    infiniStatus_t freeHost(void *ptr) override;
    infiniStatus_t memInfo(size_t *free_bytes, size_t *total_bytes) override {
        return device_->memInfo(free_bytes, total_bytes);
    }
    infiniStatus_t synchronize() override;
    infiniStatus_t streamSynchronize(infinirtStream_t stream) override;
    infiniStatus_t eventCreate(infinirtEvent_t *event) override;
    infiniStatus_t eventDestroy(infinirtEvent_t event) override;
    infiniStatus_t eventRecord(infinirtEvent_t event, infinirtStream_t stream) override;
    infiniStatus_t eventQuery(infinirtEvent_t event, bool *complete) override;
    infiniStatus_t eventSynchronize(infinirtEvent_t event) override;
    infiniStatus_t eventRecordOnStreamsDevice(infinirtEvent_t *event, infinirtStream_t stream) override;
    infiniStatus_t memGranularity(size_t *granularity) override { return device_->memGranularity(granularity); }
    infiniStatus_t memReserve(void **ptr, size_t size) override { return device_->memReserve(ptr, size); }
    infiniStatus_t memFreeReservation(void *ptr, size_t size) override {
        return device_->memFreeReservation(ptr, size);
    }
    infiniStatus_t memMap(void *ptr, size_t size) override { return device_->memMap(ptr, size); }
    infiniStatus_t memUnmap(void *ptr, size_t size) override;
    std::string lastError() const override { return device_->lastError(); }

private:
    bool wasReset() const { return reset_.load(std::memory_order_acquire); }

    const std::shared_ptr<RawDevice> device_;
    std::atomic<bool> reset_{false};
};

} // namespace infinicore::detail

#endif // INFINICORE_CORE_RESETTABLE_DEVICE_HPP
