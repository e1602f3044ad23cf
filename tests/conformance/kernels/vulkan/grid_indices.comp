// grid_indices(out): each thread writes its global x, y and z at its linear index.
#version 460
#extension GL_EXT_buffer_reference : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(buffer_reference, std430) writeonly buffer Ints { int v[]; };

layout(push_constant) uniform Arguments {
    Ints result;
};

void main() {
    const uvec3 g = gl_GlobalInvocationID;
    const uvec3 size = gl_NumWorkGroups * gl_WorkGroupSize;
    const uint linear = (g.z * size.y + g.y) * size.x + g.x;
    result.v[3 * linear + 0] = int(g.x);
    result.v[3 * linear + 1] = int(g.y);
    result.v[3 * linear + 2] = int(g.z);
}
