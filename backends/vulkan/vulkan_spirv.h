// What the vulkan backend reads from a Vulkan SPIR-V module (vulkan_spirv.cpp): its compute entry
// points with their argument layout, block size and shared memory, the capabilities it declares
// and its specialization constants. Parsed once at module load; the module's words are never
// trusted: every read is bounded and a malformed module is refused with the reason.
//
// The argument layout (docs/kernels.md, "Vulkan"): a kernel's parameters are the members of its
// push-constant block, in order, at the offsets the module declares (std430, as glslc writes
// them). A POINTER argument is a 64-bit buffer device address. Where the block's only member is a
// read-only buffer reference to a block holding no runtime-sized array, the parameters are the
// members of that block instead ("indirect": the plugin writes them into a buffer and pushes its
// address), for arguments over the device's maxPushConstantsSize.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace infinirt::vulkan {

// Specialization constant ids the launch sets (docs/kernels.md).
inline constexpr uint32_t kSpecBlockX = 0;              // block[0]; 1 and 2: block[1], block[2]
inline constexpr uint32_t kSpecDynamicSharedBytes = 3;  // config.dynamic_shared_bytes
inline constexpr uint32_t kSpecLocalArgumentBase = 100; // + i: the bytes of argument i when it is LOCAL

struct SpirvParam {
    uint32_t offset = 0; // in the argument block
    uint32_t size = 0;   // bytes of its type
    uint32_t padded = 0; // size rounded up to its alignment (a host struct may carry the padding)
    bool address = false; // a buffer reference, a 64-bit integer or two 32-bit ones: takes a POINTER
    bool integer = false; // a 32- or 64-bit integer scalar: takes a LOCAL (its byte count)
    std::string type;     // "float", "uint64", "buffer reference", "struct of 32 bytes", ... for messages
};

struct SpirvEntryPoint {
    std::string name;
    // Each block dimension is sized by specialization constant spec_id[d] (>= 0), or fixed at
    // fixed_size[d] (spec_id[d] = -1).
    int64_t spec_id[3] = {-1, -1, -1};
    uint32_t fixed_size[3] = {1, 1, 1};
    std::vector<SpirvParam> params;
    bool indirect = false;
    uint32_t push_bytes = 0;      // the push-constant block's size (0: the entry has none)
    uint32_t address_offset = 0;  // indirect: where the arguments' address goes in the block
    uint32_t arguments_bytes = 0; // indirect: the size of the arguments' block
    uint64_t static_shared = 0;   // bytes of Workgroup variables not sized by specialization constants
    // Whether its code, or a function it calls, names memory that outlives the dispatch: a buffer,
    // an image, a buffer reference (any storage class but Input, Output, Workgroup, Private,
    // Function and PushConstant). An entry that names none reads and writes nothing another
    // command can see, so a stream needs no barrier around its dispatch.
    bool touches_memory = true;
};

struct SpirvSpecConstant {
    uint32_t id = 0;
    uint32_t bytes = 4; // 4 (32-bit scalars and booleans) or 8
};

struct SpirvModule {
    uint32_t version = 0; // 0x00010500 for SPIR-V 1.5
    std::vector<uint32_t> capabilities;
    std::vector<SpirvSpecConstant> spec_constants;
    std::vector<SpirvEntryPoint> entries; // the GLCompute entry points, in the module's order
};

// Reads `bytes` bytes of SPIR-V (any alignment, either byte order). False with *why saying what
// is wrong when it is not SPIR-V this backend can read.
bool readSpirv(const void *bytes, size_t size, SpirvModule *out, std::string *why);

// "Float64" etc. for the capabilities the backend checks against the device; nullptr otherwise.
const char *capabilityName(uint32_t capability);

} // namespace infinirt::vulkan
