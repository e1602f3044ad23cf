// A vulkan module (vulkan_module.cpp) and its kernels, which vulkan_launch.cpp launches. A module
// is one VkShaderModule of Vulkan SPIR-V with what vulkan_spirv.cpp read from it; a kernel is one
// of its GLCompute entry points, with a pipeline layout (push constants only: arguments reach the
// shader as buffer device addresses and values, no descriptor set) and a compute pipeline per
// launch shape, made on the shape's first launch and kept until the module is unloaded.
#pragma once

#include "vulkan_native_api.h"
#include "vulkan_spirv.h"

#include "infinicore.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace infinirt::vulkan {

struct Module;

// What sets a pipeline apart: the values of the specialization constants a launch sets, in this
// order: the block's dimensions sized by one, the dynamic shared bytes where the module declares
// kSpecDynamicSharedBytes, then (index, bytes) of each LOCAL argument whose constant it declares.
struct Shape {
    static constexpr size_t kMost = 32; // 3 dimensions, the dynamic bytes, 14 LOCAL arguments
    uint64_t value[kMost];
    size_t size = 0;
    void push_back(uint64_t v) { value[size++] = v; } // the launch checks the room first
    bool operator==(const Shape &o) const {
        return size == o.size && std::equal(value, value + size, o.value);
    }
    bool operator<(const Shape &o) const {
        return std::lexicographical_compare(value, value + size, o.value, o.value + o.size);
    }
    uint64_t operator[](size_t i) const { return value[i]; }
};

// One entry point of a module, taken on the first module_get_kernel of its name and released with
// the module. Fields above `mutex` are immutable after creation.
struct Kernel {
    Module *module = nullptr;
    int device = 0;
    const SpirvEntryPoint *entry = nullptr; // in module->info
    VkPipelineLayout layout = VK_NULL_HANDLE;
    uint32_t max_threads = 0;        // maxComputeWorkGroupInvocations, or the fixed block's threads
    uint64_t shared_capacity = 0;    // maxComputeSharedMemorySize less the entry's static shared memory
    // The specialization constants a launch sets that the module declares: the block's
    // dimensions, the dynamic shared bytes and LOCAL argument sizes (docs/kernels.md).
    int64_t dynamic_spec = -1;               // kSpecDynamicSharedBytes when declared
    uint32_t dynamic_spec_bytes = 4;
    std::vector<int64_t> local_spec;         // per parameter: kSpecLocalArgumentBase + i when declared, or -1
    std::vector<uint32_t> local_spec_bytes;  // per parameter: 4 or 8
    std::atomic<int64_t> max_dynamic_shared{0}; // MAX_DYNAMIC_SHARED_BYTES (settable)

    std::mutex mutex; // guards the cache below
    std::map<Shape, VkPipeline> pipelines;
    Shape last_shape;                        // the shape of the latest launch ...
    VkPipeline last_pipeline = VK_NULL_HANDLE; // ... and its pipeline
};

struct Module {
    int device = 0;
    VkShaderModule shader = VK_NULL_HANDLE;
    SpirvModule info;
    std::mutex mutex; // guards `kernels`
    std::map<std::string, std::unique_ptr<Kernel>> kernels;
};

// The pipeline of `k` for `shape` (the values of the specialization constants the launch sets),
// created on the shape's first launch. BUILD_FAILED with the driver's result where the driver
// refuses it.
infiniStatus_t kernelPipeline(Kernel &k, const Shape &shape, VkPipeline *pipeline);

} // namespace infinirt::vulkan
