// out[i] = in[i] * 2 + 1, for vulkan. A Vulkan SPIR-V image takes no build options, so the SCALE
// and OFFSET that scale.cl receives from the entry's and the caller's options are written here.
#version 460
#extension GL_EXT_buffer_reference : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(buffer_reference, std430) writeonly buffer OutFloats { float v[]; };
layout(buffer_reference, std430) readonly buffer Floats { float v[]; };

layout(push_constant) uniform Arguments {
    OutFloats out_;
    Floats in_;
    int n;
};

void main() {
    const int i = int(gl_WorkGroupID.x * gl_WorkGroupSize.x + gl_LocalInvocationID.x);
    if (i < n) {
        out_.v[i] = in_.v[i] * 2.0 + 1.0;
    }
}
