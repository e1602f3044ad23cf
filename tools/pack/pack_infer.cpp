// pack_infer.cpp - backend, format and architecture from the extension and the image's header.
#include "pack_infer.h"

#include "common/spirv.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace infinirt_pack_tool {

namespace {

bool endsWith(const std::string &s, const char *suffix) {
    const size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

uint32_t le32(const unsigned char *p) {
    return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
           (static_cast<uint32_t>(p[3]) << 24);
}

// An ELF file's (class, machine, flags); false if it is no little-endian ELF.
bool elfHeader(const std::vector<unsigned char> &b, unsigned &machine, uint32_t &flags, unsigned &abi_version) {
    if (b.size() < 52 || b[0] != 0x7f || b[1] != 'E' || b[2] != 'L' || b[3] != 'F' || b[5] != 1) {
        return false;
    }
    machine = static_cast<unsigned>(b[18] | (b[19] << 8));
    abi_version = b[8];
    const size_t flags_at = b[4] == 2 ? 48 : 36; // ELF64 : ELF32
    if (b.size() < flags_at + 4) {
        return false;
    }
    flags = le32(&b[flags_at]);
    return true;
}

// The cubin's sm_XY from e_flags: the low byte up to sm_90 (ABI version < 8, EF_CUDA_ACCELERATORS_V1
// 0x800 for the "a" variant), bits 8-15 from the ABI of Blackwell (ABI version 8).
std::string cubinArch(const std::vector<unsigned char> &b) {
    unsigned machine = 0, abi = 0;
    uint32_t flags = 0;
    if (!elfHeader(b, machine, flags, abi) || machine != 190) {
        return "";
    }
    const unsigned sm = abi >= 8 ? (flags >> 8) & 0xff : flags & 0xff;
    if (sm == 0) {
        return "";
    }
    return "sm_" + std::to_string(sm) + (abi < 8 && (flags & 0x800) != 0 ? "a" : "");
}

// The machine a host shared object is for, as uname -m names it.
std::string soArch(const std::vector<unsigned char> &b) {
    unsigned machine = 0, abi = 0;
    uint32_t flags = 0;
    if (b.size() >= 20 && b[0] == 0x7f && b[1] == 'E' && b[5] == 2) {
        return ""; // big-endian: not guessed
    }
    if (!elfHeader(b, machine, flags, abi)) {
        return "";
    }
    switch (machine) {
    case 3: return "i686";
    case 62: return "x86_64";
    case 40: return "armv7l";
    case 183: return "aarch64";
    case 243: return b[4] == 2 ? "riscv64" : "riscv32";
    case 21: return "ppc64le";
    case 258: return "loongarch64";
    default: return "";
    }
}

// PTX's ".target sm_XY" as compute_XY; "any" without one.
std::string ptxArch(const std::vector<unsigned char> &b) {
    const std::string text(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(b.size(), 1u << 16)));
    const size_t t = text.find(".target");
    if (t == std::string::npos) {
        return "any";
    }
    size_t p = text.find("sm_", t);
    const size_t eol = text.find('\n', t);
    if (p == std::string::npos || (eol != std::string::npos && p > eol)) {
        return "any";
    }
    p += 3;
    std::string digits;
    while (p < text.size() && text[p] >= '0' && text[p] <= '9') {
        digits += text[p++];
    }
    return digits.empty() ? "any" : "compute_" + digits;
}

} // namespace

Inferred inferEntry(const std::string &path, const std::vector<unsigned char> &bytes) {
    if (endsWith(path, ".ptx")) {
        return {"cuda", 1, ptxArch(bytes)};
    }
    if (endsWith(path, ".cubin")) {
        return {"cuda", 2, cubinArch(bytes)};
    }
    if (endsWith(path, ".fatbin")) {
        return {"cuda", 3};
    }
    if (endsWith(path, ".hsaco")) {
        return {"hip", 4};
    }
    if (endsWith(path, ".cl")) {
        return {"opencl", 5};
    }
    if (endsWith(path, ".spv")) { // by its flavour: Vulkan's Shader capability, or OpenCL's Kernel
        const bool vulkan = infinirt::common::spirvFlavour(bytes.data(), bytes.size()) ==
                            infinirt::common::SpirvFlavour::Vulkan;
        return {vulkan ? "vulkan" : "opencl", 6};
    }
    if (endsWith(path, ".so") || path.find(".so.") != std::string::npos) {
        return {"cpu", 8, soArch(bytes)};
    }
    return {};
}

} // namespace infinirt_pack_tool
