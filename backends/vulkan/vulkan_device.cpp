// vulkan_device.cpp - device discovery (the loader, the physical devices with what infinirt needs),
// the VkDevice of each, properties, memory figures, the default streams and device-wide waits.
#include "vulkan_backend.h"
#include "vulkan_device.h"
#include "vulkan_stream.h"

#include "vulkan_native_api.h"

#include "common/text.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace infinirt::vulkan {
namespace {

// Leaked on purpose: devices must outlive every static destructor (see Device).
std::vector<std::unique_ptr<Device>> *g_devices = nullptr;
std::string g_reason;

std::string versionText(uint32_t v) {
    return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
           std::to_string(VK_API_VERSION_PATCH(v));
}

bool hasExtension(const std::vector<VkExtensionProperties> &extensions, const char *name) {
    for (const VkExtensionProperties &e : extensions) {
        if (std::strcmp(e.extensionName, name) == 0) {
            return true;
        }
    }
    return false;
}

// INFINIRT_VULKAN_MEMORY_LIMIT: the bytes each vulkan device may hold, when less than its heap (to
// test out-of-memory paths without filling a large device).
void applyMemoryLimit(Device &dev) {
    const char *limit = std::getenv("INFINIRT_VULKAN_MEMORY_LIMIT");
    if (limit == nullptr) {
        return;
    }
    unsigned long long value = 0;
    if (!common::parseCount(limit, &value) || value > SIZE_MAX) {
        common::logMessage(INFINIRT_LOG_WARN,
                           "INFINIRT_VULKAN_MEMORY_LIMIT=\"%s\" ignored: expected a positive number of bytes", limit);
        return;
    }
    if (static_cast<size_t>(value) < dev.heap_size) {
        dev.heap_size = static_cast<size_t>(value);
        dev.memory_source = "INFINIRT_VULKAN_MEMORY_LIMIT";
    }
    dev.max_alloc = std::min(dev.max_alloc, dev.heap_size);
}

// INFINIRT_VULKAN_SPIN_US (0 to 1,000,000), else 1 ms on a GPU (`gpu`) and 0 elsewhere.
std::chrono::microseconds spinSetting(bool gpu) {
    return std::chrono::microseconds(
        rangeSetting("INFINIRT_VULKAN_SPIN_US", 0, 1000000, gpu ? 1000 : 0, "microseconds"));
}

// The memory type for device memory: DEVICE_LOCAL, preferably not host-visible (a discrete GPU's
// own memory rather than its BAR window); and for pinned memory: HOST_VISIBLE | HOST_COHERENT,
// preferably HOST_CACHED (host reads of copied-back data). False when either is missing.
bool chooseMemoryTypes(const VkPhysicalDeviceMemoryProperties &memory, Device &dev, std::string *why) {
    int device_type = -1, host_type = -1;
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
        const VkMemoryPropertyFlags f = memory.memoryTypes[i].propertyFlags;
        if ((f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) &&
            (device_type < 0 || ((memory.memoryTypes[device_type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) &&
                                 !(f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)))) {
            device_type = static_cast<int>(i);
        }
        const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        if ((f & host) == host &&
            (host_type < 0 || (!(memory.memoryTypes[host_type].propertyFlags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) &&
                               (f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT)))) {
            host_type = static_cast<int>(i);
        }
    }
    if (device_type < 0 || host_type < 0) {
        *why = device_type < 0 ? "no DEVICE_LOCAL memory type" : "no HOST_VISIBLE | HOST_COHERENT memory type";
        return false;
    }
    dev.device_type = static_cast<uint32_t>(device_type);
    dev.host_type = static_cast<uint32_t>(host_type);
    dev.device_heap = memory.memoryTypes[device_type].heapIndex;
    dev.heap_size = static_cast<size_t>(memory.memoryHeaps[dev.device_heap].size);
    return true;
}

// The queue family streams submit to: one with compute, the one with the most queues (streams are
// spread over them), the first on a tie.
bool chooseFamily(VkPhysicalDevice pd, Device &dev) {
    const NativeApi &vk = nativeApi();
    uint32_t count = 0;
    vk.vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vk.vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, families.data());
    bool found = false;
    for (uint32_t i = 0; i < count; ++i) {
        if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && families[i].queueCount > 0 &&
            (!found || families[i].queueCount > dev.queue_count)) {
            dev.family = i;
            dev.queue_count = families[i].queueCount;
            dev.timestamp_bits = families[i].timestampValidBits;
            found = true;
        }
    }
    return found;
}

