// skeleton_launch.cpp - running a kernel: the entry a vendor fills with its launch API (contract
// in skeleton_backend.h). Until then it answers NOT_IMPLEMENTED, naming itself.
#include "skeleton_backend.h"

namespace infinirt::skeleton {

infiniStatus_t launchKernel(int, void *, const infinirtLaunchConfig_t *, const infinirtKernelArg_t *, uint32_t,
                            void *) {
    return notImplemented("launch_kernel");
}

} // namespace infinirt::skeleton
