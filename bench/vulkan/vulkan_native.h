// vulkan_native.h - a native Vulkan program in the same process as infinirt, on the same physical
// device as an infinirt vulkan device (found by its UUID: the plugin hands out no Vulkan objects),
// with a VkInstance, VkDevice, one compute queue, a command buffer, a timeline semaphore, a
// timestamp query and buffers of its own. The reference the vulkan benchmarks measure infinirt
// against: infinirt-bench's anchor (tools/bench/anchor_vulkan.cpp) and bench/vulkan. Header-only;
// the loader is dlopen'ed (no link-time dependency, as the plugin).
#pragma once

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include <infinirt.h>

#include <dlfcn.h>

#include <cstring>
#include <string>
#include <vector>

namespace infinirt_bench {

#define BENCH_TOOL_VK_SYMBOLS(X)                                                                                       \
    X(vkEnumeratePhysicalDevices)                                                                                      \
    X(vkGetPhysicalDeviceProperties2)                                                                                  \
    X(vkGetPhysicalDeviceQueueFamilyProperties)                                                                        \
    X(vkGetPhysicalDeviceMemoryProperties)                                                                             \
    X(vkCreateDevice)                                                                                                  \
    X(vkGetDeviceQueue)                                                                                                \
    X(vkCreateBuffer)                                                                                                  \
    X(vkDestroyBuffer)                                                                                                 \
    X(vkGetBufferMemoryRequirements)                                                                                   \
    X(vkAllocateMemory)                                                                                                \
    X(vkFreeMemory)                                                                                                    \
    X(vkBindBufferMemory)                                                                                              \
    X(vkMapMemory)                                                                                                     \
    X(vkCreateSemaphore)                                                                                               \
    X(vkGetSemaphoreCounterValue)                                                                                      \
    X(vkWaitSemaphores)                                                                                                \
    X(vkCreateCommandPool)                                                                                             \
    X(vkAllocateCommandBuffers)                                                                                        \
    X(vkBeginCommandBuffer)                                                                                            \
    X(vkEndCommandBuffer)                                                                                              \
    X(vkCmdCopyBuffer)                                                                                                 \
    X(vkCmdFillBuffer)                                                                                                 \
    X(vkCmdPipelineBarrier)                                                                                            \
    X(vkCmdWriteTimestamp)                                                                                             \
    X(vkCmdResetQueryPool)                                                                                             \
    X(vkCreateQueryPool)                                                                                               \
    X(vkQueueSubmit)                                                                                                   \
    X(vkCreateShaderModule)                                                                                            \
    X(vkCreatePipelineLayout)                                                                                          \
    X(vkCreateComputePipelines)                                                                                        \
    X(vkCmdBindPipeline)                                                                                               \
    X(vkCmdPushConstants)                                                                                              \
    X(vkCmdDispatch)                                                                                                   \
    X(vkCmdDispatchBase)                                                                                               \
    X(vkGetBufferDeviceAddress)

struct Api {
#define BENCH_TOOL_VK_DECLARE(name) PFN_##name name = nullptr;
    BENCH_TOOL_VK_SYMBOLS(BENCH_TOOL_VK_DECLARE)
#undef BENCH_TOOL_VK_DECLARE
};

struct Buffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    void *host = nullptr;
    size_t size = 0;
    VkDeviceAddress address = 0;
};

// The native program's state. Lives until the process exits (the tool measures once).
struct Native {
    Api vk;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer buffer = VK_NULL_HANDLE;
    VkSemaphore timeline = VK_NULL_HANDLE;
    VkQueryPool queries = VK_NULL_HANDLE;
    uint64_t value = 0;
    uint32_t device_type = 0, host_type = 0;
    Buffer device_a, device_b, host;

