#include "device_guard.hpp"

namespace infinicore::detail {

DeviceGuard::DeviceGuard(Device device) noexcept {
    status_ = infinirtGetDevice(&previous_type_, &previous_index_);
    if (status_ != INFINI_STATUS_SUCCESS) {
        return;
    }
    if (previous_type_ == device.cType() && previous_index_ == static_cast<int>(device.getIndex())) {
        return;
    }
    status_ = infinirtSetDevice(device.cType(), static_cast<int>(device.getIndex()));
    switched_ = status_ == INFINI_STATUS_SUCCESS;
}

DeviceGuard::~DeviceGuard() {
    if (switched_) {
        // The previous device was current a moment ago, so switching back cannot fail for a
        // missing device; there is nothing better to do with another failure in a destructor.
        (void)infinirtSetDevice(previous_type_, previous_index_);
    }
}

} // namespace infinicore::detail
