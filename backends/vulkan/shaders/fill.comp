// fill.comp - the ragged edges of the vulkan backend's memset (vulkan_memory.cpp): vkCmdFillBuffer
// writes whole aligned 4-byte words only, so the up to 3 bytes before the first whole word and
// after the last are set here, in the word holding them, by a compare-and-swap that changes only
// those bytes (other bytes of the word may belong to other commands). Invocation 0 sets the head
// word, invocation 1 the tail word; an address of 0 means no such word. Compiled into fill.spv.h
// by scripts/vulkan-shaders.sh.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 2) in;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Word {
    uint value;
};

layout(push_constant) uniform Arguments {
    uint64_t word[2]; // 4-byte aligned buffer device addresses of the head and tail words (0: none)
    uint mask[2];     // the bytes of each word to set
    uint value;       // the byte value in all four bytes
} args;

void main() {
    const uint i = gl_LocalInvocationID.x;
    if (args.word[i] == 0) {
        return;
    }
    Word word = Word(args.word[i]);
    uint seen = atomicOr(word.value, 0u);
    for (;;) {
        const uint wanted = (seen & ~args.mask[i]) | (args.value & args.mask[i]);
        const uint before = atomicCompSwap(word.value, seen, wanted);
        if (before == seen) {
            break;
        }
        seen = before;
    }
}
