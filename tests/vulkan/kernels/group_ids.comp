// group_ids(out, groups_x): out[group] = the group's linear index, for grids of any size
// (over maxComputeWorkGroupCount the launch runs in parts; gl_WorkGroupID counts across them,
// gl_NumWorkGroups would give one part's count, so the grid's width comes as an argument).
#version 460
#extension GL_EXT_buffer_reference : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(buffer_reference, std430) writeonly buffer Uints { uint v[]; };

layout(push_constant) uniform Arguments {
    Uints result;
    uint groups_x;
};

void main() {
    if (gl_LocalInvocationIndex == 0) {
        const uint linear = gl_WorkGroupID.y * groups_x + gl_WorkGroupID.x;
        result.v[linear] = linear;
    }
}
