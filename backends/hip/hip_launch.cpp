/* hip_launch.cpp - kernel launch: the vendor half of those entries, which the vendor table calls:
 * one native call each, types converted (the entries are gpu_common's, gpu_launch.cpp).
 * hipModuleLaunchKernel with the kernelParams array; HIP 5.2, the oldest runtime the plugin
 * supports, has no module-level cooperative or cluster launch, so those launches answer
 * NOT_IMPLEMENTED. */
#include "hip_backend.h"

namespace infinirt::hip {

NativeStatus nativeLaunchKernel(const gpu::NativeLaunch &l) {
    return nativeApi().hipModuleLaunchKernel(functionOf(l.function), l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
                                       l.block[2], l.shared_bytes, streamOf(l.stream), l.params, nullptr);
}

} // namespace infinirt::hip
