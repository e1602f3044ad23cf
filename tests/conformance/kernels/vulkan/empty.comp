// empty(): no arguments, no work. It declares a buffer reference type it never uses so that its
// addressing model is the other kernels' (PhysicalStorageBuffer64): spirv-link links only modules
// of one addressing model.
#version 460
#extension GL_EXT_buffer_reference : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(buffer_reference) buffer Unused { float v; };
layout(push_constant) uniform Nothing { Unused unused; } nothing_;

void main() {}
