// info_labels.cpp - names for the C ABI's enums, and the UUID's text.
#include "info_labels.h"

#include <cstdio>

namespace infinirt_info_tool {

const char *stateName(infinirtBackendState_t s) {
    switch (s) {
    case INFINIRT_BACKEND_LOADED: return "loaded";
    case INFINIRT_BACKEND_UNAVAILABLE: return "unavailable";
    case INFINIRT_BACKEND_FAILED: return "failed";
    case INFINIRT_BACKEND_SHADOWED: return "shadowed";
    }
    return "unknown";
}

const char *kindName(infinirtDeviceKind_t k) {
    switch (k) {
    case INFINIRT_DEVICE_KIND_CPU: return "cpu";
    case INFINIRT_DEVICE_KIND_GPU: return "gpu";
    case INFINIRT_DEVICE_KIND_ACCELERATOR: return "accelerator";
    case INFINIRT_DEVICE_KIND_UNKNOWN: break;
    }
    return nullptr;
}

const char *typeLabel(infiniDevice_t t) {
    static const char *names[] = {"cpu",    "nvidia", "cambricon", "ascend", "metax", "moore", "iluvatar",
                                  "kunlun", "hygon",  "qy",        "ali",    "amd",   "opencl", "vulkan"};
    return t >= 0 && t < INFINI_DEVICE_TYPE_COUNT ? names[t] : "unknown";
}

std::string uuidText(const infinirtDeviceProperties_t &p) {
    if (!p.has_uuid) {
        return "";
    }
    std::string s;
    for (int i = 0; i < 16; ++i) {
        char b[4];
        std::snprintf(b, sizeof b, "%02x", p.uuid[i]);
        s += b;
        if (i == 3 || i == 5 || i == 7 || i == 9) {
            s += '-';
        }
    }
    return s;
}

} // namespace infinirt_info_tool
