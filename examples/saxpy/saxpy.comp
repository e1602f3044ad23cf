// saxpy for vulkan: y[i] = a * x[i] + y[i]. Its parameters are the push-constant block's members
// in order (docs/kernels.md): the two pointers arrive as buffer device addresses, a and n as
// values; the block's size is the launch's (specialization constants 0, 1 and 2).
#version 460
#extension GL_EXT_buffer_reference : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(buffer_reference, std430) buffer Floats { float v[]; };
layout(buffer_reference, std430) readonly buffer InFloats { float v[]; };

layout(push_constant) uniform Arguments {
    Floats y;
    InFloats x;
    float a;
    uint n;
};

void main() {
    const uint i = gl_WorkGroupID.x * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (i < n) {
        y.v[i] = a * x.v[i] + y.v[i];
    }
}
