// module_formats.hpp - the names of the module image formats (infinirtModuleFormat_t): the
// enumerator's suffix, "PTX", "OPENCL_C", ..., as messages, module files (docs/module-file.md) and
// infinirt-pack write them. Part of the header-only plugin-support layer (backends/common/,
// namespace infinirt::common); the loader and infinirt-pack use the same table.
#ifndef INFINIRT_COMMON_MODULE_FORMATS_HPP
#define INFINIRT_COMMON_MODULE_FORMATS_HPP

#include "infinirt.h"

#include <cstdint>

namespace infinirt::common {

// Indexed by the format's value.
inline constexpr const char *kModuleFormatNames[] = {"AUTO",     "PTX",   "CUBIN",         "FATBIN", "HSACO",
                                                     "OPENCL_C", "SPIRV", "DEVICE_BINARY", "HOST_SO"};
inline constexpr uint32_t kModuleFormatCount = sizeof kModuleFormatNames / sizeof kModuleFormatNames[0];
static_assert(kModuleFormatCount == INFINIRT_MODULE_FORMAT_HOST_SO + 1, "one name for every module format");

// The name of format value `format` (an infinirtModuleFormat_t, or a module file's field);
// "unknown" for a value that is no format.
inline const char *moduleFormatName(uint32_t format) noexcept {
    return format < kModuleFormatCount ? kModuleFormatNames[format] : "unknown";
}

} // namespace infinirt::common

#endif // INFINIRT_COMMON_MODULE_FORMATS_HPP
