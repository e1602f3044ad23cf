// The empty kernel of infinirt-bench's launch latency, for vulkan (the module file's Vulkan SPIR-V
// entry; cmake/InfinirtKernels.cmake names its entry point "empty" after this file). It declares
// a buffer reference type it never uses, as every kernel of a linked module must share one
// addressing model (PhysicalStorageBuffer64).
#version 460
#extension GL_EXT_buffer_reference : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(buffer_reference) buffer Unused { float v; };
layout(push_constant) uniform Nothing { Unused unused; } nothing_;

void main() {}
