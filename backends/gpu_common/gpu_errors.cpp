/* gpu_errors.cpp - the detail of a failed native call, written once for cuda and hip. The native
 * code -> status tables are the vendors' (cuda_errors.cpp, hip_errors.cpp). */
#include "gpu_backend.h"

#include <cstdarg>
#include <cstdio>

namespace infinirt::gpu {

infiniStatus_t nativeFailure(const char *call, NativeStatus code, const char *what_fmt, ...) {
    char text[common::kMessageCapacity];
    int n = std::snprintf(text, sizeof text, "%s failed: %s (%d)", call, api().error_name(code), code);
    if (what_fmt && n > 0 && static_cast<size_t>(n) < sizeof text - 8) {
        n += std::snprintf(text + n, sizeof text - n, " while ");
        va_list args;
        va_start(args, what_fmt);
        std::vsnprintf(text + n, sizeof text - n, what_fmt, args);
        va_end(args);
    }
    return common::fail(api().to_status(code), "%s", text);
}

} // namespace infinirt::gpu