    bool ensure(Buffer &b, size_t size, uint32_t type) {
        if (b.size >= size) {
            return true;
        }
        if (b.buffer != VK_NULL_HANDLE) {
            wait();
            vk.vkDestroyBuffer(device, b.buffer, nullptr);
            vk.vkFreeMemory(device, b.memory, nullptr);
            b = Buffer{};
        }
        VkBufferCreateInfo info{};
        info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
        info.size = size;
        info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                     VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
        if (vk.vkCreateBuffer(device, &info, nullptr, &b.buffer) != VK_SUCCESS) {
            return false;
        }
        VkMemoryRequirements needs{};
        vk.vkGetBufferMemoryRequirements(device, b.buffer, &needs);
        VkMemoryAllocateFlagsInfo flags{}; // kernels reach the buffers by their device addresses
        flags.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO;
        flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
        VkMemoryAllocateInfo alloc{};
        alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
        alloc.pNext = &flags;
        alloc.allocationSize = needs.size;
        alloc.memoryTypeIndex = type;
        if (vk.vkAllocateMemory(device, &alloc, nullptr, &b.memory) != VK_SUCCESS ||
            vk.vkBindBufferMemory(device, b.buffer, b.memory, 0) != VK_SUCCESS) {
            return false;
        }
        if (type == host_type && vk.vkMapMemory(device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.host) != VK_SUCCESS) {
            return false;
        }
        VkBufferDeviceAddressInfo address{};
        address.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO;
        address.buffer = b.buffer;
        b.address = vk.vkGetBufferDeviceAddress(device, &address);
        b.size = size;
        return true;
    }

    void wait() {
        VkSemaphoreWaitInfo info{};
        info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
        info.semaphoreCount = 1;
        info.pSemaphores = &timeline;
        info.pValues = &value;
        vk.vkWaitSemaphores(device, &info, UINT64_MAX);
    }

    // One command buffer recorded by `record`, submitted alone, signalling the next value.
    template <typename F>
    void submit(F &&record) {
        wait(); // the one command buffer is reused: the previous submission has ended
        VkCommandBufferBeginInfo begin{};
        begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
        begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        vk.vkBeginCommandBuffer(buffer, &begin);
        record(buffer);
        VkMemoryBarrier barrier{};
        barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
        barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
        barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        vk.vkCmdPipelineBarrier(buffer, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier,
                                0, nullptr, 0, nullptr);
        vk.vkEndCommandBuffer(buffer);
        const uint64_t next = value + 1;
        VkTimelineSemaphoreSubmitInfo timeline_info{};
        timeline_info.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
        timeline_info.signalSemaphoreValueCount = 1;
        timeline_info.pSignalSemaphoreValues = &next;
        VkSubmitInfo info{};
        info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
        info.pNext = &timeline_info;
        info.commandBufferCount = 1;
        info.pCommandBuffers = &buffer;
        info.signalSemaphoreCount = 1;
        info.pSignalSemaphores = &timeline;
        if (vk.vkQueueSubmit(queue, 1, &info, VK_NULL_HANDLE) == VK_SUCCESS) {
            value = next;
        }
    }

    void copy(Buffer &dst, Buffer &src, size_t size) {
        submit([&](VkCommandBuffer b) {
            const VkBufferCopy region{0, 0, size};
            vk.vkCmdCopyBuffer(b, src.buffer, dst.buffer, 1, &region);
        });
        wait();
    }
};

// Finds the physical device whose UUID is infinirt's device (type, id) and builds the native
// program on it: "" on success, else the reason.
inline std::string buildNative(Native &n, infiniDevice_t which, int id) {
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof props;
    if (infinirtGetDeviceProperties(which, id, &props) != INFINI_STATUS_SUCCESS || !props.has_uuid) {
        return "the device's UUID cannot be read";
    }
    void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
        return std::string("dlopen(libvulkan.so.1): ") + dlerror();
    }
    auto get = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib, "vkGetInstanceProcAddr"));
    auto create = get ? reinterpret_cast<PFN_vkCreateInstance>(get(VK_NULL_HANDLE, "vkCreateInstance")) : nullptr;
    if (create == nullptr) {
        return "libvulkan.so.1 gives no vkCreateInstance";
    }
    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo instance_info{};
    instance_info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    instance_info.pApplicationInfo = &app;
    VkInstance instance = VK_NULL_HANDLE;
    if (create(&instance_info, nullptr, &instance) != VK_SUCCESS) {
        return "vkCreateInstance failed";
    }
    Api &vk = n.vk;
#define BENCH_TOOL_VK_RESOLVE(name)                                                                                    \
    vk.name = reinterpret_cast<PFN_##name>(get(instance, #name));                                                      \
    if (vk.name == nullptr) {                                                                                          \
        return "libvulkan.so.1 gives no " #name;                                                                       \
    }
    BENCH_TOOL_VK_SYMBOLS(BENCH_TOOL_VK_RESOLVE)
