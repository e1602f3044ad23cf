// vector_add(a, b, c, n): c[i] = a[i] + b[i] for i < n. The conformance kernel set in GLSL for
// the vulkan backend (one kernel per file; kernels.cmake compiles each with glslc, names its entry
// point after the file and links them into one module). The argument layout: docs/kernels.md.
#version 460
#extension GL_EXT_buffer_reference : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(buffer_reference, std430) readonly buffer Floats { float v[]; };
layout(buffer_reference, std430) writeonly buffer OutFloats { float v[]; };

layout(push_constant) uniform Arguments {
    Floats a;
    Floats b;
    OutFloats c;
    int n;
};

void main() {
    const int i = int(gl_WorkGroupID.x * gl_WorkGroupSize.x + gl_LocalInvocationID.x);
    if (i < n) {
        c.v[i] = a.v[i] + b.v[i];
    }
}
