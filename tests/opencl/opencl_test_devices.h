// opencl_test_devices.h - the OpenCL devices the tests of this folder run on (their parameters).
#pragma once

#include "infinirt.h"

#include <vector>

namespace infinirt_opencl_test {

// 0 .. count-1 of the OpenCL devices infinirt sees; empty without any.
inline std::vector<int> openclDevices() {
    int count = 0;
    if (infinirtGetDeviceCount(INFINI_DEVICE_OPENCL, &count) != INFINI_STATUS_SUCCESS) {
        count = 0;
    }
    std::vector<int> ids;
    for (int i = 0; i < count; ++i) {
        ids.push_back(i);
    }
    return ids;
}

} // namespace infinirt_opencl_test
