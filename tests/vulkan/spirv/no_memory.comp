// Touches no memory outside its invocations and workgroup: shared memory, push constants and a
// buffer reference type that it declares but never uses.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 64) in;

layout(buffer_reference, std430) buffer Unused { float v[]; };
layout(push_constant) uniform Arguments {
    uint64_t n;
    Unused unused;
};

shared float partial[64];

float twice(float x) { return 2.0 * x; }

void main() {
    partial[gl_LocalInvocationID.x] = twice(float(n));
    barrier();
    float sum = 0.0;
    for (uint i = 0; i < 64; ++i) {
        sum += partial[i];
    }
    partial[gl_LocalInvocationID.x] = sum;
}
