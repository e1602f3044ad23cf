/* out[i] = in[i] * 2 + 1, once per block over its threads. */
#include <infinirt_cpu_kernel.h>

int scale(const infinirtCpuLaunch_t *l, void *const *args) {
    float *out = *(float **)args[0];
    const float *in = *(const float **)args[1];
    const int n = *(const int *)args[2];
    uint32_t t;
    for (t = 0; t < l->block[0]; ++t) {
        const int i = (int)(l->block_id[0] * l->block[0] + t);
        if (i < n) {
            out[i] = in[i] * 2.0f + 1.0f;
        }
    }
    return 0;
}
