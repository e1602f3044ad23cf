/* cpu kernels for the layer tests (layers_test.cc). */
#include <infinirt_cpu_kernel.h>

#include <stdint.h>

/* Spins until *flag (host memory) is non-zero: keeps its stream busy for as long as the test says. */
int spin_until(const infinirtCpuLaunch_t *l, void *const *args) {
    (void)l;
    volatile int32_t *flag = *(volatile int32_t **)args[0];
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0) {
    }
    return 0;
}

/* p[0] = 1 */
int touch(const infinirtCpuLaunch_t *l, void *const *args) {
    (void)l;
    int32_t *p = *(int32_t **)args[0];
    p[0] = 1;
    return 0;
}
