// module_rank.hpp - answering module_rank_image (include/infinirt_plugin.h). Part of the
// header-only plugin-support layer (backends/common, namespace infinirt::common).
//
//   if (format != INFINIRT_MODULE_FORMAT_HOST_SO) {
//       return common::imageUnfit(rank, why, why_size, "the cpu backend loads HOST_SO, not %s",
//                                 common::moduleFormatName(format));
//   }
//   return common::imageFits(rank, 2);
#ifndef INFINIRT_COMMON_MODULE_RANK_HPP
#define INFINIRT_COMMON_MODULE_RANK_HPP

#include "infinirt_plugin.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace infinirt::common {

// The image may load: *rank = `value` (> 0; the highest is tried first).
inline infiniStatus_t imageFits(int *rank, int value) noexcept {
    *rank = value;
    return INFINI_STATUS_SUCCESS;
}

// The image cannot load on this device: *rank = 0 and `why` (printf format) for the caller's log.
__attribute__((format(printf, 4, 5))) inline infiniStatus_t imageUnfit(int *rank, char *why, size_t why_size,
                                                                      const char *format, ...) noexcept {
    *rank = 0;
    if (why != nullptr && why_size > 0) {
        va_list ap;
        va_start(ap, format);
        std::vsnprintf(why, why_size, format, ap);
        va_end(ap);
    }
    return INFINI_STATUS_SUCCESS;
}

// The device's properties, from the plugin's own get_device_properties (`get`), for rules that
// compare an image's architecture with the device's.
inline infiniStatus_t deviceProperties(infinirtPluginGetDevicePropertiesFn *get, int device,
                                       infinirtDeviceProperties_t &props) {
    props = infinirtDeviceProperties_t{};
    props.struct_size = sizeof props;
    return get(device, &props);
}

// An image for "any" device: one built for no particular architecture.
inline bool imageForAnyDevice(const char *arch) noexcept { return std::strcmp(arch, "any") == 0; }

} // namespace infinirt::common

#endif // INFINIRT_COMMON_MODULE_RANK_HPP
