// DeviceGuard: makes a device the calling thread's current C ABI device for a scope, because the
// C ABI creates streams, events and allocations on the current device. It pushes the device on
// the thread's device stack (infinirtPushDevice) and pops it at the end of the scope, so the
// caller gets back exactly what it had, its native state included (on cuda, a CUDA context of
// its own, or none).
#ifndef INFINICORE_CORE_DEVICE_GUARD_HPP
#define INFINICORE_CORE_DEVICE_GUARD_HPP

#include "infinicore/device.hpp"
#include "infinirt.h"

namespace infinicore::detail {

// Not copyable. Never throws: a failure to switch is reported by status() (and the C ABI's message
// is then the thread's last error); the destructor pops only if it pushed. A device that is
// already current is not pushed (nothing changes, so nothing needs restoring).
class DeviceGuard {
public:
    explicit DeviceGuard(Device device) noexcept;
    ~DeviceGuard();
    DeviceGuard(const DeviceGuard &) = delete;
    DeviceGuard &operator=(const DeviceGuard &) = delete;

    infiniStatus_t status() const noexcept { return status_; }

private:
    infiniStatus_t status_ = INFINI_STATUS_SUCCESS;
    bool pushed_ = false;
};

} // namespace infinicore::detail

#endif // INFINICORE_CORE_DEVICE_GUARD_HPP
