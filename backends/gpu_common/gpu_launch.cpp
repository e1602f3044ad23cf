/* gpu_launch.cpp - kernel launch: the plugin entries, for cuda and hip over the vendor table
 * (gpu_vendor.h); the vendor half of each is cuda_launch.cpp's and hip_launch.cpp's. The
 * kernelParams array, LOCAL arguments placed in dynamic shared memory, plain, cluster and
 * cooperative launches.
 *
 * The argument rules (fixed by the ABI, infinirt.h): kernelParams[i] points at the bytes of
 * argument i; for VALUE and POINTER that is `value` itself (for POINTER, the void * holding the
 * device address); a LOCAL argument reaches the kernel as a size_t byte offset into the block's
 * dynamic shared memory (`extern __shared__`): the first is placed at dynamic_shared_bytes
 * rounded up to 16, each at the next 16-byte boundary after the previous one, and the launch's
 * dynamic shared memory ends with the last of them (dynamic_shared_bytes when there is none).
 *
 * Hot path (launchKernel's fast path): a plain launch of VALUE and POINTER arguments on an explicit
 * stream builds kernelParams on the stack and makes the native call, with no context call (the
 * native launch takes the context from the stream, as the other stream calls do); the general
 * path allocates nothing for up to kStackParams arguments.
 */
#include "gpu_backend.h"

#include <climits>
#include <memory>

namespace infinirt::gpu {

namespace {

constexpr uint32_t kStackParams = 64;
constexpr uint32_t kFastParams = 16;
constexpr uint64_t kLocalAlignment = 16;

constexpr uint64_t alignLocal(uint64_t offset) { return (offset + kLocalAlignment - 1) & ~(kLocalAlignment - 1); }

/* Fills params[0..num_args) and, for LOCAL arguments, offsets[i] (which params[i] points at),
 * and returns the launch's dynamic shared memory in *shared_bytes. */
infiniStatus_t buildParams(int device, const infinirtLaunchConfig_t &config, const infinirtKernelArg_t *args,
                           uint32_t num_args, void **params, size_t *offsets, unsigned *shared_bytes) {
    if (config.dynamic_shared_bytes > UINT_MAX) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "%zu bytes of dynamic shared memory on %s:%d: more than a launch "
                            "can take (%u)", config.dynamic_shared_bytes, vendorTable().name, device, UINT_MAX);
    }
    uint64_t end = config.dynamic_shared_bytes; /* <= UINT_MAX throughout */
    for (uint32_t i = 0; i < num_args; ++i) {
        const infinirtKernelArg_t &arg = args[i];
        switch (arg.kind) {
        case INFINIRT_KERNEL_ARG_VALUE:
        case INFINIRT_KERNEL_ARG_POINTER:
            params[i] = const_cast<void *>(arg.value);
            break;
        case INFINIRT_KERNEL_ARG_LOCAL: {
            const uint64_t start = alignLocal(end);
            if (start > UINT_MAX || arg.size > UINT_MAX - start) {
                return common::fail(INFINI_STATUS_BAD_PARAM,
                                    "LOCAL argument %u (%zu bytes at offset %llu) takes the dynamic shared memory "
                                    "of a launch on %s:%d past %u bytes",
                                    i, arg.size, static_cast<unsigned long long>(start), vendorTable().name, device, UINT_MAX);
            }
            offsets[i] = static_cast<size_t>(start);
            params[i] = &offsets[i];
            end = start + arg.size;
            break;
        }
        default:
            return common::fail(INFINI_STATUS_BAD_PARAM, "argument %u has kind %d, which is none of VALUE, POINTER "
                                "and LOCAL", i, static_cast<int>(arg.kind));
        }
    }
    *shared_bytes = static_cast<unsigned>(end);
    return INFINI_STATUS_SUCCESS;
}

/* The failure of a launch's native call. */
[[gnu::cold, gnu::noinline]] infiniStatus_t launchFailed(const char *call, NativeStatus rc, int device,
                                                       const NativeLaunch &launch, uint32_t num_args) {
    return nativeFailure(call, rc,
                         "launching a kernel on %s:%d (grid %ux%ux%u, block %ux%ux%u, cluster %ux%ux%u%s, %u bytes "
                         "of dynamic shared memory, %u arguments)",
                         vendorTable().name, device, launch.grid[0], launch.grid[1], launch.grid[2], launch.block[0],
                         launch.block[1], launch.block[2], launch.cluster[0], launch.cluster[1], launch.cluster[2],
                         launch.cooperative ? ", cooperative" : "", launch.shared_bytes, num_args);
}

/* Every launch but the fast path's: LOCAL arguments, clusters, cooperative launches, many
 * arguments, the default stream, a vendor that binds. */
