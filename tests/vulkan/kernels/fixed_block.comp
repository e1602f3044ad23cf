// fixed_block(out): a block the module fixes at 64 x 1 x 1, with 1 KiB of static shared memory;
// out[group * 64 + t] = the thread's index read back through shared memory, reversed.
#version 460
#extension GL_EXT_buffer_reference : require

layout(local_size_x = 64) in;

shared uint staged[256];

layout(buffer_reference, std430) writeonly buffer Uints { uint v[]; };

layout(push_constant) uniform Arguments {
    Uints result;
};

void main() {
    const uint t = gl_LocalInvocationID.x;
    staged[t] = t;
    barrier();
    result.v[gl_WorkGroupID.x * 64 + t] = staged[63 - t];
}
