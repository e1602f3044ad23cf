// The devices the conformance suite runs on, discovered at run time through the C ABI only.
#ifndef INFINIRT_TESTS_DEVICE_PARAMS_H
#define INFINIRT_TESTS_DEVICE_PARAMS_H

#include <infinirt.h>

#include <ostream>
#include <string>
#include <vector>

namespace infinirt_test {

struct DeviceParam {
    infiniDevice_t type;
    int id;
    std::string backend; // name of the LOADED backend serving `type` ("" if none is listed)
};

// "cpu", "nvidia", ... for a valid type; "type<N>" otherwise.
std::string DeviceTypeName(infiniDevice_t type);

// Every (type, id) reported by infinirtGetAllDeviceCount, in type order. Empty if that call fails.
std::vector<DeviceParam> AllDevices();

// For each device, one partner to test cross-device behaviour with: another device of the same
// type if there is one, else the first device of another type. Devices with no partner are left out.
std::vector<std::pair<DeviceParam, DeviceParam>> DevicePairs();

// Every ordered pair of two different devices (a, b), a != b: the peer tests run on each.
std::vector<std::pair<DeviceParam, DeviceParam>> AllOrderedPairs();

// "cpu_0": a GoogleTest-compatible instance name.
std::string InstanceName(const DeviceParam &device);

inline std::ostream &operator<<(std::ostream &os, const DeviceParam &device) {
    return os << InstanceName(device) << " (backend \"" << device.backend << "\")";
}

} // namespace infinirt_test

#endif // INFINIRT_TESTS_DEVICE_PARAMS_H
