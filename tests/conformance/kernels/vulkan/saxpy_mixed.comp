// saxpy_mixed(y, x, a, b, k, big, p, n): every kind of by-value argument (float, double, int,
// int64, a struct with a 16-byte aligned member) beside two pointers, as in kernels.cl.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(buffer_reference, std430) buffer Floats { float v[]; };

struct Packet {
    int tag;
    vec4 v; // offset 16: the struct is 32 bytes, as the host's Packet
};

layout(push_constant) uniform Arguments {
    Floats y;
    Floats x;
    float a;
    double b;
    int k;
    int64_t big;
    Packet p;
    int n;
};

void main() {
    const int i = int(gl_WorkGroupID.x * gl_WorkGroupSize.x + gl_LocalInvocationID.x);
    if (i < n) {
        y.v[i] = a * x.v[i] + float(b) + float(k) + float(big >> 32) + float(p.tag) + p.v.x + 2.0 * p.v.y +
                 3.0 * p.v.z + 4.0 * p.v.w;
    }
}
