// kernel_args.hpp - the names of kernel argument kinds (infinirtKernelArgKind_t) for messages.
// Part of the header-only plugin-support layer (backends/common/, namespace infinirt::common).
#ifndef INFINIRT_COMMON_KERNEL_ARGS_HPP
#define INFINIRT_COMMON_KERNEL_ARGS_HPP

#include "infinirt.h"

namespace infinirt::common {

// "VALUE", "POINTER", "LOCAL"; "unknown" for a value that is no kind.
inline const char *kernelArgKindName(infinirtKernelArgKind_t kind) noexcept {
    switch (kind) {
    case INFINIRT_KERNEL_ARG_VALUE: return "VALUE";
    case INFINIRT_KERNEL_ARG_POINTER: return "POINTER";
    case INFINIRT_KERNEL_ARG_LOCAL: return "LOCAL";
    }
    return "unknown";
}

} // namespace infinirt::common

#endif // INFINIRT_COMMON_KERNEL_ARGS_HPP
