// fills.comp - the vulkan backend's small asynchronous fills (vulkan_memory.cpp), many in one
// dispatch: each work group sets the words of one FillRecord (vulkan_pipelines.h) of a list in
// host-visible memory that the host wrote before the submission. A word holding bytes outside
// the fill (the first and the last word of a ragged range) is set by a compare-and-swap that
// changes only the fill's bytes (other bytes of the word may belong to other commands). Compiled
// into fills.spv.h by scripts/vulkan-shaders.sh.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 64) in;

struct Fill {
    uint64_t address; // the first word's buffer device address (4-byte aligned)
    uint words;       // words from there (at least 1)
    uint value;       // the byte value in all four bytes
    uint first_mask;  // the bytes of the first word to set
    uint last_mask;   // the bytes of the last word to set (both masks apply to a single word)
};

layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer Fills {
    Fill fill[];
};

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words {
    uint word[];
};

layout(push_constant) uniform Arguments {
    uint64_t fills; // buffer device address of the list's first record (one per work group)
} args;

void main() {
    const Fill f = Fills(args.fills).fill[gl_WorkGroupID.x];
    Words target = Words(f.address);
    for (uint i = gl_LocalInvocationID.x; i < f.words; i += gl_WorkGroupSize.x) {
        uint mask = 0xffffffffu;
        if (i == 0) {
            mask &= f.first_mask;
        }
        if (i == f.words - 1) {
            mask &= f.last_mask;
        }
        if (mask == 0xffffffffu) {
            target.word[i] = f.value;
            continue;
        }
        uint seen = atomicOr(target.word[i], 0u);
        for (;;) {
            const uint wanted = (seen & ~mask) | (f.value & mask);
            const uint before = atomicCompSwap(target.word[i], seen, wanted);
            if (before == seen) {
                break;
            }
            seen = before;
        }
    }
}
