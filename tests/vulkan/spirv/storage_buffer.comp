// Copies within a descriptor-bound storage buffer (a StorageBuffer variable, no buffer reference).
#version 460

layout(local_size_x = 1) in;

layout(std430, set = 0, binding = 0) buffer Data { float v[]; } data_;

void main() { data_.v[1] = data_.v[0]; }
