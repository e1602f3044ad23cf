#include "infinicore/device.hpp"

namespace infinicore {

std::string Device::toString(const Type &type) {
    switch (type) {
    case Type::CPU: return "cpu";
    case Type::NVIDIA: return "nvidia";
    case Type::CAMBRICON: return "cambricon";
    case Type::ASCEND: return "ascend";
    case Type::METAX: return "metax";
    case Type::MOORE: return "moore";
    case Type::ILUVATAR: return "iluvatar";
    case Type::KUNLUN: return "kunlun";
    case Type::HYGON: return "hygon";
    case Type::QY: return "qy";
    case Type::ALI: return "ali";
    case Type::AMD: return "amd";
    case Type::OPENCL: return "opencl";
    case Type::VULKAN: return "vulkan";
    case Type::COUNT: break;
    }
    return "unknown(" + std::to_string(static_cast<int>(type)) + ")";
}

std::string Device::toString() const {
    return toString(type_) + ":" + std::to_string(index_);
}

} // namespace infinicore
