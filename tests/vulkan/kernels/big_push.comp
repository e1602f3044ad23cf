// big_push(out, c[64]): 264 bytes of push constants, over lavapipe's and most devices' limit, so
// its load is BUILD_FAILED there naming maxPushConstantsSize (where a device takes 264 bytes it runs).
#version 460
#extension GL_EXT_buffer_reference : require

layout(local_size_x_id = 0) in;

layout(buffer_reference, std430) writeonly buffer Floats { float v[]; };

layout(push_constant) uniform Arguments {
    Floats result;
    float c[64];
};

void main() {
    result.v[gl_GlobalInvocationID.x] = c[gl_GlobalInvocationID.x % 64];
}
