#include "raw_device.hpp"

#include "device_guard.hpp"

#include <mutex>
#include <vector>

namespace infinicore::detail {

RawDevice::~RawDevice() = default;

namespace {

thread_local std::string t_last_error;

// Copies the thread's C ABI message on failure, before any other infinirt call (the guard's
// restoring SetDevice among them) replaces it.
infiniStatus_t remember(infiniStatus_t status) {
    if (status != INFINI_STATUS_SUCCESS) {
        t_last_error = infinirtGetLastErrorMessage();
    }
    return status;
}

class InfinirtDevice final : public RawDevice {
public:
    explicit InfinirtDevice(Device device) : device_(device) {}

    Device device() const override { return device_; }

    infiniStatus_t malloc(void **ptr, size_t size) override {
        DeviceGuard guard(device_);
        if (guard.status() != INFINI_STATUS_SUCCESS) {
            return remember(guard.status());
        }
        return remember(infinirtMalloc(ptr, size));
    }
    // Handles and pointers carry their device: no guard needed.
    infiniStatus_t free(void *ptr) override { return remember(infinirtFree(ptr)); }
    infiniStatus_t mallocHost(void **ptr, size_t size) override {
        DeviceGuard guard(device_);
        if (guard.status() != INFINI_STATUS_SUCCESS) {
            return remember(guard.status());
        }
        return remember(infinirtMallocHost(ptr, size));
    }
    infiniStatus_t freeHost(void *ptr) override { return remember(infinirtFreeHost(ptr)); }
    infiniStatus_t memInfo(size_t *free_bytes, size_t *total_bytes) override {
        return remember(infinirtGetMemInfo(device_.cType(), static_cast<int>(device_.getIndex()), free_bytes,
                                           total_bytes));
    }
    infiniStatus_t synchronize() override {
        DeviceGuard guard(device_);
        if (guard.status() != INFINI_STATUS_SUCCESS) {
            return remember(guard.status());
        }
        return remember(infinirtDeviceSynchronize());
    }
    infiniStatus_t streamSynchronize(infinirtStream_t stream) override {
        DeviceGuard guard(device_); // a NULL stream is this device's default stream
        if (guard.status() != INFINI_STATUS_SUCCESS) {
            return remember(guard.status());
        }
        return remember(infinirtStreamSynchronize(stream));
    }
    infiniStatus_t eventCreate(infinirtEvent_t *event) override {
        DeviceGuard guard(device_);
        if (guard.status() != INFINI_STATUS_SUCCESS) {
            return remember(guard.status());
        }
        return remember(infinirtEventCreateWithFlags(event, INFINIRT_EVENT_DISABLE_TIMING));
    }
    infiniStatus_t eventDestroy(infinirtEvent_t event) override { return remember(infinirtEventDestroy(event)); }
    infiniStatus_t eventRecord(infinirtEvent_t event, infinirtStream_t stream) override {
        return remember(infinirtEventRecord(event, stream));
    }
    infiniStatus_t eventQuery(infinirtEvent_t event, bool *complete) override {
        infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
        infiniStatus_t result = remember(infinirtEventQuery(event, &status));
        if (result == INFINI_STATUS_SUCCESS) {
            *complete = status == INFINIRT_EVENT_COMPLETE;
        }
        return result;
    }
    infiniStatus_t eventSynchronize(infinirtEvent_t event) override {
        return remember(infinirtEventSynchronize(event));
    }
    infiniStatus_t eventRecordOnStreamsDevice(infinirtEvent_t *event, infinirtStream_t stream) override {
        infiniDevice_t type = INFINI_DEVICE_CPU;
        int id = 0;
        if (infiniStatus_t st = remember(infinirtStreamGetDevice(stream, &type, &id))) {
            return st;
        }
        DeviceGuard guard(Device(static_cast<Device::Type>(type), static_cast<Device::Index>(id)));
        if (guard.status() != INFINI_STATUS_SUCCESS) {
            return remember(guard.status());
        }
        infinirtEvent_t made = nullptr;
        if (infiniStatus_t st = remember(infinirtEventCreateWithFlags(&made, INFINIRT_EVENT_DISABLE_TIMING))) {
            return st;
        }
        if (infiniStatus_t st = remember(infinirtEventRecord(made, stream))) {
            (void)infinirtEventDestroy(made);
            return st;
        }
        *event = made;
        return INFINI_STATUS_SUCCESS;
    }
    infiniStatus_t memGranularity(size_t *granularity) override {
        return remember(infinirtMemGetAllocationGranularity(granularity, type(), id(),
                                                            INFINIRT_MEM_GRANULARITY_RECOMMENDED));
    }
    infiniStatus_t memReserve(void **ptr, size_t size) override {
        return remember(infinirtMemAddressReserve(ptr, type(), id(), size, 0));
    }
    infiniStatus_t memFreeReservation(void *ptr, size_t size) override {
        return remember(infinirtMemAddressFree(ptr, size));
    }
    infiniStatus_t memMap(void *ptr, size_t size) override {
        infinirtPhysicalMem_t mem = nullptr;
        if (infiniStatus_t st = remember(infinirtMemCreate(&mem, type(), id(), size, 0))) {
            return st;
        }
        infiniStatus_t st = remember(infinirtMemMap(ptr, size, mem, 0));
        // Mapped, the memory lives until its unmap; unmapped, it goes now.
        (void)infinirtMemRelease(mem);
        if (st != INFINI_STATUS_SUCCESS) {
            return st;
        }
        for (int peer : peers()) {
            if (infiniStatus_t failed = remember(infinirtMemSetAccess(ptr, size, type(), peer,
                                                                      INFINIRT_MEM_ACCESS_READWRITE))) {
                (void)infinirtMemUnmap(ptr, size);
                return failed;
            }
        }
        return INFINI_STATUS_SUCCESS;
    }
    infiniStatus_t memUnmap(void *ptr, size_t size) override { return remember(infinirtMemUnmap(ptr, size)); }
    std::string lastError() const override { return t_last_error; }

private:
    infiniDevice_t type() const { return device_.cType(); }
    int id() const { return static_cast<int>(device_.getIndex()); }
    // The devices of this one's type that can access its memory; found once.
    const std::vector<int> &peers() {
        std::call_once(peers_found_, [this] {
            int count = 0;
            if (infinirtGetDeviceCount(type(), &count) != INFINI_STATUS_SUCCESS) {
                return;
            }
            for (int other = 0; other < count; ++other) {
                int can_access = 0;
                if (other != id() &&
                    infinirtDeviceCanAccessPeer(&can_access, type(), other, type(), id()) == INFINI_STATUS_SUCCESS &&
                    can_access == 1) {
                    peers_.push_back(other);
                }
            }
        });
        return peers_;
    }

    Device device_;
    std::once_flag peers_found_;
    std::vector<int> peers_;
};

} // namespace

std::shared_ptr<RawDevice> makeInfinirtDevice(Device device) {
    return std::make_shared<InfinirtDevice>(device);
}

} // namespace infinicore::detail
