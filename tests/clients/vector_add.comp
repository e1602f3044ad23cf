// docs/kernels.md's vulkan example, as written there: compiled by glslc alone (its entry point is
// GLSL's "main") for vulkan_kernel_c99.c.
#version 460
#extension GL_EXT_buffer_reference : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in; // the launch's block
layout(buffer_reference, std430) buffer Floats { float v[]; };
layout(push_constant) uniform Arguments { Floats a; Floats b; Floats c; int n; }; // the arguments, in order
void main() {
    int i = int(gl_GlobalInvocationID.x);
    if (i < n) c.v[i] = a.v[i] + b.v[i];
}
