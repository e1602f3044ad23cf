/*
 * infinirt_cpu_kernel.h - the ABI of kernels for infinirt's cpu backend (docs/kernels.md).
 *
 * A cpu kernel is a function of type infinirtCpuKernel_t exported from a host shared object that
 * the kernel author builds with the system compiler (e.g. `cc -O2 -fPIC -shared k.c -o k.so`) and
 * loads with infinirtModuleLoad (format INFINIRT_MODULE_FORMAT_HOST_SO, the file's bytes). A module
 * global is any exported data symbol of that object.
 *
 * Execution model: a launch is one task in its stream's order. Its blocks run in parallel on the
 * device's worker pool (INFINIRT_CPU_WORKERS threads in all, the stream's own thread included;
 * default: the CPUs the process may run on); `worker` is 0 on the stream's thread; the launch
 * completes after its last block. The function is called once per block and loops over the
 * block's threads itself (block[0] * block[1] * block[2] of them), so "threads" are the
 * iterations of that loop. Blocks of one launch may run concurrently on different workers, in
 * any order.
 */
#ifndef INFINIRT_CPU_KERNEL_H
#define INFINIRT_CPU_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    size_t struct_size;    /* sizeof(infinirtCpuLaunch_t) of the infinirt that calls the kernel */
    uint32_t grid[3], block[3], block_id[3];
    void *shared;          /* this worker's scratch of dynamic_shared_bytes + LOCAL sizes, reused per block */
    size_t shared_bytes;
    uint32_t worker, worker_count;
} infinirtCpuLaunch_t;

/* Runs one block; args[i] points at argument i's bytes (for POINTER: at the void *; for LOCAL: at
 * a void * into launch->shared). Returns 0 on success; anything else fails the launch (its other
 * blocks may be skipped): the stream's next synchronising call returns INFINI_STATUS_DRIVER_ERROR
 * once, its message naming the kernel, the block and the value. */
typedef int (*infinirtCpuKernel_t)(const infinirtCpuLaunch_t *launch, void *const *args);

#ifdef __cplusplus
}
#endif

#endif /* INFINIRT_CPU_KERNEL_H */
