/* cuda_launch.cpp - kernel launch: the vendor half of those entries, which the vendor table calls:
 * one native call each, types converted (the entries are gpu_common's, gpu_launch.cpp).
 * cuLaunchKernel, and cuLaunchKernelEx with cluster and cooperative attributes. */
#include "cuda_backend.h"

namespace infinirt::cuda {

NativeStatus nativeLaunchKernel(void *function, const uint32_t *grid, const uint32_t *block, unsigned shared_bytes,
                                void *stream, void **params) {
    return nativeApi().cuLaunchKernel(functionOf(function), grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                      shared_bytes, streamOf(stream), params, nullptr);
}

NativeStatus nativeLaunchKernelEx(const gpu::NativeLaunch &l) {
    CUlaunchAttribute attributes[2] = {};
    unsigned count = 0;
    if (l.cluster[0] != 0) {
        attributes[count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attributes[count].value.clusterDim.x = l.cluster[0];
        attributes[count].value.clusterDim.y = l.cluster[1];
        attributes[count].value.clusterDim.z = l.cluster[2];
        ++count;
    }
    if (l.cooperative) {
        attributes[count].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        attributes[count].value.cooperative = 1;
        ++count;
    }
    CUlaunchConfig config = {};
    config.gridDimX = l.grid[0];
    config.gridDimY = l.grid[1];
    config.gridDimZ = l.grid[2];
    config.blockDimX = l.block[0];
    config.blockDimY = l.block[1];
    config.blockDimZ = l.block[2];
    config.sharedMemBytes = l.shared_bytes;
    config.hStream = streamOf(l.stream);
    config.attrs = attributes;
    config.numAttrs = count;
    return nativeApi().cuLaunchKernelEx(&config, functionOf(l.function), l.params, nullptr);
}

} // namespace infinirt::cuda