infinirtDeviceKind_t kindOf(VkPhysicalDeviceType type);

// What infinirt-info cannot show through the device properties, logged at INFO once per device
// (INFINIRT_LOG=info infinirt-info): the heaps, the queue family, the limits that matter.
void describe(const Device &dev, const VkPhysicalDeviceMemoryProperties &memory) {
    std::string heaps;
    for (uint32_t i = 0; i < memory.memoryHeapCount; ++i) {
        heaps += (i ? "; " : "") + std::to_string(i) + ": " +
                 common::formatBytes(static_cast<size_t>(memory.memoryHeaps[i].size)).c_str() +
                 (memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT ? " device-local" : " host");
    }
    const VkPhysicalDeviceLimits &l = dev.properties.limits;
    common::logMessage(INFINIRT_LOG_INFO,
                       "vulkan: \"%s\": Vulkan %s, driver %s (%s); heaps %s (device memory: heap %u, type %u; "
                       "pinned: type %u); queue family %u, %u compute queue(s), timestamps %u bits at %.3g ns; "
                       "push constants %u B, shared memory %u B, work group %u invocations, largest "
                       "allocation %s; memory budget %s; copies between device memory %s; pageable memory %s",
                       dev.properties.deviceName, versionText(dev.properties.apiVersion).c_str(),
                       dev.driver_name.c_str(), dev.driver_info.c_str(), heaps.c_str(), dev.device_heap,
                       dev.device_type, dev.host_type, dev.family, dev.queue_count, dev.timestamp_bits,
                       dev.timestamp_period, l.maxPushConstantsSize, l.maxComputeSharedMemorySize,
                       l.maxComputeWorkGroupInvocations, common::formatBytes(dev.max_alloc).c_str(),
                       dev.memory_budget ? "VK_EXT_memory_budget" : "none (heap less what infinirt holds)",
                       dev.shader_copy ? "by the copy shader" : "by vkCmdCopyBuffer",
                       dev.host_pointer_properties ? "imported (VK_EXT_external_memory_host)" : "staged");
}

