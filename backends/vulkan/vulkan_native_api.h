// vulkan_native_api.h - the Vulkan entry points the plugin uses, resolved at run time from the
// Khronos loader (libvulkan.so.1) so that the plugin never links against it: built with the
// headers only (VK_NO_PROTOTYPES), it loads on a machine without Vulkan and reports 0 devices with
// the reason.
#pragma once

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include <string>

namespace infinirt::vulkan {

// Resolved with vkGetInstanceProcAddr(NULL, name), before an instance exists.
#define INFINIRT_VULKAN_GLOBAL_SYMBOLS(X)                                                                         \
    X(vkCreateInstance)                                                                                           \
    X(vkEnumerateInstanceExtensionProperties)

// Resolved with vkGetInstanceProcAddr(instance, name) once the instance exists. The device-level
// ones are the loader's dispatching trampolines, valid for every VkDevice of the instance.
#define INFINIRT_VULKAN_INSTANCE_SYMBOLS(X)                                                                       \
    X(vkEnumeratePhysicalDevices)                                                                                 \
    X(vkGetPhysicalDeviceProperties)                                                                              \
    X(vkGetPhysicalDeviceProperties2)                                                                             \
    X(vkGetPhysicalDeviceFeatures2)                                                                               \
    X(vkGetPhysicalDeviceQueueFamilyProperties)                                                                   \
    X(vkGetPhysicalDeviceMemoryProperties)                                                                        \
    X(vkGetPhysicalDeviceMemoryProperties2)                                                                       \
    X(vkEnumerateDeviceExtensionProperties)                                                                       \
    X(vkCreateDevice)                                                                                             \
    X(vkGetDeviceProcAddr)                                                                                        \
    X(vkGetDeviceQueue)                                                                                           \
    X(vkCreateBuffer)                                                                                             \
    X(vkDestroyBuffer)                                                                                            \
    X(vkGetBufferMemoryRequirements)                                                                              \
    X(vkAllocateMemory)                                                                                           \
    X(vkFreeMemory)                                                                                               \
    X(vkBindBufferMemory)                                                                                         \
    X(vkMapMemory)                                                                                                \
    X(vkGetBufferDeviceAddress)                                                                                   \
    X(vkCreateSemaphore)                                                                                          \
    X(vkGetSemaphoreCounterValue)                                                                                 \
    X(vkWaitSemaphores)                                                                                           \
    X(vkCreateCommandPool)                                                                                        \
    X(vkDestroyCommandPool)                                                                                       \
    X(vkAllocateCommandBuffers)                                                                                   \
    X(vkResetCommandBuffer)                                                                                       \
    X(vkBeginCommandBuffer)                                                                                       \
    X(vkEndCommandBuffer)                                                                                         \
    X(vkCmdCopyBuffer)                                                                                            \
    X(vkCmdFillBuffer)                                                                                            \
    X(vkCmdPipelineBarrier)                                                                                       \
    X(vkCmdWriteTimestamp)                                                                                        \
    X(vkCmdResetQueryPool)                                                                                        \
    X(vkCreateQueryPool)                                                                                          \
    X(vkDestroyQueryPool)                                                                                         \
    X(vkGetQueryPoolResults)                                                                                      \
    X(vkQueueSubmit)                                                                                              \
    X(vkCreateShaderModule)                                                                                       \
    X(vkDestroyShaderModule)                                                                                      \
    X(vkCreatePipelineLayout)                                                                                     \
    X(vkCreateComputePipelines)                                                                                   \
    X(vkCmdBindPipeline)                                                                                          \
    X(vkCmdPushConstants)                                                                                         \
    X(vkCmdDispatch)                                                                                              \
    X(vkDestroyPipeline)                                                                                          \
    X(vkDestroyPipelineLayout)                                                                                    \
    X(vkCmdUpdateBuffer)                                                                                          \
    X(vkCmdDispatchBase)

// One function pointer per symbol, named like the symbol: nativeApi().vkQueueSubmit(...).
struct NativeApi {
    PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
    PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion = nullptr; // NULL: a Vulkan 1.0 loader
#define INFINIRT_VULKAN_DECLARE(name) PFN_##name name = nullptr;
    INFINIRT_VULKAN_GLOBAL_SYMBOLS(INFINIRT_VULKAN_DECLARE)
    INFINIRT_VULKAN_INSTANCE_SYMBOLS(INFINIRT_VULKAN_DECLARE)
#undef INFINIRT_VULKAN_DECLARE
    VkInstance instance = VK_NULL_HANDLE;
    uint32_t instance_version = 0; // what vkEnumerateInstanceVersion reports (VK_API_VERSION_1_0 without it)
};

// Loads the Khronos loader, creates the plugin's one VkInstance (Vulkan 1.2) and resolves every
// symbol, once per process (thread-safe). The library is $INFINIRT_VULKAN_LIBRARY if set (read with
// secure_getenv), else "libvulkan.so.1". Returns true when all of it worked; otherwise false, and
// `reason` says which step failed. Repeated calls return the first call's result. The instance is
// never destroyed (the plugin may be called until the process exits).
bool loadNativeApi(std::string *reason);

// The resolved table. Only valid after loadNativeApi() returned true; never changes afterwards.
const NativeApi &nativeApi();

} // namespace infinirt::vulkan
