// many_arguments(out, c[40], n): 176 bytes of arguments, over the 128 bytes of push constants every
// Vulkan device has, passed in a buffer: the push-constant block's only member is a read-only
// buffer reference to the arguments' block (docs/kernels.md). out[i] = c[i % 40] * (i + 1).
#version 460
#extension GL_EXT_buffer_reference : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(buffer_reference, std430) writeonly buffer Floats { float v[]; };
layout(buffer_reference, std430) readonly buffer Arguments {
    Floats result;
    float c[40];
    uint n;
};

layout(push_constant) uniform Indirect {
    Arguments args;
};

void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i < args.n) {
        args.result.v[i] = args.c[i % 40] * float(i + 1);
    }
}
