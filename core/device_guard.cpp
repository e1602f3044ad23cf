#include "device_guard.hpp"

namespace infinicore::detail {

DeviceGuard::DeviceGuard(Device device) noexcept {
    infiniDevice_t current_type = INFINI_DEVICE_CPU;
    int current_index = 0;
    status_ = infinirtGetDevice(&current_type, &current_index);
    if (status_ != INFINI_STATUS_SUCCESS) {
        return;
    }
    if (current_type == device.cType() && current_index == static_cast<int>(device.getIndex())) {
        return;
    }
    status_ = infinirtPushDevice(device.cType(), static_cast<int>(device.getIndex()));
    pushed_ = status_ == INFINI_STATUS_SUCCESS;
}

DeviceGuard::~DeviceGuard() {
    if (pushed_) {
        // The entry is this scope's own (guards nest as scopes do); there is nothing better to do
        // with a failure of the backend's restore in a destructor.
        (void)infinirtPopDevice(nullptr, nullptr);
    }
}

} // namespace infinicore::detail
