// The vulkan devices found, as a test parameter list (empty where there is none).
#pragma once

#include "infinirt.h"

#include <vector>

inline std::vector<int> vulkanDevices() {
    int count = 0;
    if (infinirtGetDeviceCount(INFINI_DEVICE_VULKAN, &count) != INFINI_STATUS_SUCCESS) {
        return {};
    }
    std::vector<int> ids;
    for (int i = 0; i < count; ++i) {
        ids.push_back(i);
    }
    return ids;
}
