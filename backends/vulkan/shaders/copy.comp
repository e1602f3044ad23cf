// copy.comp - the vulkan backend's device-to-device copy (vulkan_memory.cpp): 16-byte words from
// one buffer device address to another. Each invocation moves kUnroll words per step (all loads
// first, then all stores, so that several are in flight), a work group's words side by side for
// coalescing, in a grid-stride loop over the rest. Both addresses and the size are multiples of 16
// (the plugin copies anything else with vkCmdCopyBuffer). Compiled into copy.spv.h by
// scripts/vulkan-shaders.sh.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;

// Words per invocation and step: recordShaderCopy (vulkan_pipelines.cpp) sizes the grid with it.
const uint kUnroll = 4;

layout(buffer_reference, std430, buffer_reference_align = 16) buffer Word {
    uvec4 value;
};

layout(push_constant) uniform Arguments {
    uint64_t src;   // buffer device address
    uint64_t dst;   // buffer device address
    uint64_t count; // 16-byte words
} args;

void main() {
    const uint64_t group_words = uint64_t(gl_WorkGroupSize.x) * kUnroll;
    const uint64_t stride = uint64_t(gl_NumWorkGroups.x) * group_words;
    for (uint64_t base = uint64_t(gl_WorkGroupID.x) * group_words + gl_LocalInvocationID.x; base < args.count;
         base += stride) {
        uvec4 words[kUnroll];
        [[unroll]] for (uint k = 0; k < kUnroll; ++k) {
            const uint64_t i = base + k * gl_WorkGroupSize.x;
            if (i < args.count) {
                words[k] = Word(args.src + i * 16).value;
            }
        }
        [[unroll]] for (uint k = 0; k < kUnroll; ++k) {
            const uint64_t i = base + k * gl_WorkGroupSize.x;
            if (i < args.count) {
                Word(args.dst + i * 16).value = words[k];
            }
        }
    }
}
