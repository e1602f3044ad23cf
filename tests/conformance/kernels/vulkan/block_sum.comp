// block_sum(in, out, scratch): a tree reduction per block in shared memory given as a LOCAL
// argument (argument 2): its bytes reach the shader as specialization constant 102 (100 + the
// argument's index), which sizes the shared array, and as the uint parameter.
#version 460
#extension GL_EXT_buffer_reference : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 102) const uint SCRATCH_BYTES = 4;
shared float scratch[SCRATCH_BYTES / 4];

layout(buffer_reference, std430) readonly buffer Floats { float v[]; };
layout(buffer_reference, std430) writeonly buffer OutFloats { float v[]; };

layout(push_constant) uniform Arguments {
    Floats in_;
    OutFloats out_;
    uint scratch_bytes;
};

void main() {
    const uint t = gl_LocalInvocationID.x;
    const uint n = gl_WorkGroupSize.x;
    scratch[t] = in_.v[gl_WorkGroupID.x * n + t];
    barrier();
    for (uint stride = n / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            scratch[t] += scratch[t + stride];
        }
        barrier();
    }
    if (t == 0) {
        out_.v[gl_WorkGroupID.x] = scratch[0];
    }
}
