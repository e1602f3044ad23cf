/* Kernels for the cpu backend's own tests (tests/cpu/cpu_backend_test.cpp): a host shared object
 * (INFINIRT_MODULE_FORMAT_HOST_SO) whose exported functions are infinirtCpuKernel_t kernels. */
#include <infinirt_cpu_kernel.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))
#define ARG(T, i) (*(T const *)args[i])

typedef struct {
    int32_t tag;
    _Alignas(16) float v[4];
} Packet;

EXPORT int32_t g_value = 7;
EXPORT double g_table[5] = {1, 2, 3, 4, 5};

EXPORT int vector_add(const infinirtCpuLaunch_t *launch, void *const *args) {
    const float *a = ARG(const float *, 0);
    const float *b = ARG(const float *, 1);
    float *c = ARG(float *, 2);
    const int64_t n = ARG(int32_t, 3);
    const int64_t first = (int64_t)launch->block_id[0] * launch->block[0];
    for (uint32_t t = 0; t < launch->block[0]; ++t) {
        if (first + t < n) {
            c[first + t] = a[first + t] + b[first + t];
        }
    }
    return 0;
}

/* out[linear block] = its block id, as x | y << 10 | z << 20 (each < 1024). */
EXPORT int block_ids(const infinirtCpuLaunch_t *launch, void *const *args) {
    int32_t *out = ARG(int32_t *, 0);
    const uint32_t *id = launch->block_id;
    const size_t linear = ((size_t)id[2] * launch->grid[1] + id[1]) * launch->grid[0] + id[0];
    out[linear] = (int32_t)(id[0] | id[1] << 10 | id[2] << 20);
    return 0;
}

static double seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

/* rendezvous(int32_t *worker_of_block, int32_t *seen): records which worker ran each block, and
 * holds each block until at least two different workers have entered (at most 10 s for the whole
 * launch), so that a launch of many blocks cannot finish on one thread before the pool joins in.
 * seen[] holds launch->worker_count flags, then a flag set once the wait gave up. Returns 9 on a
 * worker index out of range. */
EXPORT int rendezvous(const infinirtCpuLaunch_t *launch, void *const *args) {
    int32_t *worker_of_block = ARG(int32_t *, 0);
    int32_t *seen = ARG(int32_t *, 1);
    if (launch->worker >= launch->worker_count) {
        return 9;
    }
    worker_of_block[launch->block_id[0]] = (int32_t)launch->worker;
    __atomic_store_n(&seen[launch->worker], 1, __ATOMIC_SEQ_CST);
    const double deadline = seconds() + 10.0;
    for (;;) {
        uint32_t distinct = 0;
        for (uint32_t w = 0; w < launch->worker_count; ++w) {
            distinct += __atomic_load_n(&seen[w], __ATOMIC_SEQ_CST) != 0;
        }
        if (distinct >= 2 || __atomic_load_n(&seen[launch->worker_count], __ATOMIC_SEQ_CST) != 0) {
            return 0;
        }
        if (seconds() > deadline) {
            __atomic_store_n(&seen[launch->worker_count], 1, __ATOMIC_SEQ_CST);
            return 0;
        }
    }
}

/* local_layout(int64_t *out, LOCAL a, LOCAL b): block 0 writes, for each LOCAL, its offset from
 * launch->shared, whether it is 16-aligned and whether [p, p + size) lies inside the scratch
 * (sizes passed as out[0], out[1] by the caller), then shared_bytes; it also fills the memory. */
EXPORT int local_layout(const infinirtCpuLaunch_t *launch, void *const *args) {
    int64_t *out = ARG(int64_t *, 0);
    unsigned char *a = ARG(unsigned char *, 1);
    unsigned char *b = ARG(unsigned char *, 2);
    const unsigned char *base = (const unsigned char *)launch->shared;
    const size_t size_a = (size_t)out[0];
    const size_t size_b = (size_t)out[1];
    memset(a, 0xab, size_a);
    memset(b, 0xcd, size_b);
    if (launch->block_id[0] != 0) {
        return 0;
    }
    out[2] = (int64_t)(a - base);
    out[3] = ((uintptr_t)a % 16) == 0;
    out[4] = a >= base && a + size_a <= base + launch->shared_bytes;
    out[5] = (int64_t)(b - base);
    out[6] = ((uintptr_t)b % 16) == 0;
    out[7] = b >= base && b + size_b <= base + launch->shared_bytes;
    out[8] = (int64_t)launch->shared_bytes;
    return 0;
}

/* packet_sum(float *out, Packet p, double d): out[0] = tag + sum(v) + d; fails with 7 if the
 * Packet's copy is not 16-aligned. */
EXPORT int packet_sum(const infinirtCpuLaunch_t *launch, void *const *args) {
    (void)launch;
    float *out = ARG(float *, 0);
    if ((uintptr_t)args[1] % 16 != 0) {
        return 7;
    }
    const Packet *p = (const Packet *)args[1];
    out[0] = (float)p->tag + p->v[0] + p->v[1] + p->v[2] + p->v[3] + (float)ARG(double, 2);
    return 0;
}

EXPORT int fail_on_block(const infinirtCpuLaunch_t *launch, void *const *args) {
    return (int32_t)launch->block_id[0] == ARG(int32_t, 0) ? 3 : 0;
}

EXPORT int read_global(const infinirtCpuLaunch_t *launch, void *const *args) {
    (void)launch;
    *ARG(int32_t *, 0) = g_value;
    return 0;
}

/* spin(uint64_t iterations, float *out): a dependent loop, long enough to keep a stream busy. */
EXPORT int spin(const infinirtCpuLaunch_t *launch, void *const *args) {
    (void)launch;
    const uint64_t iterations = ARG(uint64_t, 0);
    volatile float acc = 0.0f;
    for (uint64_t i = 0; i < iterations; ++i) {
        acc = acc * 0.999999f + 1.0f;
    }
    *ARG(float *, 1) = acc;
    return 0;
}

EXPORT int empty(const infinirtCpuLaunch_t *launch, void *const *args) {
    (void)launch;
    (void)args;
    return 0;
}
