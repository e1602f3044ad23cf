/* cpu kernels for the C++ layer's launch tests (test_kernel.cpp). */
#include <infinirt_cpu_kernel.h>

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int32_t tag;
    _Alignas(16) float v[4];
} Packet;
_Static_assert(sizeof(Packet) == 32 && offsetof(Packet, v) == 16, "the device layout of Packet");

/* y[i] = a * x[i] + p.tag + p.v[3] + (float)(big >> 32), i < n */
int scale_add(const infinirtCpuLaunch_t *l, void *const *args) {
    float *y = *(float **)args[0];
    const float *x = *(const float **)args[1];
    const float a = *(const float *)args[2];
    const Packet p = *(const Packet *)args[3];
    const int64_t big = *(const int64_t *)args[4];
    const int32_t n = *(const int32_t *)args[5];
    for (uint32_t t = 0; t < l->block[0]; ++t) {
        const int64_t i = (int64_t)l->block_id[0] * l->block[0] + t;
        if (i < n) {
            y[i] = a * x[i] + (float)p.tag + p.v[3] + (float)(big >> 32);
        }
    }
    return 0;
}

/* out[block] = the LOCAL scratch's distance from launch->shared, and whether it is 16-aligned
 * (written as offset * 2 + aligned). */
int local_probe(const infinirtCpuLaunch_t *l, void *const *args) {
    int64_t *out = *(int64_t **)args[0];
    char *scratch = *(char **)args[1];
    const int64_t offset = scratch - (char *)l->shared;
    out[l->block_id[0]] = offset * 2 + (((uintptr_t)scratch % 16) == 0 ? 1 : 0);
    return 0;
}
