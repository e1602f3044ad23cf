/* hip_launch.cpp - the launch adapter of the vendor table: hipModuleLaunchKernel with the
 * kernelParams array (the argument rules are gpu_common's, gpu_launch.cpp). HIP 5.2, the oldest
 * runtime the plugin supports, has no module-level cooperative or cluster launch: the vendor
 * table leaves launch_kernel_ex empty, so those launches answer NOT_IMPLEMENTED. */
#include "hip_backend.h"

namespace infinirt::hip {

NativeStatus launchKernel(const gpu::NativeLaunch &l) {
    return hip().hipModuleLaunchKernel(functionOf(l.function), l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
                                       l.block[2], l.shared_bytes, streamOf(l.stream), l.params, nullptr);
}

} // namespace infinirt::hip
