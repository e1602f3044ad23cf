// spin(iterations, out): one thread loops `iterations` times, then writes what it computed.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(buffer_reference, std430) writeonly buffer Floats { float v[]; };

layout(push_constant) uniform Arguments {
    uint64_t iterations;
    Floats result;
};

void main() {
    if (gl_GlobalInvocationID == uvec3(0)) {
        float acc = 0.0;
        for (uint64_t i = 0; i < iterations; ++i) {
            acc = acc * 0.999999 + 1.0;
        }
        result.v[0] = acc;
    }
}
