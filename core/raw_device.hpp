// RawDevice: the few uncached operations the allocators build on, for one device.
//
// An interface so that allocator tests can substitute a device whose events they complete by hand;
// the real one (makeInfinirtDevice) goes through the C ABI and nothing else.
//
// Contract for every method: returns the C ABI status and never throws; after a failure,
// lastError() gives the detail captured at the failure (the C ABI message lives only until the
// thread's next infinirt call, so it is copied at once). Thread safety: all methods may be called
// concurrently; lastError() is per calling thread.
#ifndef INFINICORE_CORE_RAW_DEVICE_HPP
#define INFINICORE_CORE_RAW_DEVICE_HPP

#include "infinicore/device.hpp"
#include "infinirt.h"

#include <cstddef>
#include <memory>
#include <string>

namespace infinicore::detail {

class RawDevice {
public:
    virtual ~RawDevice();

    virtual Device device() const = 0;

    // Device memory; OUT_OF_MEMORY when the device cannot satisfy the request.
    virtual infiniStatus_t malloc(void **ptr, size_t size) = 0;
    virtual infiniStatus_t free(void *ptr) = 0;
    // Page-locked host memory for copies with this device.
    virtual infiniStatus_t mallocHost(void **ptr, size_t size) = 0;
    virtual infiniStatus_t freeHost(void *ptr) = 0;
    virtual infiniStatus_t memInfo(size_t *free_bytes, size_t *total_bytes) = 0;
    virtual infiniStatus_t synchronize() = 0;
    // Waits for `stream`'s work, whatever device the stream belongs to (this one's or another's).
    virtual infiniStatus_t streamSynchronize(infinirtStream_t stream) = 0;

    // Events without timing, only for ordering.
    virtual infiniStatus_t eventCreate(infinirtEvent_t *event) = 0;
    virtual infiniStatus_t eventDestroy(infinirtEvent_t event) = 0;
    virtual infiniStatus_t eventRecord(infinirtEvent_t event, infinirtStream_t stream) = 0;
    virtual infiniStatus_t eventQuery(infinirtEvent_t event, bool *complete) = 0;
    virtual infiniStatus_t eventSynchronize(infinirtEvent_t event) = 0;
    // For a stream of another device, where this device's events cannot be recorded: creates an
    // event of the stream's own device and records it on the stream. On success the caller owns
    // the event (eventQuery, eventSynchronize and eventDestroy take it); on failure none is left.
    virtual infiniStatus_t eventRecordOnStreamsDevice(infinirtEvent_t *event, infinirtStream_t stream) = 0;

    // Virtual memory (infinirtMem*), for expandable segments; NOT_IMPLEMENTED where the backend
    // has none. The recommended granularity of this device's physical allocations:
    virtual infiniStatus_t memGranularity(size_t *granularity) = 0;
    // An inaccessible address range of `size` bytes (a multiple of the granularity).
    virtual infiniStatus_t memReserve(void **ptr, size_t size) = 0;
    virtual infiniStatus_t memFreeReservation(void *ptr, size_t size) = 0;
    // New physical memory of `size` bytes (a multiple of the granularity) mapped at `ptr`, inside
    // a reservation of this device, read-write for this device and for every device of its type
    // that can access its peers' memory. The memory goes when it is unmapped. All or nothing.
    virtual infiniStatus_t memMap(void *ptr, size_t size) = 0;
    // Unmaps [ptr, ptr + size), a run of whole memMap mappings, once the device's queued work is
    // done, and frees their memory.
    virtual infiniStatus_t memUnmap(void *ptr, size_t size) = 0;

    virtual std::string lastError() const = 0;
};

// The device `device` through the C ABI.
std::shared_ptr<RawDevice> makeInfinirtDevice(Device device);

} // namespace infinicore::detail

#endif // INFINICORE_CORE_RAW_DEVICE_HPP
