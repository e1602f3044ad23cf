// DeviceGuard: makes a device the calling thread's current C ABI device for a scope, because the
// C ABI creates streams, events and allocations on the current device.
#ifndef INFINICORE_CORE_DEVICE_GUARD_HPP
#define INFINICORE_CORE_DEVICE_GUARD_HPP

#include "infinicore/device.hpp"
#include "infinirt.h"

namespace infinicore::detail {

// Not copyable. Never throws: a failure to switch is reported by status() (and the C ABI's message
// is then the thread's last error); the destructor restores the previous device only if it switched.
class DeviceGuard {
public:
    explicit DeviceGuard(Device device) noexcept;
    ~DeviceGuard();
    DeviceGuard(const DeviceGuard &) = delete;
    DeviceGuard &operator=(const DeviceGuard &) = delete;

    infiniStatus_t status() const noexcept { return status_; }

private:
    infiniStatus_t status_ = INFINI_STATUS_SUCCESS;
    bool switched_ = false;
    infiniDevice_t previous_type_ = INFINI_DEVICE_CPU;
    int previous_index_ = 0;
};

} // namespace infinicore::detail

#endif // INFINICORE_CORE_DEVICE_GUARD_HPP
