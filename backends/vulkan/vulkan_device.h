// A vulkan device (vulkan_device.cpp). The devices this plugin serves: every physical device of the
// plugin's VkInstance with Vulkan 1.2 or later, a queue family with compute, and the features
// bufferDeviceAddress, timelineSemaphore and shaderInt64, in the instance's order. Each has one
// VkDevice with every queue of its chosen family. Created once by discoverDevices() and never
// released (the lifetime rule in vulkan_backend.h).
#pragma once

#include "vulkan_native_api.h"

#include "infinicore.h"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace infinirt::vulkan {

struct Stream;

// One VkQueue; vkQueueSubmit on it is externally synchronised by `mutex`.
struct Queue {
    VkQueue queue = VK_NULL_HANDLE;
    std::mutex mutex;
};

// A chunk of host-visible memory that pageable copies are staged through (vulkan_memory.cpp).
struct StagingChunk {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    unsigned char *host = nullptr;
};

// The optional shader features of a device, each enabled at vkCreateDevice where the device has
// it (vulkanMemoryModel only with INFINIRT_VULKAN_MEMORY_MODEL=1): a module declaring a capability
// whose feature is not enabled is refused (vulkan_module.cpp).
struct ShaderFeatures {
    bool float16 = false, float64 = false, int8 = false, int16 = false, int64_atomics = false;
    bool storage_buffer_16 = false, uniform_storage_16 = false, push_constant_16 = false;
    bool storage_buffer_8 = false, uniform_storage_8 = false, push_constant_8 = false;
    bool memory_model = false, memory_model_device_scope = false;
    uint32_t subgroup_size = 0;       // VkPhysicalDeviceSubgroupProperties::subgroupSize
    uint32_t subgroup_operations = 0; // its supportedOperations where compute is among its stages
};

// One usable Vulkan device. Fields above `allocated` are immutable after discovery.
struct Device {
    int index = 0;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkPhysicalDeviceProperties properties{};
    std::string driver_name, driver_info, pci_bus_id;
    uint32_t family = 0;        // the queue family every stream submits to
    uint32_t queue_count = 0;   // its queues, all created
    std::unique_ptr<Queue[]> queues;
    uint32_t device_type = 0;   // memory type of device memory (DEVICE_LOCAL)
    uint32_t host_type = 0;     // memory type of pinned host memory (HOST_VISIBLE | HOST_COHERENT)
    uint32_t device_heap = 0;   // the heap of device_type
    size_t heap_size = 0;       // its size, or INFINIRT_VULKAN_MEMORY_LIMIT when less
    const char *memory_source = "the device-local heap's size"; // what heap_size is, for messages
    size_t max_alloc = 0;       // the largest single allocation: maxMemoryAllocationSize and maxBufferSize
    bool memory_budget = false; // VK_EXT_memory_budget is enabled
    ShaderFeatures shader;
    // VK_EXT_external_memory_host, with INFINIRT_VULKAN_HOST_IMPORT=1 where the device has it:
    // pageable host memory is imported and copied directly (vulkan_memory.cpp), at this alignment.
    PFN_vkGetMemoryHostPointerPropertiesEXT host_pointer_properties = nullptr; // NULL: no import
    size_t import_alignment = 0;
    uint32_t timestamp_bits = 0; // the family's timestampValidBits (0: no timestamps)
    double timestamp_period = 1; // nanoseconds per timestamp tick
    // 4-byte patterns of every byte value (value v at 4 * v), in host-visible memory: the ragged
    // edges of a fill are copied from it (vkCmdFillBuffer writes whole aligned words only).
    VkBuffer patterns = VK_NULL_HANDLE;
    VkDeviceMemory patterns_memory = VK_NULL_HANDLE;

    // Device-to-device copies of 16-byte words through the built-in compute shader
    // (vulkan_pipelines.cpp) rather than vkCmdCopyBuffer: GPUs (NVIDIA's transfer path copies at a
    // fifth of what its shaders reach); INFINIRT_VULKAN_SHADER_COPY=1 or 0 decides for every device.
    bool shader_copy = false;
    // The smallest copy that goes through the shader: smaller ones are a vkCmdCopyBuffer, which
    // costs less to start (the bandwidth does not matter there); 0 with INFINIRT_VULKAN_SHADER_COPY=1.
    size_t shader_copy_least = 0;
    // The largest asynchronous fill that goes into its stream's fill list (vulkan_stream.h), in
    // bytes: INFINIRT_VULKAN_FILL_LIST (0: none), else 4 KiB on GPUs and none on CPU devices
    // (lavapipe), whose dispatches cost more than its vkCmdFillBuffer.
    size_t fill_list_most = 0;