// Builds the Device for `pd`, or returns false with why it cannot serve infinirt.
bool makeDevice(VkPhysicalDevice pd, Device &dev, std::string *why) {
    const NativeApi &vk = nativeApi();
    dev.physical = pd;
    vk.vkGetPhysicalDeviceProperties(pd, &dev.properties);
    const std::string label = std::string("\"") + dev.properties.deviceName + "\" (Vulkan " +
                              versionText(dev.properties.apiVersion) + ")";
    if (dev.properties.apiVersion < VK_API_VERSION_1_2) {
        *why = label + ": Vulkan < 1.2 (infinirt needs 1.2: timeline semaphores and buffer device addresses)";
        return false;
    }
    uint32_t extension_count = 0;
    vk.vkEnumerateDeviceExtensionProperties(pd, nullptr, &extension_count, nullptr);
    std::vector<VkExtensionProperties> extensions(extension_count);
    vk.vkEnumerateDeviceExtensionProperties(pd, nullptr, &extension_count, extensions.data());

    VkPhysicalDeviceVulkan12Features features12{};
    features12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    VkPhysicalDeviceVulkan11Features features11{};
    features11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
    features11.pNext = &features12;
    VkPhysicalDeviceFeatures2 features{};
    features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    features.pNext = &features11;
    vk.vkGetPhysicalDeviceFeatures2(pd, &features);
    std::string lacking;
    if (!features12.bufferDeviceAddress) {
        lacking += ", bufferDeviceAddress";
    }
    if (!features12.timelineSemaphore) {
        lacking += ", timelineSemaphore";
    }
    if (!features.features.shaderInt64) {
        lacking += ", shaderInt64";
    }
    if (!chooseFamily(pd, dev)) {
        lacking += ", a queue family with compute";
    }
    if (!lacking.empty()) {
        *why = label + ": lacks " + lacking.substr(2);
        return false;
    }

    VkPhysicalDeviceVulkan12Properties props12{};
    props12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES;
    VkPhysicalDeviceSubgroupProperties subgroup{};
    subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
    subgroup.pNext = &props12;
    VkPhysicalDeviceMaintenance3Properties maintenance3{};
    maintenance3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
    maintenance3.pNext = &subgroup;
    VkPhysicalDeviceMaintenance4Properties maintenance4{};
    maintenance4.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES;
    VkPhysicalDeviceExternalMemoryHostPropertiesEXT host_import{};
    host_import.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT;
    VkPhysicalDevicePCIBusInfoPropertiesEXT pci{};
    pci.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT;
    void *chain = &maintenance3;
    if (dev.properties.apiVersion >= VK_API_VERSION_1_3) {
        maintenance4.pNext = chain;
        chain = &maintenance4;
    }
    const bool has_pci = hasExtension(extensions, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME);
    if (has_pci) {
        pci.pNext = chain;
        chain = &pci;
    }
    const char *import_setting = std::getenv("INFINIRT_VULKAN_HOST_IMPORT");
    // Off unless asked for: on the H200 the import (pinning the pages per copy) measured slower than
    // staging below 16 MiB and for D2H at every size (docs/backends/vulkan.md).
    const bool has_import = hasExtension(extensions, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME) &&
                            import_setting != nullptr && std::strcmp(import_setting, "1") == 0;
    if (has_import) {
        host_import.pNext = chain;
        chain = &host_import;
    }
    VkPhysicalDeviceProperties2 props2{};
    props2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props2.pNext = chain;
    vk.vkGetPhysicalDeviceProperties2(pd, &props2);
    dev.driver_name = props12.driverName;
    dev.driver_info = props12.driverInfo;
    if (has_pci) {
        char bus_id[32];
        std::snprintf(bus_id, sizeof bus_id, "%04x:%02x:%02x.%x", pci.pciDomain, pci.pciBus, pci.pciDevice,
                      pci.pciFunction);
        dev.pci_bus_id = bus_id;
    }
    dev.timestamp_period = dev.properties.limits.timestampPeriod;
    ShaderFeatures &shader = dev.shader;
    shader.float16 = features12.shaderFloat16;
    shader.float64 = features.features.shaderFloat64;
    shader.int8 = features12.shaderInt8;
    shader.int16 = features.features.shaderInt16;
    shader.int64_atomics = features12.shaderBufferInt64Atomics;
    shader.storage_buffer_16 = features11.storageBuffer16BitAccess;
    shader.uniform_storage_16 = features11.uniformAndStorageBuffer16BitAccess;
    shader.push_constant_16 = features11.storagePushConstant16;
    shader.storage_buffer_8 = features12.storageBuffer8BitAccess;
    shader.uniform_storage_8 = features12.uniformAndStorageBuffer8BitAccess;
    shader.push_constant_8 = features12.storagePushConstant8;
    // vulkanMemoryModel only when asked: enabling it makes lavapipe's shaders several times slower
    // (its code generation follows the model for every shader, not only those declaring it).
    const char *memory_model = std::getenv("INFINIRT_VULKAN_MEMORY_MODEL");
    const bool want_memory_model = memory_model != nullptr && std::strcmp(memory_model, "1") == 0;
    shader.memory_model = want_memory_model && features12.vulkanMemoryModel;
    shader.memory_model_device_scope = want_memory_model && features12.vulkanMemoryModelDeviceScope;
    shader.subgroup_size = subgroup.subgroupSize;
    shader.subgroup_operations =
        (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 ? subgroup.supportedOperations : 0;

    VkPhysicalDeviceMemoryProperties memory{};
    vk.vkGetPhysicalDeviceMemoryProperties(pd, &memory);
    if (!chooseMemoryTypes(memory, dev, why)) {
        *why = label + ": " + *why;
        return false;
    }
    dev.max_alloc = static_cast<size_t>(maintenance3.maxMemoryAllocationSize);
    if (dev.properties.apiVersion >= VK_API_VERSION_1_3 && maintenance4.maxBufferSize > 0) {
        dev.max_alloc = std::min(dev.max_alloc, static_cast<size_t>(maintenance4.maxBufferSize));
    }
    dev.max_alloc = std::min(dev.max_alloc, dev.heap_size);
    applyMemoryLimit(dev);
    const char *shader_copy = std::getenv("INFINIRT_VULKAN_SHADER_COPY");
    dev.shader_copy = shader_copy != nullptr && (std::strcmp(shader_copy, "0") == 0 || std::strcmp(shader_copy, "1") == 0)
                          ? shader_copy[0] == '1'
                          : kindOf(dev.properties.deviceType) == INFINIRT_DEVICE_KIND_GPU;
    dev.shader_copy_least = shader_copy != nullptr && std::strcmp(shader_copy, "1") == 0 ? 0 : size_t{256} << 10;
    dev.fill_list_most = static_cast<size_t>(
        rangeSetting("INFINIRT_VULKAN_FILL_LIST", 0, 65536,
                     kindOf(dev.properties.deviceType) == INFINIRT_DEVICE_KIND_GPU ? 4096 : 0, "bytes"));
    dev.spin = spinSetting(kindOf(dev.properties.deviceType) == INFINIRT_DEVICE_KIND_GPU);

    // Queue priorities are relative to the other queues of this VkDevice only; global priority
    // (VK_KHR_global_priority) is one per queue family, so it cannot tell two streams apart.
    dev.high_queues = dev.queue_count >= 2 && dev.properties.limits.discreteQueuePriorities >= 2
                          ? std::max(1u, dev.queue_count / 4)
                          : 0;
    std::vector<float> priorities(dev.queue_count, dev.high_queues > 0 ? 0.5f : 1.0f);
    std::fill(priorities.end() - dev.high_queues, priorities.end(), 1.0f);
    VkDeviceQueueCreateInfo queue_info{};
    queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue_info.queueFamilyIndex = dev.family;
    queue_info.queueCount = dev.queue_count;
    queue_info.pQueuePriorities = priorities.data();
    VkPhysicalDeviceVulkan12Features enable12{};
    enable12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    enable12.bufferDeviceAddress = VK_TRUE;
    enable12.timelineSemaphore = VK_TRUE;
    enable12.shaderFloat16 = shader.float16;
    enable12.shaderInt8 = shader.int8;
    enable12.shaderBufferInt64Atomics = shader.int64_atomics;
    enable12.storageBuffer8BitAccess = shader.storage_buffer_8;
    enable12.uniformAndStorageBuffer8BitAccess = shader.uniform_storage_8;
    enable12.storagePushConstant8 = shader.push_constant_8;
    enable12.vulkanMemoryModel = shader.memory_model;
    enable12.vulkanMemoryModelDeviceScope = shader.memory_model_device_scope;
    VkPhysicalDeviceVulkan11Features enable11{};
    enable11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
    enable11.pNext = &enable12;
    enable11.storageBuffer16BitAccess = shader.storage_buffer_16;
    enable11.uniformAndStorageBuffer16BitAccess = shader.uniform_storage_16;
    enable11.storagePushConstant16 = shader.push_constant_16;
    VkPhysicalDeviceFeatures2 enable{};
    enable.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    enable.pNext = &enable11;
    enable.features.shaderInt64 = VK_TRUE;
    enable.features.shaderFloat64 = shader.float64;
    enable.features.shaderInt16 = shader.int16;
    std::vector<const char *> enabled_extensions;
    if (hasExtension(extensions, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME)) {
        enabled_extensions.push_back(VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
        dev.memory_budget = true;
    }
    if (has_import) {
        enabled_extensions.push_back(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
    }
    VkDeviceCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    info.pNext = &enable;
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue_info;
    info.enabledExtensionCount = static_cast<uint32_t>(enabled_extensions.size());
    info.ppEnabledExtensionNames = enabled_extensions.data();
    VkResult result = vk.vkCreateDevice(pd, &info, nullptr, &dev.device);
    if (result != VK_SUCCESS) {
        *why = label + ": vkCreateDevice failed: " + nativeErrorName(result) + " (" +
               std::to_string(static_cast<int>(result)) + ")";
        return false;
    }
    if (has_import && host_import.minImportedHostPointerAlignment > 0) {
        dev.host_pointer_properties = reinterpret_cast<PFN_vkGetMemoryHostPointerPropertiesEXT>(
            vk.vkGetDeviceProcAddr(dev.device, "vkGetMemoryHostPointerPropertiesEXT"));
        dev.import_alignment = static_cast<size_t>(host_import.minImportedHostPointerAlignment);
    }
    dev.queues = std::make_unique<Queue[]>(dev.queue_count);
    for (uint32_t i = 0; i < dev.queue_count; ++i) {
        vk.vkGetDeviceQueue(dev.device, dev.family, i, &dev.queues[i].queue);
    }

    if (createBuffer(dev, 1024, dev.host_type, &dev.patterns, &dev.patterns_memory, nullptr, "the fill patterns") !=
        INFINI_STATUS_SUCCESS) {
        *why = label + ": cannot create a 1 KiB host-visible buffer";
        return false;
    }
    void *mapped = nullptr;
    result = vk.vkMapMemory(dev.device, dev.patterns_memory, 0, VK_WHOLE_SIZE, 0, &mapped);
    if (result != VK_SUCCESS) {
        *why = label + ": vkMapMemory failed: " + nativeErrorName(result);
        return false;
    }
    for (int v = 0; v < 256; ++v) {
        std::memset(static_cast<unsigned char *>(mapped) + 4 * v, v, 4);
    }
    describe(dev, memory);
    return true;
}

// INFINIRT_VULKAN_DEVICE_COPIES (1 to 8), else 1: how many devices each physical device is served
// as, each with a VkDevice of its own, so that the paths between two devices (another device's
// memory in a copy, staged peer copies, events of another device) run on a machine with one.
uint32_t deviceCopies() {
    return static_cast<uint32_t>(rangeSetting("INFINIRT_VULKAN_DEVICE_COPIES", 1, 8, 1, "a count"));
}

void discover() {
    g_devices = new std::vector<std::unique_ptr<Device>>();
    if (!loadNativeApi(&g_reason)) {
        return;
    }
    const NativeApi &vk = nativeApi();
    uint32_t count = 0;
    VkResult result = vk.vkEnumeratePhysicalDevices(vk.instance, &count, nullptr);
    if (result != VK_SUCCESS || count == 0) {
        g_reason = std::string("no Vulkan physical device (vkEnumeratePhysicalDevices: ") + nativeErrorName(result) +
                   "; check the ICD files in /usr/share/vulkan/icd.d or VK_DRIVER_FILES)";
        return;
    }
    std::vector<VkPhysicalDevice> physical(count);
    result = vk.vkEnumeratePhysicalDevices(vk.instance, &count, physical.data());
    if (result != VK_SUCCESS && result != VK_INCOMPLETE) {
        g_reason = std::string("vkEnumeratePhysicalDevices failed: ") + nativeErrorName(result);
        return;
    }
    std::string skipped;
    const uint32_t copies = deviceCopies();
    for (uint32_t i = 0; i < count * copies; ++i) {
        const VkPhysicalDevice pd = physical[i / copies];
        auto dev = std::make_unique<Device>();
        std::string why;
        if (makeDevice(pd, *dev, &why)) {
            dev->index = static_cast<int>(g_devices->size());
            g_devices->push_back(std::move(dev));
        } else {
            common::logMessage(INFINIRT_LOG_WARN, "vulkan: skipping device %s", why.c_str());
            skipped += (skipped.empty() ? "" : "; ") + why;
            dev.release(); // a VkDevice that was made stays (never destroyed, as the others)
        }
    }
    if (g_devices->empty()) {
        g_reason = "no usable Vulkan device: " + skipped;
    }
}

const char *vendorName(uint32_t id) {
    switch (id) {
    case 0x10DE: return "NVIDIA";
    case 0x1002: return "AMD";
    case 0x8086: return "Intel";
    case 0x13B5: return "ARM";
    case 0x5143: return "Qualcomm";
    case 0x106B: return "Apple";
    case 0x1010: return "Imagination";
    case 0x10005: return "Mesa";
    default: return nullptr;
    }
}

infinirtDeviceKind_t kindOf(VkPhysicalDeviceType type) {
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return INFINIRT_DEVICE_KIND_GPU;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return INFINIRT_DEVICE_KIND_CPU;
    default: return INFINIRT_DEVICE_KIND_UNKNOWN;
    }
}

int clampToInt(uint64_t value) { return value > static_cast<uint64_t>(INT_MAX) ? INT_MAX : static_cast<int>(value); }

} // namespace

void discoverDevices() {
    static std::once_flag once;
    std::call_once(once, discover);
}

Device &device(int index) { return *(*g_devices)[static_cast<size_t>(index)]; }

const char *deviceName(int index) { return device(index).properties.deviceName; }

infiniStatus_t checkLost(const Device &dev) {
    if (dev.lost.load(std::memory_order_relaxed)) {
        return common::fail(INFINI_STATUS_DRIVER_ERROR,
                            "vulkan:%d (\"%s\") was lost (VK_ERROR_DEVICE_LOST seen earlier); its work and memory are "
                            "gone and every call that submits or waits fails",
                            dev.index, dev.properties.deviceName);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t deviceFailure(Device &dev, const char *call, VkResult code, const char *what) {
    if (code == VK_ERROR_DEVICE_LOST) {
        dev.lost.store(true, std::memory_order_relaxed);
    }
    return nativeFailure(call, code, "%s on vulkan:%d (\"%s\")", what, dev.index, dev.properties.deviceName);
}

infiniStatus_t createBuffer(Device &dev, size_t size, uint32_t memory_type, VkBuffer *buffer, VkDeviceMemory *memory,
                            VkDeviceAddress *address, const char *what) {
    const NativeApi &vk = nativeApi();
    VkBufferCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = size;
    info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                 VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer created = VK_NULL_HANDLE;
    VkResult result = vk.vkCreateBuffer(dev.device, &info, nullptr, &created);
    if (result != VK_SUCCESS) {
        return nativeFailure("vkCreateBuffer", result, "of %s for %s on vulkan:%d", common::formatBytes(size).c_str(),
                             what, dev.index);
    }
    VkMemoryRequirements needs{};
    vk.vkGetBufferMemoryRequirements(dev.device, created, &needs);
    if (!(needs.memoryTypeBits & (1u << memory_type))) {
        vk.vkDestroyBuffer(dev.device, created, nullptr);
        return common::fail(INFINI_STATUS_DRIVER_ERROR,
                            "a buffer for %s on vulkan:%d cannot live in memory type %u (the driver allows 0x%x)", what,
                            dev.index, memory_type, needs.memoryTypeBits);
    }
    VkMemoryAllocateFlagsInfo flags{};
    flags.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO;
    flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    VkMemoryAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    alloc.pNext = &flags;
    alloc.allocationSize = needs.size;
    alloc.memoryTypeIndex = memory_type;
    VkDeviceMemory allocated = VK_NULL_HANDLE;
    result = vk.vkAllocateMemory(dev.device, &alloc, nullptr, &allocated);
    if (result != VK_SUCCESS) {
        vk.vkDestroyBuffer(dev.device, created, nullptr);
        return nativeFailure("vkAllocateMemory", result, "of %s (memory type %u) for %s on vulkan:%d",
                             common::formatBytes(static_cast<size_t>(needs.size)).c_str(), memory_type, what,
                             dev.index);
    }
    result = vk.vkBindBufferMemory(dev.device, created, allocated, 0);
    if (result != VK_SUCCESS) {
        vk.vkFreeMemory(dev.device, allocated, nullptr);
        vk.vkDestroyBuffer(dev.device, created, nullptr);
        return nativeFailure("vkBindBufferMemory", result, "for %s on vulkan:%d", what, dev.index);
    }
    if (address) {
        VkBufferDeviceAddressInfo address_info{};
        address_info.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO;
        address_info.buffer = created;
        *address = vk.vkGetBufferDeviceAddress(dev.device, &address_info);
    }
    *buffer = created;
    *memory = allocated;
    return INFINI_STATUS_SUCCESS;
}

void destroyBuffer(Device &dev, VkBuffer buffer, VkDeviceMemory memory) {
    nativeApi().vkDestroyBuffer(dev.device, buffer, nullptr);
    nativeApi().vkFreeMemory(dev.device, memory, nullptr);
}

unsigned long long rangeSetting(const char *name, unsigned long long least, unsigned long long most,
                                unsigned long long fallback, const char *what) {
    const char *setting = std::getenv(name);
    unsigned long long value = 0;
    if (setting == nullptr) {
        return fallback;
    }
    if (!common::parseCountUpTo(setting, most, &value) || value < least) {
        common::logMessage(INFINIRT_LOG_WARN, "%s=\"%s\" ignored: expected %s from %llu to %llu", name, setting, what,
                           least, most);
        return fallback;
    }
    return value;
}

// Discovers the devices; never fails (a missing library, driver or feature gives 0 devices).
infiniStatus_t init() {
    discoverDevices();
    return INFINI_STATUS_SUCCESS;
}

// The number of usable devices; when 0, `reason` says why.
infiniStatus_t getDeviceCount(int *count, char *reason, size_t reason_size) {
    discoverDevices();
    const int n = static_cast<int>(g_devices->size());
    common::copyString(reason, reason_size, n > 0 ? "" : g_reason.c_str());
    *count = n;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t defaultStream(int index, Stream **out) {
    Device &dev = device(index);
    if (Stream *ready = dev.default_stream.load(std::memory_order_acquire)) {
        *out = ready;
        return INFINI_STATUS_SUCCESS;
    }
    std::lock_guard<std::mutex> lock(dev.mutex);
    if (!dev.default_stream.load(std::memory_order_relaxed)) {
        Stream *created = nullptr;
        infiniStatus_t status = createStreamLocked(dev, &created);
        if (status != INFINI_STATUS_SUCCESS) {
            return status;
        }
        dev.default_stream.store(created, std::memory_order_release);
    }
    *out = dev.default_stream.load(std::memory_order_relaxed);
    return INFINI_STATUS_SUCCESS;
}

// name: the device's name; vendor from its PCI vendor id; platform "Vulkan <api> (<driver name>)";
// driver_version the driver's own words (VkPhysicalDeviceVulkan12Properties.driverInfo).
infiniStatus_t getDeviceProperties(int index, infinirtDeviceProperties_t *props) {
    const Device &dev = device(index);
    const VkPhysicalDeviceLimits &limits = dev.properties.limits;
    common::copyString(props->name, sizeof(props->name), dev.properties.deviceName);
    const char *vendor = vendorName(dev.properties.vendorID);
    char vendor_id[32];
    std::snprintf(vendor_id, sizeof vendor_id, "0x%x", dev.properties.vendorID);
    common::copyString(props->vendor, sizeof(props->vendor), vendor ? vendor : vendor_id);
    const std::string platform =
        "Vulkan " + versionText(dev.properties.apiVersion) + " (" + dev.driver_name + ")";
    common::copyString(props->platform, sizeof(props->platform), platform);
    common::copyString(props->driver_version, sizeof(props->driver_version),
                       dev.driver_info.empty() ? versionText(dev.properties.driverVersion) : dev.driver_info);
    common::copyString(props->pci_bus_id, sizeof(props->pci_bus_id), dev.pci_bus_id);
    props->total_memory = dev.heap_size;
    props->device_kind = kindOf(dev.properties.deviceType);
    props->max_threads_per_block = clampToInt(limits.maxComputeWorkGroupInvocations);
    for (int i = 0; i < 3; ++i) {
        props->max_block_dim[i] = clampToInt(limits.maxComputeWorkGroupSize[i]);
        props->max_grid_dim[i] = clampToInt(limits.maxComputeWorkGroupCount[i]);
    }
    props->shared_memory_per_block = limits.maxComputeSharedMemorySize;
    VkPhysicalDeviceIDProperties id{};
    id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
    VkPhysicalDeviceProperties2 props2{};
    props2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props2.pNext = &id;
    nativeApi().vkGetPhysicalDeviceProperties2(dev.physical, &props2);
    static_assert(sizeof(props->uuid) == VK_UUID_SIZE, "a Vulkan device UUID is 16 bytes");
    std::memcpy(props->uuid, id.deviceUUID, VK_UUID_SIZE);
    props->has_uuid = 1;
    return INFINI_STATUS_SUCCESS;
}

// free: the device-local heap's budget less its usage (VK_EXT_memory_budget, what other processes
// use included) where the driver has it, else the heap less what infinirt holds; never more than
// the heap (or INFINIRT_VULKAN_MEMORY_LIMIT) less what infinirt holds.
infiniStatus_t getMemInfo(int index, size_t *free_bytes, size_t *total_bytes) {
    const Device &dev = device(index);
    const size_t used = dev.allocated.load(std::memory_order_relaxed);
    size_t free_now = used < dev.heap_size ? dev.heap_size - used : 0;
    if (dev.memory_budget) {
        VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{};
        budget.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT;
        VkPhysicalDeviceMemoryProperties2 memory{};
        memory.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2;
        memory.pNext = &budget;
        nativeApi().vkGetPhysicalDeviceMemoryProperties2(dev.physical, &memory);
        const VkDeviceSize b = budget.heapBudget[dev.device_heap], u = budget.heapUsage[dev.device_heap];
        if (b > 0) {
            free_now = std::min(free_now, static_cast<size_t>(b > u ? b - u : 0));
        }
    }
    *free_bytes = free_now;
    *total_bytes = dev.heap_size;
    return INFINI_STATUS_SUCCESS;
}

// Waits for the default stream and every live stream of the device. Every stream is waited for
// even after one failed; the last failure is reported.
infiniStatus_t deviceSynchronize(int index) {
    Device &dev = device(index);
    std::lock_guard<std::mutex> lock(dev.mutex);
    infiniStatus_t result = INFINI_STATUS_SUCCESS;
    if (Stream *default_stream = dev.default_stream.load(std::memory_order_acquire)) {
        result = finishStream(*default_stream, "synchronizing the device (default stream)");
    }
    for (Stream *stream : dev.streams) {
        const infiniStatus_t status = finishStream(*stream, "synchronizing the device");
        if (status != INFINI_STATUS_SUCCESS) {
            result = status;
        }
    }
    return result;
}

} // namespace infinirt::vulkan
