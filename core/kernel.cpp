#include "infinicore/kernel.hpp"

#include "check.hpp"
#include "infinicore/context/context.hpp"

namespace infinicore {

void Kernel::launchRaw(const infinirtLaunchConfig_t &config, const infinirtKernelArg_t *args, uint32_t num_args,
                       infinirtStream_t stream) const {
    if (stream == nullptr) {
        stream = context::getStream();
    }
    detail::check(infinirtLaunchKernel(kernel_, &config, args, num_args, stream), "infinirtLaunchKernel");
}

int64_t Kernel::attribute(infinirtKernelAttribute_t attr) const {
    int64_t v = 0;
    detail::check(infinirtKernelGetAttribute(&v, attr, kernel_), "infinirtKernelGetAttribute");
    return v;
}

void Kernel::setAttribute(infinirtKernelAttribute_t attr, int64_t value) const {
    detail::check(infinirtKernelSetAttribute(kernel_, attr, value), "infinirtKernelSetAttribute");
}

} // namespace infinicore
