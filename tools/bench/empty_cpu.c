/* The empty kernel of infinirt-bench's launch latency, for the cpu backend (packed into
 * infinirt-bench.irtm by infinirt_add_kernels). */
#include <infinirt_cpu_kernel.h>

int empty(const infinirtCpuLaunch_t *launch, void *const *args) {
    (void)launch;
    (void)args;
    return 0;
}
