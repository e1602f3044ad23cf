/* gpu_errors.cpp - the detail of a failed native call and the plugin's traits (what its errors are
 * called), written once for cuda and hip. The native code -> status tables are the vendors'
 * (cuda_errors.cpp, hip_errors.cpp). */
#include "gpu_backend.h"

#include "common/native_errors.hpp"

#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace infinirt::gpu {

infiniStatus_t nativeFailure(const char *call, NativeStatus code, const char *what_fmt, ...) {
    va_list args;
    va_start(args, what_fmt);
    const infiniStatus_t status =
        common::vnativeFailure(vendorTable().to_status(code), call, vendorTable().error_name(code), code, " while ", what_fmt, args);
    va_end(args);
    return status;
}

infiniStatus_t getPluginTraits(infinirtPluginTraits_t *traits) {
    static char out_of_memory[64];
    static char failure[64];
    static std::once_flag named;
    std::call_once(named, [] {
        std::snprintf(out_of_memory, sizeof out_of_memory, "%s (%d)", vendorTable().error_name(vendorTable().out_of_memory),
                      vendorTable().out_of_memory);
        std::snprintf(failure, sizeof failure, "%s (%d)", vendorTable().error_name(vendorTable().failure), vendorTable().failure);
    });
    return common::reportTraits(traits, 2 /* page-locked host memory, reached by DMA */, out_of_memory, failure);
}

} // namespace infinirt::gpu
