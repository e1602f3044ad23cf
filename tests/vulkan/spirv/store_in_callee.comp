// Writes memory only inside a function that main calls, through an address main passes as an
// integer: main's own code names no buffer. Compiled without optimization, so the call stays.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 1) in;

layout(buffer_reference, std430) buffer Floats { float v[]; };
layout(push_constant) uniform Arguments { uint64_t out_address; };

void store(uint64_t address, float value) {
    Floats(address).v[0] = value;
}

void forward(uint64_t address) { store(address, 1.0); }

void main() { forward(out_address); }
