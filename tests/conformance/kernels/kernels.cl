// The conformance kernel set (tests/conformance/kernels/), OpenCL C 1.2 (2.0/3.0 where noted).
// Read at run time and loaded as INFINIRT_MODULE_FORMAT_OPENCL_C; the same kernels are written in
// CUDA C++ (kernels.cu) and C for the cpu backend (kernels_cpu.c).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

// The by-value struct with a 16-byte aligned member (float4): sizeof 32, v at offset 16.
typedef struct {
    int tag;
    float4 v;
} Packet;

kernel void vector_add(const global float *a, const global float *b, global float *c, int n) {
    const int i = (int)(get_group_id(0) * get_local_size(0) + get_local_id(0));
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

kernel void saxpy_mixed(global float *y, const global float *x, float a, double b, int k, long big, Packet p, int n) {
    const int i = (int)(get_group_id(0) * get_local_size(0) + get_local_id(0));
    if (i < n) {
        y[i] = a * x[i] + (float)b + (float)k + (float)(big >> 32) + (float)p.tag + p.v.x + 2.0f * p.v.y +
               3.0f * p.v.z + 4.0f * p.v.w;
    }
}

kernel void grid_indices(global int *out) {
    const uint gx = get_group_id(0) * get_local_size(0) + get_local_id(0);
    const uint gy = get_group_id(1) * get_local_size(1) + get_local_id(1);
    const uint gz = get_group_id(2) * get_local_size(2) + get_local_id(2);
    const uint linear = (gz * (uint)get_global_size(1) + gy) * (uint)get_global_size(0) + gx;
    out[3 * linear + 0] = (int)gx;
    out[3 * linear + 1] = (int)gy;
    out[3 * linear + 2] = (int)gz;
}

kernel void block_sum(const global float *in, global float *out, local float *scratch) {
    const uint t = get_local_id(0);
    const uint n = get_local_size(0);
    scratch[t] = in[get_group_id(0) * n + t];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = n / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            scratch[t] += scratch[t + stride];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0) {
        out[get_group_id(0)] = scratch[0];
    }
}

// Program-scope variables outside the constant space need OpenCL C 2.0, or 3.0 with the
// feature (build with -cl-std=CL2.0 / CL3.0); OpenCL gives no host address for them anyway
// except through cl_intel_global_variable_pointers.
#if defined(__opencl_c_program_scope_global_variables) || (defined(__OPENCL_C_VERSION__) && __OPENCL_C_VERSION__ == 200)
global int g_value = 7;

kernel void write_global(int v) {
    if (get_global_id(0) == 0) {
        g_value = v;
    }
}

kernel void read_global(global int *out) {
    if (get_global_id(0) == 0) {
        *out = g_value;
    }
}
#endif

kernel void spin(ulong iterations, global float *out) {
    if (get_global_id(0) == 0) {
        float acc = 0.0f;
        for (ulong i = 0; i < iterations; ++i) {
            acc = acc * 0.999999f + 1.0f;
        }
        *out = acc;
    }
}

kernel void empty(void) {}
