/* gpu_errors.cpp - the detail of a failed native call, written once for cuda and hip. The native
 * code -> status tables are the vendors' (cuda_errors.cpp, hip_errors.cpp). */
#include "gpu_backend.h"

#include "common/native_errors.hpp"

#include <cstdarg>

namespace infinirt::gpu {

infiniStatus_t nativeFailure(const char *call, NativeStatus code, const char *what_fmt, ...) {
    va_list args;
    va_start(args, what_fmt);
    const infiniStatus_t status =
        common::vnativeFailure(vendorTable().to_status(code), call, vendorTable().error_name(code), code, " while ", what_fmt, args);
    va_end(args);
    return status;
}

} // namespace infinirt::gpu
