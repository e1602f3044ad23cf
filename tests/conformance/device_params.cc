#include "device_params.h"

namespace infinirt_test {

std::string DeviceTypeName(infiniDevice_t type) {
    static const char *const kNames[] = {"cpu",      "nvidia", "cambricon", "ascend", "metax", "moore", "iluvatar",
                                         "kunlun",   "hygon",  "qy",        "ali",    "amd",   "opencl", "vulkan"};
    static_assert(sizeof(kNames) / sizeof(kNames[0]) == INFINI_DEVICE_TYPE_COUNT, "one name per device type");
    if (type >= 0 && type < INFINI_DEVICE_TYPE_COUNT) {
        return kNames[type];
    }
    return "type" + std::to_string(static_cast<int>(type));
}

static std::string LoadedBackendName(infiniDevice_t type) {
    int backends = 0;
    if (infinirtGetBackendCount(&backends) != INFINI_STATUS_SUCCESS) {
        return "";
    }
    for (int i = 0; i < backends; ++i) {
        infinirtBackendInfo_t info{};
        info.struct_size = sizeof(info);
        if (infinirtGetBackendInfo(i, &info) == INFINI_STATUS_SUCCESS && info.state == INFINIRT_BACKEND_LOADED &&
            info.device_type == type) {
            return info.name;
        }
    }
    return "";
}

std::vector<DeviceParam> AllDevices() {
    std::vector<DeviceParam> devices;
    int counts[INFINI_DEVICE_TYPE_COUNT] = {};
    if (infinirtGetAllDeviceCountSized(counts, INFINI_DEVICE_TYPE_COUNT) != INFINI_STATUS_SUCCESS) {
        return devices;
    }
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        const auto type = static_cast<infiniDevice_t>(t);
        const std::string backend = counts[t] > 0 ? LoadedBackendName(type) : "";
        for (int id = 0; id < counts[t]; ++id) {
            devices.push_back(DeviceParam{type, id, backend});
        }
    }
    return devices;
}

std::vector<std::pair<DeviceParam, DeviceParam>> DevicePairs() {
    const std::vector<DeviceParam> devices = AllDevices();
    std::vector<std::pair<DeviceParam, DeviceParam>> pairs;
    for (const DeviceParam &d : devices) {
        const DeviceParam *partner = nullptr;
        for (const DeviceParam &other : devices) {
            if (other.type == d.type && other.id != d.id) {
                partner = &other;
                break;
            }
        }
        for (const DeviceParam &other : devices) {
            if (partner == nullptr && other.type != d.type) {
                partner = &other;
            }
        }
        if (partner != nullptr) {
            pairs.emplace_back(d, *partner);
        }
    }
    return pairs;
}

std::vector<std::pair<DeviceParam, DeviceParam>> AllOrderedPairs() {
    const std::vector<DeviceParam> devices = AllDevices();
    std::vector<std::pair<DeviceParam, DeviceParam>> pairs;
    for (const DeviceParam &a : devices) {
        for (const DeviceParam &b : devices) {
            if (a.type != b.type || a.id != b.id) {
                pairs.emplace_back(a, b);
            }
        }
    }
    return pairs;
}

std::string InstanceName(const DeviceParam &device) {
    return DeviceTypeName(device.type) + "_" + std::to_string(device.id);
}

} // namespace infinirt_test
