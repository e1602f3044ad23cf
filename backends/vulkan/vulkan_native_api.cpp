// vulkan_native_api.cpp - dlopen of the Khronos loader, the plugin's VkInstance and the symbol
// table (see the header).
#include "vulkan_native_api.h"

#include "vulkan_backend.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <mutex>

namespace infinirt::vulkan {
namespace {

NativeApi g_api;
bool g_loaded = false;
std::string g_reason;

std::string versionText(uint32_t v) {
    return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
           std::to_string(VK_API_VERSION_PATCH(v));
}

void load() {
    const char *env = secure_getenv("INFINIRT_VULKAN_LIBRARY");
    const std::string file = (env && *env) ? env : "libvulkan.so.1";
    // Never dlclosed: the plugin may be called until the process exits.
    void *lib = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        g_reason = "Vulkan loader not found: dlopen(\"" + file + "\") failed: " + (why ? why : "unknown error");
        return;
    }
    NativeApi table;
    table.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib, "vkGetInstanceProcAddr"));
    if (!table.vkGetInstanceProcAddr) {
        g_reason = file + " lacks vkGetInstanceProcAddr (not a Vulkan loader)";
        return;
    }
#define INFINIRT_VULKAN_RESOLVE(instance, name)                                                                   \
    table.name = reinterpret_cast<PFN_##name>(table.vkGetInstanceProcAddr(instance, #name));                      \
    if (!table.name) {                                                                                            \
        g_reason = file + " gives no " #name;                                                                     \
        return;                                                                                                   \
    }
#define INFINIRT_VULKAN_RESOLVE_GLOBAL(name) INFINIRT_VULKAN_RESOLVE(VK_NULL_HANDLE, name)
    INFINIRT_VULKAN_GLOBAL_SYMBOLS(INFINIRT_VULKAN_RESOLVE_GLOBAL)
#undef INFINIRT_VULKAN_RESOLVE_GLOBAL
    table.vkEnumerateInstanceVersion = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
        table.vkGetInstanceProcAddr(VK_NULL_HANDLE, "vkEnumerateInstanceVersion"));
    table.instance_version = VK_API_VERSION_1_0;
    if (table.vkEnumerateInstanceVersion) {
        table.vkEnumerateInstanceVersion(&table.instance_version);
    }
    if (table.instance_version < VK_API_VERSION_1_2) {
        g_reason = "the Vulkan loader " + file + " offers Vulkan " + versionText(table.instance_version) +
                   " (infinirt needs 1.2: timeline semaphores and buffer device addresses)";
        return;
    }
    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "infinirt";
    app.pEngineName = "infinirt";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    info.pApplicationInfo = &app;
    VkResult result = table.vkCreateInstance(&info, nullptr, &table.instance);
    if (result != VK_SUCCESS) {
        g_reason = std::string("vkCreateInstance failed: ") + nativeErrorName(result) + " (" +
                   std::to_string(static_cast<int>(result)) +
                   "); check the ICD files (/usr/share/vulkan/icd.d, VK_DRIVER_FILES, VK_ICD_FILENAMES)";
        return;
    }
#define INFINIRT_VULKAN_RESOLVE_INSTANCE(name) INFINIRT_VULKAN_RESOLVE(table.instance, name)
    INFINIRT_VULKAN_INSTANCE_SYMBOLS(INFINIRT_VULKAN_RESOLVE_INSTANCE)
#undef INFINIRT_VULKAN_RESOLVE_INSTANCE
#undef INFINIRT_VULKAN_RESOLVE
    g_api = table;
    g_loaded = true;
}

} // namespace

bool loadNativeApi(std::string *reason) {
    static std::once_flag once;
    std::call_once(once, load);
    if (!g_loaded && reason) {
        *reason = g_reason;
    }
    return g_loaded;
}

const NativeApi &nativeApi() { return g_api; }

} // namespace infinirt::vulkan
