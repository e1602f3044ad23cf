/* The conformance kernel set (tests/conformance/kernels/), C for the cpu backend: a host shared
 * object (INFINIRT_MODULE_FORMAT_HOST_SO) whose exported functions are the kernels, each of type
 * infinirtCpuKernel_t (include/infinirt_cpu_kernel.h), run once per block; the loop over the
 * block's threads is the kernel's own. The same kernels are written in CUDA C++ (kernels.cu) and
 * OpenCL C (kernels.cl); this file also has fail_on_block, which only a cpu kernel can express. */
#include <infinirt_cpu_kernel.h>

#include <stddef.h>
#include <stdint.h>

/* The object is built with hidden visibility by default (the project's preset): export the
 * kernels and the global explicitly, as a kernel author building with -fvisibility=hidden would. */
#define EXPORT __attribute__((visibility("default")))

/* The by-value struct with a 16-byte aligned member: sizeof 32, v at offset 16. */
typedef struct {
    int32_t tag;
    _Alignas(16) float v[4];
} Packet;
_Static_assert(sizeof(Packet) == 32, "Packet is 32 bytes, as in kernels.cu and kernels.cl");
_Static_assert(offsetof(Packet, v) == 16, "Packet.v is at offset 16, as in kernels.cu and kernels.cl");

/* Argument i's bytes as a T (for POINTER and LOCAL arguments: the void * they hold). */
#define ARG(T, i) (*(T const *)args[i])

/* The module global read back with infinirtModuleGetGlobal. */
EXPORT int32_t g_value = 7;

EXPORT int vector_add(const infinirtCpuLaunch_t *launch, void *const *args) {
    const float *a = ARG(const float *, 0);
    const float *b = ARG(const float *, 1);
    float *c = ARG(float *, 2);
    const int64_t n = ARG(int32_t, 3);
    const int64_t first = (int64_t)launch->block_id[0] * launch->block[0];
    for (uint32_t t = 0; t < launch->block[0]; ++t) {
        const int64_t i = first + t;
        if (i < n) {
            c[i] = a[i] + b[i];
        }
    }
    return 0;
}

EXPORT int saxpy_mixed(const infinirtCpuLaunch_t *launch, void *const *args) {
    float *y = ARG(float *, 0);
    const float *x = ARG(const float *, 1);
    const float a = ARG(float, 2);
    const double b = ARG(double, 3);
    const int32_t k = ARG(int32_t, 4);
    const int64_t big = ARG(int64_t, 5);
    const Packet *p = (const Packet *)args[6];
    const int64_t n = ARG(int32_t, 7);
    const float add = (float)b + (float)k + (float)(big >> 32) + (float)p->tag + p->v[0] + 2.0f * p->v[1] +
                      3.0f * p->v[2] + 4.0f * p->v[3];
    const int64_t first = (int64_t)launch->block_id[0] * launch->block[0];
    for (uint32_t t = 0; t < launch->block[0]; ++t) {
        const int64_t i = first + t;
        if (i < n) {
            y[i] = a * x[i] + add;
        }
    }
    return 0;
}

EXPORT int grid_indices(const infinirtCpuLaunch_t *launch, void *const *args) {
    int32_t *out = ARG(int32_t *, 0);
    const uint32_t width = launch->grid[0] * launch->block[0];
    const uint32_t height = launch->grid[1] * launch->block[1];
    for (uint32_t tz = 0; tz < launch->block[2]; ++tz) {
        for (uint32_t ty = 0; ty < launch->block[1]; ++ty) {
            for (uint32_t tx = 0; tx < launch->block[0]; ++tx) {
                const uint32_t gx = launch->block_id[0] * launch->block[0] + tx;
                const uint32_t gy = launch->block_id[1] * launch->block[1] + ty;
                const uint32_t gz = launch->block_id[2] * launch->block[2] + tz;
                const size_t linear = ((size_t)gz * height + gy) * width + gx;
                out[3 * linear + 0] = (int32_t)gx;
                out[3 * linear + 1] = (int32_t)gy;
                out[3 * linear + 2] = (int32_t)gz;
            }
        }
    }
    return 0;
}

/* `scratch` (LOCAL) points into launch->shared: block[0] floats. The loop fills it, then the same
 * tree reduction as the device kernels sums it. */
EXPORT int block_sum(const infinirtCpuLaunch_t *launch, void *const *args) {
    const float *in = ARG(const float *, 0);
    float *out = ARG(float *, 1);
    float *scratch = ARG(float *, 2);
    const uint32_t n = launch->block[0];
    for (uint32_t t = 0; t < n; ++t) {
        scratch[t] = in[(size_t)launch->block_id[0] * n + t];
    }
    for (uint32_t stride = n / 2; stride > 0; stride /= 2) {
        for (uint32_t t = 0; t < stride; ++t) {
            scratch[t] += scratch[t + stride];
        }
    }
    out[launch->block_id[0]] = scratch[0];
    return 0;
}

EXPORT int write_global(const infinirtCpuLaunch_t *launch, void *const *args) {
    if (launch->block_id[0] == 0 && launch->block_id[1] == 0 && launch->block_id[2] == 0) {
        g_value = ARG(int32_t, 0);
    }
    return 0;
}

EXPORT int read_global(const infinirtCpuLaunch_t *launch, void *const *args) {
    if (launch->block_id[0] == 0 && launch->block_id[1] == 0 && launch->block_id[2] == 0) {
        *ARG(int32_t *, 0) = g_value;
    }
    return 0;
}

EXPORT int spin(const infinirtCpuLaunch_t *launch, void *const *args) {
    if (launch->block_id[0] == 0 && launch->block_id[1] == 0 && launch->block_id[2] == 0) {
        const uint64_t iterations = ARG(uint64_t, 0);
        float acc = 0.0f;
        for (uint64_t i = 0; i < iterations; ++i) {
            acc = acc * 0.999999f + 1.0f;
        }
        *ARG(float *, 1) = acc;
    }
    return 0;
}

EXPORT int empty(const infinirtCpuLaunch_t *launch, void *const *args) {
    (void)launch;
    (void)args;
    return 0;
}

/* cpu only: the block whose block_id.x is `bad_block` fails with 3, the others succeed. */
EXPORT int fail_on_block(const infinirtCpuLaunch_t *launch, void *const *args) {
    return launch->block_id[0] == (uint32_t)ARG(int32_t, 0) ? 3 : 0;
}

/* cpu only: spins `work` iterations, then takes the next ticket of the shared counter
 * (int32_t *counter) into tickets[block_id.x]: the order in which blocks of several launches
 * finished. */
EXPORT int ticket(const infinirtCpuLaunch_t *launch, void *const *args) {
    const uint64_t work = ARG(uint64_t, 0);
    volatile float acc = 0.0f;
    for (uint64_t i = 0; i < work; ++i) {
        acc = acc * 0.999999f + 1.0f;
    }
    ARG(int32_t *, 2)[launch->block_id[0]] = __atomic_fetch_add(ARG(int32_t *, 1), 1, __ATOMIC_SEQ_CST);
    return 0;
}
