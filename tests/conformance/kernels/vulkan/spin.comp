// spin(iterations, out): one thread runs `iterations` steps of a dependent chain, then writes what
// it computed.
//
// The steps run 1,024 to a loop iteration, written out straight by the macros below: llvmpipe
// (lavapipe) ends a shader's loops after 65,535 iterations in total, so one step per iteration
// would cap the kernel at about 0.1 ms there. `precise` keeps the chain as written.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(buffer_reference, std430) writeonly buffer Floats { float v[]; };

layout(push_constant) uniform Arguments {
    uint64_t iterations;
    Floats result;
};

#define STEP acc = acc * 0.999999 + 1.0;
#define STEP4 STEP STEP STEP STEP
#define STEP16 STEP4 STEP4 STEP4 STEP4
#define STEP64 STEP16 STEP16 STEP16 STEP16
#define STEP256 STEP64 STEP64 STEP64 STEP64
#define STEP1024 STEP256 STEP256 STEP256 STEP256

void main() {
    if (gl_GlobalInvocationID == uvec3(0)) {
        precise float acc = 0.0;
        uint64_t i = 0;
        for (; i + 1024 <= iterations; i += 1024) {
            STEP1024
        }
        for (; i < iterations; ++i) {
            STEP
        }
        result.v[0] = acc;
    }
}
