// skeleton_module.cpp - loading device code: the entries a vendor fills with its module API
// (contracts in skeleton_backend.h). Until then each answers NOT_IMPLEMENTED, naming itself.
#include "skeleton_backend.h"

#include "common/module_rank.hpp"
#include "common/text.hpp"

#include <cstring>

namespace infinirt::skeleton {

infiniStatus_t moduleLoad(int, const infinirtModuleImage_t *, size_t, char *, size_t, void **) {
    return notImplemented("module_load");
}

infiniStatus_t moduleUnload(int, void *) { return notImplemented("module_unload"); }

infiniStatus_t moduleGetKernel(int, void *, const char *, void **) { return notImplemented("module_get_kernel"); }

infiniStatus_t moduleGetGlobal(int, void *, const char *, void **, size_t *) {
    return notImplemented("module_get_global");
}

infiniStatus_t kernelGetAttribute(int, void *, infinirtKernelAttribute_t, int64_t *) {
    return notImplemented("kernel_get_attribute");
}

infiniStatus_t kernelSetAttribute(int, void *, infinirtKernelAttribute_t, int64_t) {
    return notImplemented("kernel_set_attribute");
}

// The template's rules for a module file's images (replace them with the device's): a device
// binary built for this device's architecture first, then SPIR-V (for any device or this one);
// nothing else loads.
infiniStatus_t moduleRankImage(int device, infinirtModuleFormat_t format, const char *arch, int *rank, char *why,
                               size_t why_size) {
    if (format != INFINIRT_MODULE_FORMAT_DEVICE_BINARY && format != INFINIRT_MODULE_FORMAT_SPIRV) {
        return common::imageUnfit(rank, why, why_size, "the %s backend loads DEVICE_BINARY and SPIRV, not %s", kName,
                                  common::moduleFormatName(format));
    }
    infinirtDeviceProperties_t props;
    const infiniStatus_t st = common::deviceProperties(getDeviceProperties, device, props);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    const bool mine = std::strcmp(arch, props.architecture) == 0;
    if (format == INFINIRT_MODULE_FORMAT_DEVICE_BINARY) {
        return mine ? common::imageFits(rank, 2)
                    : common::imageUnfit(rank, why, why_size, "a device binary for %s; the device is %s", arch,
                                         props.architecture);
    }
    return mine || common::imageForAnyDevice(arch)
               ? common::imageFits(rank, 1)
               : common::imageUnfit(rank, why, why_size, "SPIR-V for %s; the device is %s", arch, props.architecture);
}

} // namespace infinirt::skeleton
