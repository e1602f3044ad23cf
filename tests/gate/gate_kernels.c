/* The instruction gate's cpu kernels: four parameters (two pointers, a float, an int), as a
 * typical elementwise kernel takes, and none (the launch the GPU benches time); their bodies are
 * not what the gate counts. */
#include <infinirt_cpu_kernel.h>

#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT int scale4(const infinirtCpuLaunch_t *launch, void *const *args) {
    (void)launch;
    float *y = *(float *const *)args[0];
    const float *x = *(const float *const *)args[1];
    const float a = *(const float *)args[2];
    const int32_t n = *(const int32_t *)args[3];
    if (n > 0) {
        y[0] = a * x[0];
    }
    return 0;
}

EXPORT int empty(const infinirtCpuLaunch_t *launch, void *const *args) {
    (void)launch;
    (void)args;
    return 0;
}
