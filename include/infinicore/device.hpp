// infinicore::Device: a device type and an index, e.g. nvidia:3.
//
// Thread safety: a value type; immutable once built.
#ifndef INFINICORE_DEVICE_HPP
#define INFINICORE_DEVICE_HPP

#include "../infinicore.h"

#include <cstddef>
#include <string>

namespace infinicore {

class __export Device {
public:
    using Index = std::size_t;

    // Same values as infiniDevice_t, so a Type converts to and from the C ABI with a cast.
    enum class Type {
        CPU = INFINI_DEVICE_CPU,
        NVIDIA = INFINI_DEVICE_NVIDIA,
        CAMBRICON = INFINI_DEVICE_CAMBRICON,
        ASCEND = INFINI_DEVICE_ASCEND,
        METAX = INFINI_DEVICE_METAX,
        MOORE = INFINI_DEVICE_MOORE,
        ILUVATAR = INFINI_DEVICE_ILUVATAR,
        KUNLUN = INFINI_DEVICE_KUNLUN,
        HYGON = INFINI_DEVICE_HYGON,
        QY = INFINI_DEVICE_QY,
        ALI = INFINI_DEVICE_ALI,
        AMD = INFINI_DEVICE_AMD,
        OPENCL = INFINI_DEVICE_OPENCL,
        VULKAN = INFINI_DEVICE_VULKAN,
        COUNT = INFINI_DEVICE_TYPE_COUNT,
    };

    // cpu:0.
    Device() = default;
    // Explicit so that a bare Type never silently becomes "index 0 of that type".
    explicit Device(Type type, Index index = 0) : type_(type), index_(index) {}

    const Type &getType() const { return type_; }
    const Index &getIndex() const { return index_; }
    infiniDevice_t cType() const { return static_cast<infiniDevice_t>(type_); }

    // "nvidia:3"; the type names are the lower-case enumerator names.
    std::string toString() const;
    static std::string toString(const Type &type);

    bool operator==(const Device &other) const { return type_ == other.type_ && index_ == other.index_; }
    bool operator!=(const Device &other) const { return !(*this == other); }

private:
    Type type_ = Type::CPU;
    Index index_ = 0;
};

} // namespace infinicore

#endif // INFINICORE_DEVICE_HPP
