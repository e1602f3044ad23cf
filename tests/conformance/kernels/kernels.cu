// The conformance kernel set (tests/conformance/kernels/, TEST_KERNELS in the README), CUDA C++.
// Built by nvcc at build time into PTX, cubin and fatbin (tests/conformance/CMakeLists.txt); the
// same kernels are written in OpenCL C (kernels.cl) and C for the cpu backend (kernels_cpu.c).
// Names are extern "C" so the module's symbols are the kernel names.
#include <stdint.h>

// The by-value struct with a 16-byte aligned member: sizeof 32, v at offset 16 on host and device.
struct __align__(16) Packet {
    int tag;
    float4 v;
};

// The module global read back with infinirtModuleGetGlobal.
__device__ int g_value = 7;

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int32_t n) {
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

extern "C" __global__ void saxpy_mixed(float *y, const float *x, float a, double b, int32_t k, int64_t big, Packet p,
                                       int32_t n) {
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) {
        y[i] = a * x[i] + static_cast<float>(b) + static_cast<float>(k) + static_cast<float>(big >> 32) +
               static_cast<float>(p.tag) + p.v.x + 2.0f * p.v.y + 3.0f * p.v.z + 4.0f * p.v.w;
    }
}

extern "C" __global__ void grid_indices(int32_t *out) {
    const unsigned gx = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned gy = blockIdx.y * blockDim.y + threadIdx.y;
    const unsigned gz = blockIdx.z * blockDim.z + threadIdx.z;
    const unsigned linear = (gz * (gridDim.y * blockDim.y) + gy) * (gridDim.x * blockDim.x) + gx;
    out[3 * linear + 0] = static_cast<int32_t>(gx);
    out[3 * linear + 1] = static_cast<int32_t>(gy);
    out[3 * linear + 2] = static_cast<int32_t>(gz);
}

// `scratch` is the LOCAL argument: a byte offset into the block's dynamic shared memory, placed
// after the launch's dynamic_shared_bytes (16-aligned); blockDim.x floats, blockDim.x a power of two.
extern "C" __global__ void block_sum(const float *in, float *out, size_t scratch) {
    extern __shared__ __align__(16) unsigned char smem[];
    float *s = reinterpret_cast<float *>(smem + scratch);
    const unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            s[t] += s[t + stride];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.x] = s[0];
    }
}

extern "C" __global__ void write_global(int32_t v) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        g_value = v;
    }
}

extern "C" __global__ void read_global(int32_t *out) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        *out = g_value;
    }
}

extern "C" __global__ void spin(uint64_t iterations, float *out) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        float acc = 0.0f;
        for (uint64_t i = 0; i < iterations; ++i) {
            acc = acc * 0.999999f + 1.0f;
        }
        *out = acc;
    }
}

extern "C" __global__ void empty(void) {}
