/*
 * hip_module.cpp - loading a module (one compiled code object: an HSACO, or an offload bundle /
 * fatbin the runtime picks this device's code from) onto a device, and the module and kernel
 * converters of the vendor table (the rules are gpu_common's, gpu_module.cpp).
 *
 * hipModuleLoadData neither compiles nor links: several images, and JIT options (which
 * hipModuleLoadDataEx ignores), are refused rather than silently dropped. There is no build
 * log; the caller's log is "". Not run in this project's CI or on its GPU machine (no AMD GPU):
 * the shared logic is what the cuda runs cover.
 */
#include "hip_backend.h"

#include "common/module_rank.hpp"
#include "common/native_errors.hpp"
#include "common/text.hpp"

#include <cstdint>
#include <cstring>

namespace infinirt::hip {

namespace {

bool isBlank(const char *text) {
    for (const char *p = text ? text : ""; *p; ++p) {
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
            return false;
        }
    }
    return true;
}

} // namespace

infiniStatus_t moduleLoad(int device, const infinirtModuleImage_t *images, size_t count, char *log, size_t log_size,
                          void **module) {
    common::copyString(log, log_size, "");
    if (count != 1) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "hip loads one code object per module; %zu images were given",
                            count);
    }
    const infinirtModuleImage_t &image = images[0];
    if (image.format != INFINIRT_MODULE_FORMAT_HSACO && image.format != INFINIRT_MODULE_FORMAT_FATBIN) {
        return common::fail(INFINI_STATUS_BAD_PARAM,
                            "hip loads HSACO and FATBIN (offload bundle) images; image 0 is %s",
                            common::moduleFormatName(image.format));
    }
    if (!isBlank(image.options)) {
        return common::fail(INFINI_STATUS_BAD_PARAM,
                            "hip loads compiled code objects and takes no JIT options; image 0 has '%s'",
                            image.options);
    }
    gpu::Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    hipModule_t loaded = nullptr;
    if (hipError_t rc = nativeApi().hipModuleLoadData(&loaded, image.data)) {
        const infiniStatus_t status = isBuildError(rc) ? INFINI_STATUS_BUILD_FAILED : toStatus(rc);
        return common::nativeFailure(status, "hipModuleLoadData", errorName(rc), rc, " while ",
                                     "loading a %s image of %zu bytes on hip:%d", common::moduleFormatName(image.format),
                                     image.size, device);
    }
    *module = loaded;
    return INFINI_STATUS_SUCCESS;
}

NativeStatus nativeModuleUnload(void *module) { return nativeApi().hipModuleUnload(moduleOf(module)); }

NativeStatus nativeModuleGetFunction(void **function, void *module, const char *name) {
    hipFunction_t f = nullptr;
    hipError_t rc = nativeApi().hipModuleGetFunction(&f, moduleOf(module), name);
    *function = f;
    return rc;
}

NativeStatus nativeModuleGetGlobal(void **ptr, size_t *size, void *module, const char *name) {
    hipDeviceptr_t address = nullptr;
    size_t bytes = 0;
    hipError_t rc = nativeApi().hipModuleGetGlobal(&address, &bytes, moduleOf(module), name);
    *ptr = address;
    *size = bytes;
    return rc;
}

NativeStatus nativeFunctionGetAttribute(int *value, int attr, void *function) {
    return nativeApi().hipFuncGetAttribute(value, static_cast<hipFunction_attribute>(attr), functionOf(function));
}

NativeStatus nativeDeviceGetAttribute(int *value, int attr, int device) {
    return nativeApi().hipDeviceGetAttribute(value, static_cast<hipDeviceAttribute_t>(attr), device);
}

/* A code object for this architecture (or one that names none), then a fatbin (the runtime picks
 * the device's code from it). */
infiniStatus_t moduleRankImage(int device, infinirtModuleFormat_t format, const char *arch, int *rank, char *why,
                               size_t why_size) {
    if (format == INFINIRT_MODULE_FORMAT_FATBIN) {
        return common::imageFits(rank, 3000);
    }
    if (format != INFINIRT_MODULE_FORMAT_HSACO) {
        return common::imageUnfit(rank, why, why_size, "the hip backend loads HSACO and FATBIN, not %s",
                                  common::moduleFormatName(format));
    }
    infinirtDeviceProperties_t p;
    const infiniStatus_t st = common::deviceProperties(getDeviceProperties, device, p);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    const bool exact = std::strcmp(arch, p.architecture) == 0;
    if (exact || common::imageForAnyDevice(arch) || p.architecture[0] == '\0') {
        return common::imageFits(rank, exact ? 4001 : 4000);
    }
    return common::imageUnfit(rank, why, why_size, "a code object for %s; the device is %s", arch, p.architecture);
}

} // namespace infinirt::hip
