// vulkan_errors.cpp - the one table from VkResult codes to names and infinirt statuses, and
// nativeFailure, which reports a failed Vulkan call (common/native_errors.hpp); the plugin's traits.
#include "vulkan_backend.h"

#include "common/native_errors.hpp"
#include "common/plugin_table.hpp"

#include <cstdarg>
#include <cstdio>

namespace infinirt::vulkan {
namespace {

// Allocation failures of any kind are OUT_OF_MEMORY; a lost device, and what a driver cannot say
// more of, DRIVER_ERROR; what a driver or device lacks NOT_IMPLEMENTED; a timeout NOT_READY.
constexpr common::NativeError<VkResult> kErrors[] = {
    INFINIRT_COMMON_NATIVE_ERROR(VK_SUCCESS, SUCCESS),
    INFINIRT_COMMON_NATIVE_ERROR(VK_NOT_READY, NOT_READY),
    INFINIRT_COMMON_NATIVE_ERROR(VK_TIMEOUT, NOT_READY),
    INFINIRT_COMMON_NATIVE_ERROR(VK_INCOMPLETE, DRIVER_ERROR),
    INFINIRT_COMMON_NATIVE_ERROR(VK_ERROR_OUT_OF_HOST_MEMORY, OUT_OF_MEMORY),
    INFINIRT_COMMON_NATIVE_ERROR(VK_ERROR_OUT_OF_DEVICE_MEMORY, OUT_OF_MEMORY),
    INFINIRT_COMMON_NATIVE_ERROR(VK_ERROR_INITIALIZATION_FAILED, DRIVER_ERROR),
    INFINIRT_COMMON_NATIVE_ERROR(VK_ERROR_DEVICE_LOST, DRIVER_ERROR),
    INFINIRT_COMMON_NATIVE_ERROR(VK_ERROR_MEMORY_MAP_FAILED, OUT_OF_MEMORY),
    INFINIRT_COMMON_NATIVE_ERROR(VK_ERROR_LAYER_NOT_PRESENT, NOT_IMPLEMENTED),
    INFINIRT_COMMON_NATIVE_ERROR(VK_ERROR_EXTENSION_NOT_PRESENT, NOT_IMPLEMENTED),
    INFINIRT_COMMON_NATIVE_ERROR(VK_ERROR_FEATURE_NOT_PRESENT, NOT_IMPLEMENTED),
    INFINIRT_COMMON_NATIVE_ERROR(VK_ERROR_INCOMPATIBLE_DRIVER, DRIVER_ERROR),
    INFINIRT_COMMON_NATIVE_ERROR(VK_ERROR_TOO_MANY_OBJECTS, OUT_OF_MEMORY),
    INFINIRT_COMMON_NATIVE_ERROR(VK_ERROR_FORMAT_NOT_SUPPORTED, NOT_IMPLEMENTED),
    INFINIRT_COMMON_NATIVE_ERROR(VK_ERROR_FRAGMENTED_POOL, OUT_OF_MEMORY),
    INFINIRT_COMMON_NATIVE_ERROR(VK_ERROR_UNKNOWN, DRIVER_ERROR),
    INFINIRT_COMMON_NATIVE_ERROR(VK_ERROR_OUT_OF_POOL_MEMORY, OUT_OF_MEMORY),
    INFINIRT_COMMON_NATIVE_ERROR(VK_ERROR_INVALID_EXTERNAL_HANDLE, BAD_PARAM),
    INFINIRT_COMMON_NATIVE_ERROR(VK_ERROR_FRAGMENTATION, OUT_OF_MEMORY),
    INFINIRT_COMMON_NATIVE_ERROR(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS, BAD_PARAM),
    INFINIRT_COMMON_NATIVE_ERROR(VK_ERROR_INVALID_SHADER_NV, BUILD_FAILED),
};

constexpr auto kErrorTable = common::nativeErrorTable(kErrors, "VK_UNKNOWN_ERROR");

} // namespace

INFINIRT_COMMON_DEFINE_NATIVE_ERRORS(VkResult, kErrorTable, " ")

// Pinned memory is host-visible memory the device copies from directly (rank 1, as OpenCL's
// mapped buffers); the device's memory is never ordinary host memory to the loader (lavapipe's is,
// but only through a mapping this plugin does not hand out).
infiniStatus_t getPluginTraits(infinirtPluginTraits_t *traits) {
    return common::reportTraits(traits, 1, "VK_ERROR_OUT_OF_DEVICE_MEMORY (-2)", "VK_ERROR_DEVICE_LOST (-4)");
}

} // namespace infinirt::vulkan
