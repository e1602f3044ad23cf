/*
 * Kernels of the cpu benchmarks (bench/kernels), built as a MODULE library and loaded with
 * infinirtModuleLoad (HOST_SO). Compiled with the same flags as saxpy_openmp.c, the reference
 * they are compared with.
 */
#include <infinirt_cpu_kernel.h>

#define EXPORT __attribute__((visibility("default")))

/* empty(void): does nothing (launch latency, graph replay). */
EXPORT int empty(const infinirtCpuLaunch_t *launch, void *const *args) {
    (void)launch;
    (void)args;
    return 0;
}

/* saxpy(float *y, const float *x, float a, int64_t n): y[i] = a * x[i] + y[i] for the block's
 * elements i < n (the loop body of benchSaxpyOpenmp). */
EXPORT int saxpy(const infinirtCpuLaunch_t *launch, void *const *args) {
    float *y = *(float *const *)args[0];
    const float *x = *(const float *const *)args[1];
    const float a = *(const float *)args[2];
    const int64_t n = *(const int64_t *)args[3];
    const int64_t begin = (int64_t)launch->block_id[0] * launch->block[0];
    const int64_t end = begin + launch->block[0] < n ? begin + launch->block[0] : n;
    for (int64_t i = begin; i < end; ++i) {
        y[i] = a * x[i] + y[i];
    }
    return 0;
}

/* worker_count(uint32_t *out): *out = the pool's worker count (block 0), which the OpenMP
 * reference then uses as its thread count. */
EXPORT int worker_count(const infinirtCpuLaunch_t *launch, void *const *args) {
    if (launch->block_id[0] == 0) {
        **(uint32_t *const *)args[0] = launch->worker_count;
    }
    return 0;
}