#undef BENCH_TOOL_VK_RESOLVE
    uint32_t count = 0;
    vk.vkEnumeratePhysicalDevices(instance, &count, nullptr);
    std::vector<VkPhysicalDevice> physical(count);
    vk.vkEnumeratePhysicalDevices(instance, &count, physical.data());
    VkPhysicalDevice chosen = VK_NULL_HANDLE;
    for (VkPhysicalDevice pd : physical) {
        VkPhysicalDeviceIDProperties id{};
        id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
        VkPhysicalDeviceProperties2 p2{};
        p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
        p2.pNext = &id;
        vk.vkGetPhysicalDeviceProperties2(pd, &p2);
        if (std::memcmp(id.deviceUUID, props.uuid, VK_UUID_SIZE) == 0) {
            chosen = pd;
            break;
        }
    }
    if (chosen == VK_NULL_HANDLE) {
        return "no physical device has the target's UUID";
    }
    vk.vkGetPhysicalDeviceQueueFamilyProperties(chosen, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vk.vkGetPhysicalDeviceQueueFamilyProperties(chosen, &count, families.data());
    uint32_t family = count;
    for (uint32_t i = 0; i < count && family == count; ++i) {
        if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
            family = i;
        }
    }
    VkPhysicalDeviceMemoryProperties memory{};
    vk.vkGetPhysicalDeviceMemoryProperties(chosen, &memory);
    int device_type = -1, host_type = -1;
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
        const VkMemoryPropertyFlags f = memory.memoryTypes[i].propertyFlags;
        if ((f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) &&
            (device_type < 0 || !(f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))) {
            device_type = device_type >= 0 && !(memory.memoryTypes[device_type].propertyFlags &
                                                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
                              ? device_type
                              : static_cast<int>(i);
        }
        const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        if ((f & want) == want &&
            (host_type < 0 || (!(memory.memoryTypes[host_type].propertyFlags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) &&
                               (f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT)))) {
            host_type = static_cast<int>(i);
        }
    }
    if (family == count || device_type < 0 || host_type < 0) {
        return "no compute queue family or no suitable memory types";
    }
    n.device_type = static_cast<uint32_t>(device_type);
    n.host_type = static_cast<uint32_t>(host_type);
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info{};
    queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue_info.queueFamilyIndex = family;
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;
    VkPhysicalDeviceVulkan12Features features12{};
    features12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    features12.timelineSemaphore = VK_TRUE;
    features12.bufferDeviceAddress = VK_TRUE; // every device infinirt serves has it
    VkDeviceCreateInfo device_info{};
    device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    device_info.pNext = &features12;
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue_info;
    if (vk.vkCreateDevice(chosen, &device_info, nullptr, &n.device) != VK_SUCCESS) {
        return "vkCreateDevice failed";
    }
    vk.vkGetDeviceQueue(n.device, family, 0, &n.queue);
    VkCommandPoolCreateInfo pool_info{};
    pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pool_info.queueFamilyIndex = family;
    VkCommandBufferAllocateInfo buffer_info{};
    buffer_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    buffer_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    buffer_info.commandBufferCount = 1;
    VkSemaphoreTypeCreateInfo type{};
    type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo semaphore_info{};
    semaphore_info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    semaphore_info.pNext = &type;
    VkQueryPoolCreateInfo query_info{};
    query_info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    query_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    query_info.queryCount = 1;
    if (vk.vkCreateCommandPool(n.device, &pool_info, nullptr, &n.pool) != VK_SUCCESS ||
        (buffer_info.commandPool = n.pool, vk.vkAllocateCommandBuffers(n.device, &buffer_info, &n.buffer)) !=
            VK_SUCCESS ||
        vk.vkCreateSemaphore(n.device, &semaphore_info, nullptr, &n.timeline) != VK_SUCCESS ||
        vk.vkCreateQueryPool(n.device, &query_info, nullptr, &n.queries) != VK_SUCCESS) {
        return "creating the command pool, semaphore or query pool failed";
    }
    return "";
}


} // namespace infinirt_bench
