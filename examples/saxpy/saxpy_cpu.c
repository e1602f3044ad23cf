/* saxpy for the cpu backend: called once per block, it loops over the block's threads. */
#include <infinirt_cpu_kernel.h>

int saxpy(const infinirtCpuLaunch_t *l, void *const *args) {
    float *y = *(float **)args[0];
    const float *x = *(const float **)args[1];
    const float a = *(const float *)args[2];
    const unsigned n = *(const unsigned *)args[3];
    const unsigned begin = l->block_id[0] * l->block[0];
    unsigned end = begin + l->block[0];
    unsigned i;
    if (end > n) {
        end = n;
    }
    for (i = begin; i < end; ++i) {
        y[i] = a * x[i] + y[i];
    }
    return 0;
}
