/*
 * module_test_kernels.cu - device code for cuda_module_test, compiled at build time to PTX
 * (compute_75), a cubin and a fatbin (tests/cuda/CMakeLists.txt) and loaded through
 * infinirtModuleLoad. Plain device code: no CUDA runtime, extern "C" names.
 */
#include <cstddef>
#include <cstdint>

__device__ int g_counter = 7;

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

/* What a launch with two LOCAL arguments around a VALUE one gives the kernel: the byte offsets it
 * received, the launch's dynamic shared memory size, and proof that the memory at both offsets
 * is usable (the marker written there and read back). */
extern "C" __global__ void local_offsets(unsigned long long *out, size_t first, int marker, size_t second) {
    extern __shared__ __align__(16) unsigned char smem[];
    unsigned dynamic_size = 0;
    asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_size));
    if (threadIdx.x == 0) {
        smem[first] = static_cast<unsigned char>(marker);
        smem[second] = static_cast<unsigned char>(marker + 1);
        out[0] = first;
        out[1] = second;
        out[2] = dynamic_size;
        out[3] = smem[first] + smem[second];
    }
}

extern "C" __global__ void read_counter(int *out) { *out = g_counter; }

/* 1 KiB of static shared memory (STATIC_SHARED_BYTES), and a use of dynamic shared memory. */
extern "C" __global__ void static_shared(float *out, int dynamic_floats) {
    __shared__ float buffer[256];
    extern __shared__ float dynamic[];
    buffer[threadIdx.x % 256] = static_cast<float>(threadIdx.x);
    if (dynamic_floats > 0) {
        dynamic[dynamic_floats - 1] = 1.0f;
    }
    __syncthreads();
    out[threadIdx.x] = buffer[(threadIdx.x + 1) % 256] + (dynamic_floats > 0 ? dynamic[dynamic_floats - 1] : 0.0f);
}

/* 48 live accumulators: about 100 registers unless -maxrregcount caps them. */
extern "C" __global__ void reg_heavy(const float *in, float *out, int n) {
    float acc[48];
#pragma unroll
    for (int j = 0; j < 48; ++j) {
        acc[j] = in[j];
    }
    for (int i = 0; i < n; ++i) {
#pragma unroll
        for (int j = 0; j < 48; ++j) {
            acc[j] = acc[j] * acc[(j + 1) % 48] + in[i + j];
        }
    }
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < 48; ++j) {
        sum += acc[j];
    }
    out[threadIdx.x] = sum;
}

/* The number of blocks in this block's cluster (sm_90 and up; 0xffffffff where there are none). */
extern "C" __global__ void cluster_size(unsigned *out) {
    unsigned blocks = 0xffffffffu;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(blocks));
#endif
    if (threadIdx.x == 0) {
        out[blockIdx.x] = blocks;
    }
}
