// spirv.hpp - which flavour a SPIR-V image is: Vulkan's (the Shader capability: compute shaders,
// loaded by the vulkan backend) or OpenCL's (the Kernel capability: OpenCL kernels, loaded by
// opencl). INFINIRT_MODULE_FORMAT_SPIRV covers both; the plugins refuse the other flavour by
// name, and infinirt-pack files a .spv under the backend of its flavour. Part of the header-only
// plugin-support layer (backends/common/, namespace infinirt::common).
#ifndef INFINIRT_COMMON_SPIRV_HPP
#define INFINIRT_COMMON_SPIRV_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace infinirt::common {

enum class SpirvFlavour {
    NotSpirv, // no SPIR-V magic number (or shorter than the 5-word header)
    Vulkan,   // declares the Shader capability
    OpenCl,   // declares the Kernel capability
    Unknown,  // SPIR-V declaring neither
};

inline constexpr uint32_t kSpirvMagic = 0x07230203u;

// "Vulkan SPIR-V (the Shader capability)" and so on, for messages.
inline const char *spirvFlavourName(SpirvFlavour flavour) noexcept {
    switch (flavour) {
    case SpirvFlavour::Vulkan: return "Vulkan SPIR-V (the Shader capability: a compute shader)";
    case SpirvFlavour::OpenCl: return "OpenCL SPIR-V (the Kernel capability: OpenCL kernels)";
    case SpirvFlavour::Unknown: return "SPIR-V declaring neither the Shader nor the Kernel capability";
    case SpirvFlavour::NotSpirv: break;
    }
    return "not SPIR-V";
}

// The flavour of `size` bytes at `data` (any alignment; either byte order). Reads only the
// OpCapability instructions at the module's start and never past `size`.
inline SpirvFlavour spirvFlavour(const void *data, size_t size) noexcept {
    const unsigned char *bytes = static_cast<const unsigned char *>(data);
    if (data == nullptr || size < 20 || size % 4 != 0) {
        return SpirvFlavour::NotSpirv;
    }
    uint32_t magic = 0;
    std::memcpy(&magic, bytes, 4);
    const bool swapped = magic == __builtin_bswap32(kSpirvMagic);
    if (magic != kSpirvMagic && !swapped) {
        return SpirvFlavour::NotSpirv;
    }
    const size_t words = size / 4;
    bool shader = false, kernel = false;
    size_t at = 5;
    while (at < words) {
        uint32_t word = 0;
        std::memcpy(&word, bytes + at * 4, 4);
        if (swapped) {
            word = __builtin_bswap32(word);
        }
        const uint32_t count = word >> 16;
        const uint32_t opcode = word & 0xffffu;
        if (count == 0 || at + count > words) {
            break;
        }
        if (opcode != 17) {
            break; // capabilities come first in every valid module
        }
        if (count >= 2) { // OpCapability
            uint32_t capability = 0;
            std::memcpy(&capability, bytes + (at + 1) * 4, 4);
            if (swapped) {
                capability = __builtin_bswap32(capability);
            }
            shader = shader || capability == 1;
            kernel = kernel || capability == 6;
        }
        at += count;
    }
    return kernel ? SpirvFlavour::OpenCl : shader ? SpirvFlavour::Vulkan : SpirvFlavour::Unknown;
}

} // namespace infinirt::common

#endif // INFINIRT_COMMON_SPIRV_HPP
