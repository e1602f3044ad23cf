/* The soak's cpu kernel: an empty one, as the PTX and OpenCL C the soak hands other backends. */
#include <infinirt_cpu_kernel.h>

__attribute__((visibility("default"))) int empty(const infinirtCpuLaunch_t *launch, void *const *args) {
    (void)launch;
    (void)args;
    return 0;
}