    // The built-in pipelines (vulkan_pipelines.h), created on first use under pipeline_mutex.
    std::mutex pipeline_mutex;
    VkPipelineLayout copy_layout = VK_NULL_HANDLE;
    VkPipeline copy_pipeline = VK_NULL_HANDLE;
    VkPipelineLayout fill_layout = VK_NULL_HANDLE;
    VkPipeline fill_pipeline = VK_NULL_HANDLE;
    VkPipelineLayout fills_layout = VK_NULL_HANDLE;
    VkPipeline fills_pipeline = VK_NULL_HANDLE;

    // Bytes of device memory infinirt holds on this device.
    std::atomic<size_t> allocated{0};
    // How long a wait polls a timeline semaphore's counter before it blocks in vkWaitSemaphores
    // (a blocking wait wakes the caller well after the GPU signals): INFINIRT_VULKAN_SPIN_US,
    // else 1 ms on GPUs and none on devices whose work runs on the host's CPUs (lavapipe), where
    // polling would take a core from the work itself.
    std::chrono::microseconds spin{0};
    // Stream priorities: where the family has two queues or more, the last high_queues of them
    // (a quarter, at least one) are created with queue priority 1.0 and serve the streams of
    // priority -1; the others, at 0.5, serve every other stream. 0 with one queue (range (0, 0)).
    uint32_t high_queues = 0;
    // Streams are spread over the queues of their priority in turn.
    std::atomic<uint32_t> next_queue{0};
    std::atomic<uint32_t> next_high_queue{0};
    // Set once a call saw VK_ERROR_DEVICE_LOST: every later call that submits or waits fails.
    std::atomic<bool> lost{false};

    // Guards the default stream's creation, the set of live streams and the spare semaphores.
    std::mutex mutex;
    std::atomic<Stream *> default_stream{nullptr};
    std::set<Stream *> streams;
    // Timeline semaphores of destroyed streams, reused by new ones (a semaphore's value only grows,
    // so an event of the old stream, which waits for a value already reached, stays complete).
    std::vector<VkSemaphore> spare_semaphores;

    // Idle staging chunks (vulkan_memory.cpp), guarded by staging_mutex.
    std::mutex staging_mutex;
    std::vector<StagingChunk> staging;
};

// The environment variable `name` as a whole number from `least` to `most`; `fallback` when it is
// unset, and when it is not such a number (then with a warning: "expected <what> from least to most").
unsigned long long rangeSetting(const char *name, unsigned long long least, unsigned long long most,
                                unsigned long long fallback, const char *what);

// Loads the Vulkan loader and enumerates devices, once per process (thread-safe). Never fails for
// a missing library, driver or feature: those give 0 devices and a reason.
void discoverDevices();

// 0 <= index < the device count (the loader validates indices).
Device &device(int index);

// "vulkan:N (\"name\")" pieces used in messages.
const char *deviceName(int index);

// The device's default stream, created on first use. Thread-safe; a failure is reported through
// the thread's error detail and retried on the next call.
infiniStatus_t defaultStream(int device, Stream **stream);

// A failed call's VkResult: VK_ERROR_DEVICE_LOST marks the device lost (every later submission or
// wait fails with DRIVER_ERROR naming it). Returns nativeFailure's status.
infiniStatus_t deviceFailure(Device &dev, const char *call, VkResult code, const char *what);

// DRIVER_ERROR naming the lost device, when it is; SUCCESS otherwise.
infiniStatus_t checkLost(const Device &dev);

// Creates a buffer of `size` bytes on memory of `memory_type`, bound, with the usages every
// infinirt buffer has (transfer source and destination, storage, device address). `address` (may
// be NULL) gets its buffer device address. Figures go in the error detail on failure.
infiniStatus_t createBuffer(Device &dev, size_t size, uint32_t memory_type, VkBuffer *buffer, VkDeviceMemory *memory,
                            VkDeviceAddress *address, const char *what);

// Destroys what createBuffer made.
void destroyBuffer(Device &dev, VkBuffer buffer, VkDeviceMemory memory);

} // namespace infinirt::vulkan
