/*
 * The reference of the cpu saxpy benchmark: the loop of bench_kernels_cpu.c's saxpy kernel over
 * all n elements with OpenMP, compiled with the same flags (plus -fopenmp).
 */
#include <omp.h>
#include <stdint.h>

void benchSaxpyOpenmp(float *y, const float *x, float a, int64_t n, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t i = 0; i < n; ++i) {
        y[i] = a * x[i] + y[i];
    }
}
