/* hip_launch.cpp - kernel launch: the vendor half of those entries, which the vendor table calls:
 * one native call each, types converted (the entries are gpu_common's, gpu_launch.cpp).
 * hipModuleLaunchKernel with the kernelParams array; HIP 5.2, the oldest runtime the plugin
 * supports, has no module-level cooperative or cluster launch, so those launches answer
 * NOT_IMPLEMENTED. */
#include "hip_backend.h"

namespace infinirt::hip {

NativeStatus nativeLaunchKernel(void *function, const uint32_t *grid, const uint32_t *block, unsigned shared_bytes,
                                void *stream, void **params) {
    return nativeApi().hipModuleLaunchKernel(functionOf(function), grid[0], grid[1], grid[2], block[0], block[1],
                                             block[2], shared_bytes, streamOf(stream), params, nullptr);
}

} // namespace infinirt::hip