[[gnu::noinline]] infiniStatus_t launchGeneral(int device, void *kernel, const infinirtLaunchConfig_t *config,
                                               const infinirtKernelArg_t *args, uint32_t num_args, void *stream) {
    void *stack_params[kStackParams];
    size_t stack_offsets[kStackParams];
    std::unique_ptr<void *[]> heap_params;
    std::unique_ptr<size_t[]> heap_offsets;
    void **params = stack_params;
    size_t *offsets = stack_offsets;
    if (num_args > kStackParams) {
        heap_params.reset(new void *[num_args]);
        heap_offsets.reset(new size_t[num_args]);
        params = heap_params.get();
        offsets = heap_offsets.get();
    }

    NativeLaunch launch{};
    launch.function = kernel;
    for (int d = 0; d < 3; ++d) {
        launch.grid[d] = config->grid[d];
        launch.block[d] = config->block[d];
    }
    if (infiniStatus_t status = buildParams(device, *config, args, num_args, params, offsets, &launch.shared_bytes)) {
        return status;
    }
    launch.params = num_args > 0 ? params : nullptr;
    /* A cluster of {2, 0, 0} means 2x1x1: the native launch wants every component >= 1. */
    const bool clustered = (config->cluster[0] | config->cluster[1] | config->cluster[2]) != 0;
    for (int d = 0; d < 3 && clustered; ++d) {
        launch.cluster[d] = config->cluster[d] != 0 ? config->cluster[d] : 1;
    }
    launch.cooperative = (config->flags & INFINIRT_LAUNCH_COOPERATIVE) != 0;

    const bool extended = clustered || launch.cooperative;
    if (extended && !vendorTable().launch_kernel_ex.call) {
        return common::fail(INFINI_STATUS_NOT_IMPLEMENTED, "%s has no %s launches", vendorTable().name,
                            launch.cooperative ? "cooperative" : "cluster");
    }

    Binding bound(device, needsBinding(stream));
    if (!bound.ok()) {
        return bound.status();
    }
    launch.stream = nativeStream(stream);
    if (extended) {
        if (NativeStatus rc = vendorTable().launch_kernel_ex.call(launch)) {
            return launchFailed(vendorTable().launch_kernel_ex.name, rc, device, launch, num_args);
        }
    } else if (NativeStatus rc = vendorTable().launch_kernel.call(launch.function, launch.grid, launch.block,
                                                                 launch.shared_bytes, launch.stream, launch.params)) {
        return launchFailed(vendorTable().launch_kernel.name, rc, device, launch, num_args);
    }
    return INFINI_STATUS_SUCCESS;
}

/* The fast path's failure: its launch described as launchFailed describes one. */
[[gnu::cold, gnu::noinline]] infiniStatus_t plainLaunchFailed(NativeStatus rc, int device, void *kernel,
                                                            const infinirtLaunchConfig_t &c, void *stream,
                                                            uint32_t num_args) {
    NativeLaunch launch{};
    launch.function = kernel;
    for (int d = 0; d < 3; ++d) {
        launch.grid[d] = c.grid[d];
        launch.block[d] = c.block[d];
    }
    launch.shared_bytes = static_cast<unsigned>(c.dynamic_shared_bytes);
    launch.stream = stream;
    return launchFailed(vendorTable().launch_kernel.name, rc, device, launch, num_args);
}

} // namespace

/* The fast path: a plain launch (no cluster, not cooperative) of at most kFastParams VALUE and
 * POINTER arguments on an explicit stream that needs no binding, whose kernelParams are the
 * arguments' value pointers as they are; anything else (a LOCAL argument, say) is launchGeneral's.
 * Always inlined into its guard (entry_guard.hpp), which would otherwise call it: one call level
 * less on every launch. GCC warns that a function not declared inline may not be inlinable; the
 * guard in this file is the only caller that inlines it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wattributes"
[[gnu::always_inline]] infiniStatus_t launchKernel(int device, void *kernel, const infinirtLaunchConfig_t *config,
                                                   const infinirtKernelArg_t *args, uint32_t num_args, void *stream) {
    const infinirtLaunchConfig_t &c = *config;
    const uint32_t extended = c.cluster[0] | c.cluster[1] | c.cluster[2] | (c.flags & INFINIRT_LAUNCH_COOPERATIVE);
    if (__builtin_expect(!needsBinding(stream) && num_args <= kFastParams && extended == 0 &&
                             c.dynamic_shared_bytes <= UINT_MAX,
                         1)) {
        void *params[kFastParams];
        uint32_t i = 0;
        for (; i < num_args && static_cast<unsigned>(args[i].kind) <= INFINIRT_KERNEL_ARG_POINTER; ++i) {
            params[i] = const_cast<void *>(args[i].value);
        }
        if (__builtin_expect(i == num_args, 1)) {
            if (NativeStatus rc = vendorTable().launch_kernel.call(kernel, c.grid, c.block,
                                                                   static_cast<unsigned>(c.dynamic_shared_bytes), stream,
                                                                   num_args > 0 ? params : nullptr)) {
                return plainLaunchFailed(rc, device, kernel, c, stream, num_args);
            }
            return INFINI_STATUS_SUCCESS;
        }
    }
    return launchGeneral(device, kernel, config, args, num_args, stream);
}
#pragma GCC diagnostic pop

} // namespace infinirt::gpu

INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::gpu::launchKernel);
