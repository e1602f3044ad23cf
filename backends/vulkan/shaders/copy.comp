// copy.comp - the vulkan backend's device-to-device copy (vulkan_memory.cpp): 16-byte words from
// one buffer device address to another, a grid-stride loop. Both addresses and the size are
// multiples of 16 (the plugin copies anything else with vkCmdCopyBuffer). Compiled into
// copy.spv.h by scripts/vulkan-shaders.sh.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;

layout(buffer_reference, std430, buffer_reference_align = 16) buffer Word {
    uvec4 value;
};

layout(push_constant) uniform Arguments {
    uint64_t src;   // buffer device address
    uint64_t dst;   // buffer device address
    uint64_t count; // 16-byte words
} args;

void main() {
    const uint64_t stride = uint64_t(gl_NumWorkGroups.x) * gl_WorkGroupSize.x;
    for (uint64_t i = gl_GlobalInvocationID.x; i < args.count; i += stride) {
        Word(args.dst + i * 16).value = Word(args.src + i * 16).value;
    }
}
