// vulkan_module.cpp - modules of Vulkan SPIR-V: load (read the interface, check the capabilities
// against the device, vkCreateShaderModule), unload, kernels by entry-point name with their
// attributes and pipelines, and the rule for choosing a module file's image.
#include "vulkan_backend.h"
#include "vulkan_device.h"
#include "vulkan_module.h"
#include "vulkan_stream.h"

#include "common/module_formats.hpp"
#include "common/module_rank.hpp"
#include "common/spirv.hpp"
#include "common/text.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>

namespace infinirt::vulkan {
namespace {

// The device feature a capability needs, false where the device lacks it; capabilities not in
// this list are left to the driver.
bool deviceHas(const Device &dev, uint32_t capability) {
    const ShaderFeatures &f = dev.shader;
    switch (capability) {
    case 9: return f.float16;
    case 10: return f.float64;
    case 12: return f.int64_atomics;
    case 22: return f.int16;
    case 39: return f.int8;
    case 61: return (f.subgroup_operations & VK_SUBGROUP_FEATURE_BASIC_BIT) != 0;
    case 62: return (f.subgroup_operations & VK_SUBGROUP_FEATURE_VOTE_BIT) != 0;
    case 63: return (f.subgroup_operations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) != 0;
    case 64: return (f.subgroup_operations & VK_SUBGROUP_FEATURE_BALLOT_BIT) != 0;
    case 65: return (f.subgroup_operations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) != 0;
    case 66: return (f.subgroup_operations & VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT) != 0;
    case 67: return (f.subgroup_operations & VK_SUBGROUP_FEATURE_CLUSTERED_BIT) != 0;
    case 68: return (f.subgroup_operations & VK_SUBGROUP_FEATURE_QUAD_BIT) != 0;
    case 4433: return f.storage_buffer_16;
    case 4434: return f.uniform_storage_16;
    case 4435: return f.push_constant_16;
    case 4448: return f.storage_buffer_8;
    case 4449: return f.uniform_storage_8;
    case 4450: return f.push_constant_8;
    case 5345: return f.memory_model;
    case 5346: return f.memory_model_device_scope;
    default: return true;
    }
}

// BUILD_FAILED: `what` goes to the log and, with the device, to the error detail.
infiniStatus_t buildFailed(int device, const std::string &what, char *log, size_t log_size) {
    common::copyString(log, log_size, what);
    return common::fail(INFINI_STATUS_BUILD_FAILED, "the module cannot be built for vulkan:%d: %s", device,
                        what.c_str());
}

std::string entryNames(const SpirvModule &info) {
    std::string names;
    for (const SpirvEntryPoint &e : info.entries) {
        names += (names.empty() ? "\"" : ", \"") + e.name + "\"";
    }
    return names;
}

// One line per entry point for the load's log: how its block is sized and where its arguments go.
std::string describeEntries(const SpirvModule &info) {
    std::string text;
    for (const SpirvEntryPoint &e : info.entries) {
        char line[256];
        std::string block;
        for (int d = 0; d < 3; ++d) {
            block += (d ? " x " : "") + (e.spec_id[d] >= 0 ? "spec " + std::to_string(e.spec_id[d])
                                                              : std::to_string(e.fixed_size[d]));
        }
        std::snprintf(line, sizeof line, "entry point \"%s\": block %s, %zu argument%s %s (%u bytes), %llu bytes of "
                      "static shared memory\n",
                      e.name.c_str(), block.c_str(), e.params.size(), e.params.size() == 1 ? "" : "s",
                      e.indirect ? "in a buffer whose address is pushed" : "in push constants",
                      e.indirect ? e.arguments_bytes : e.push_bytes, static_cast<unsigned long long>(e.static_shared));
        text += line;
    }
    return text;
}

// The size in bytes the module declares for specialization constant `id`, or 0 when it has none.
uint32_t specBytes(const SpirvModule &info, uint32_t id) {
    for (const SpirvSpecConstant &s : info.spec_constants) {
        if (s.id == id) {
            return s.bytes;
        }
    }
    return 0;
}

void releaseKernel(const Device &dev, Kernel &k) {
    const NativeApi &vk = nativeApi();
    for (auto &entry : k.pipelines) {
        vk.vkDestroyPipeline(dev.device, entry.second, nullptr);
    }
    k.pipelines.clear();
    if (k.layout != VK_NULL_HANDLE) {
        vk.vkDestroyPipelineLayout(dev.device, k.layout, nullptr);
    }
}

} // namespace

// One SPIRV image of the Vulkan flavour (the loader has resolved AUTO): an OpenCL-flavour one is
// BAD_PARAM naming its flavour, as is count > 1 (link SPIR-V modules with spirv-link first). The
// module's interface is read (vulkan_spirv.h); a malformed module, one without a GLCompute entry
// point, one declaring a capability whose feature the device lacks, or an entry point whose
// push-constant block is over maxPushConstantsSize is BUILD_FAILED with the reason in the log
// and the error detail; then vkCreateShaderModule. The log lists the entry points, how their
// blocks are sized and where their arguments go. `options` has no meaning here and is ignored.
infiniStatus_t moduleLoad(int device, const infinirtModuleImage_t *images, size_t count, char *log, size_t log_size,
                          void **out) {
    Device &dev = infinirt::vulkan::device(device);
    common::copyString(log, log_size, "");
    for (size_t i = 0; i < count; ++i) {
        if (images[i].format != INFINIRT_MODULE_FORMAT_SPIRV) {
            return common::fail(INFINI_STATUS_BAD_PARAM, "image %zu is %s; the vulkan backend loads SPIRV images (Vulkan "
                                                         "SPIR-V: compute shaders)",
                                i, common::moduleFormatName(images[i].format));
        }
        const common::SpirvFlavour flavour = common::spirvFlavour(images[i].data, images[i].size);
        if (flavour != common::SpirvFlavour::Vulkan) {
            return common::fail(INFINI_STATUS_BAD_PARAM,
                                "image %zu is %s; the vulkan backend loads Vulkan SPIR-V (the Shader capability)%s", i,
                                common::spirvFlavourName(flavour),
                                flavour == common::SpirvFlavour::OpenCl ? ": load it on an opencl device" : "");
        }
    }
    if (count != 1) {
        return common::fail(INFINI_STATUS_BAD_PARAM,
                            "%zu images: a vulkan module is one SPIR-V module (link several with spirv-link first)",
                            count);
    }
    auto module = std::unique_ptr<Module>(new (std::nothrow) Module);
    if (!module) {
        return common::fail(INFINI_STATUS_OUT_OF_MEMORY, "out of host memory loading a module on vulkan:%d", device);
    }
    std::string why;
    if (!readSpirv(images[0].data, images[0].size, &module->info, &why)) {
        return buildFailed(device, "the SPIR-V cannot be read: " + why, log, log_size);
    }
    const SpirvModule &info = module->info;
    if (info.entries.empty()) {
        return buildFailed(device, "the module has no compute (GLCompute) entry point", log, log_size);
    }
    for (uint32_t capability : info.capabilities) {
        if (!deviceHas(dev, capability)) {
            return buildFailed(device,
                               std::string("the module declares the capability ") + capabilityName(capability) +
                                   ", which vulkan:" + std::to_string(device) + " (\"" + dev.properties.deviceName +
                                   "\") lacks (the driver does not support its feature" +
                                   (capability == 5345 || capability == 5346
                                        ? ", or it is off: INFINIRT_VULKAN_MEMORY_MODEL=1 turns it on)"
                                        : ")"),
                               log, log_size);
        }
    }
    const uint32_t push_limit = dev.properties.limits.maxPushConstantsSize;
    for (const SpirvEntryPoint &e : info.entries) {
        if (e.indirect && e.arguments_bytes > kArgumentBytes) {
            return buildFailed(device,
                               "entry point \"" + e.name + "\" takes " + std::to_string(e.arguments_bytes) +
                                   " bytes of arguments in a buffer; at most " + std::to_string(kArgumentBytes) +
                                   " are passed",
                               log, log_size);
        }
        if (e.push_bytes > push_limit) {
            return buildFailed(device,
                               "entry point \"" + e.name + "\" takes " + std::to_string(e.push_bytes) +
                                   " bytes of push constants, over the device's maxPushConstantsSize of " +
                                   std::to_string(push_limit) +
                                   ": pass its arguments in a buffer (docs/kernels.md, \"Arguments over the limit\")",
                               log, log_size);
        }
    }
    VkShaderModuleCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    create.codeSize = images[0].size;
    // vkCreateShaderModule reads 4-byte words: give it an aligned copy.
    std::vector<uint32_t> words(images[0].size / 4);
    std::memcpy(words.data(), images[0].data, images[0].size);
    create.pCode = words.data();
    const VkResult result = nativeApi().vkCreateShaderModule(dev.device, &create, nullptr, &module->shader);
    if (result != VK_SUCCESS) {
        if (result == VK_ERROR_INVALID_SHADER_NV) {
            return buildFailed(device, "vkCreateShaderModule refused the SPIR-V (VK_ERROR_INVALID_SHADER_NV)", log,
                               log_size);
        }
        return deviceFailure(dev, "vkCreateShaderModule", result, "loading a module");
    }
    char version[96];
    std::snprintf(version, sizeof version, "vulkan:%d: SPIR-V %u.%u, %zu compute entry point%s\n", device,
                  (info.version >> 16) & 0xffu, (info.version >> 8) & 0xffu, info.entries.size(),
                  info.entries.size() == 1 ? "" : "s");
    common::copyString(log, log_size, version + describeEntries(info));
    module->device = device;
    *out = module.release();
    return INFINI_STATUS_SUCCESS;
}

// Waits for the device's queued work (a queued launch may still use the pipelines), then
// destroys the pipelines, the layouts and the shader module.
infiniStatus_t moduleUnload(int device, void *handle) {
    Module *module = static_cast<Module *>(handle);
    const infiniStatus_t status = deviceSynchronize(device);
    if (status != INFINI_STATUS_SUCCESS && status != INFINI_STATUS_DRIVER_ERROR) {
        return status; // the module stays loaded, usable
    }
    Device &dev = infinirt::vulkan::device(device);
    for (auto &entry : module->kernels) {
        releaseKernel(dev, *entry.second);
    }
    nativeApi().vkDestroyShaderModule(dev.device, module->shader, nullptr);
    delete module;
    return INFINI_STATUS_SUCCESS;
}

// The entry point `name` (GLCompute), with its pipeline layout: its push-constant block, or none.
// SYMBOL_NOT_FOUND lists the module's entry points.
infiniStatus_t moduleGetKernel(int device, void *handle, const char *name, void **out) {
    Module *module = static_cast<Module *>(handle);
    Device &dev = infinirt::vulkan::device(device);
    std::lock_guard<std::mutex> lock(module->mutex);
    const auto found = module->kernels.find(name);
    if (found != module->kernels.end()) {
        *out = found->second.get();
        return INFINI_STATUS_SUCCESS;
    }
    const SpirvEntryPoint *entry = nullptr;
    for (const SpirvEntryPoint &e : module->info.entries) {
        if (e.name == name) {
            entry = &e;
        }
    }
    if (entry == nullptr) {
        return common::fail(INFINI_STATUS_SYMBOL_NOT_FOUND,
                            "no compute entry point \"%s\" in the module on vulkan:%d (it has: %s)", name, device,
                            entryNames(module->info).c_str());
    }
    auto kernel = std::make_unique<Kernel>();
    kernel->module = module;
    kernel->device = device;
    kernel->entry = entry;
    const VkPhysicalDeviceLimits &limits = dev.properties.limits;
    const bool fixed = entry->spec_id[0] < 0 && entry->spec_id[1] < 0 && entry->spec_id[2] < 0;
    kernel->max_threads = fixed ? std::min<uint64_t>(uint64_t{entry->fixed_size[0]} * entry->fixed_size[1] *
                                                         entry->fixed_size[2],
                                                     limits.maxComputeWorkGroupInvocations)
                                : limits.maxComputeWorkGroupInvocations;
    kernel->shared_capacity = limits.maxComputeSharedMemorySize > entry->static_shared
                                  ? limits.maxComputeSharedMemorySize - entry->static_shared
                                  : 0;
    kernel->max_dynamic_shared.store(static_cast<int64_t>(kernel->shared_capacity), std::memory_order_relaxed);
    if (const uint32_t bytes = specBytes(module->info, kSpecDynamicSharedBytes)) {
        kernel->dynamic_spec = kSpecDynamicSharedBytes;
        kernel->dynamic_spec_bytes = bytes;
    }
    for (size_t i = 0; i < entry->params.size(); ++i) {
        const uint32_t id = kSpecLocalArgumentBase + static_cast<uint32_t>(i);
        const uint32_t bytes = specBytes(module->info, id);
        kernel->local_spec.push_back(bytes ? static_cast<int64_t>(id) : int64_t{-1});
        kernel->local_spec_bytes.push_back(bytes ? bytes : 4);
    }
    VkPushConstantRange range{};
    range.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    range.size = entry->push_bytes;
    VkPipelineLayoutCreateInfo layout{};
    layout.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    layout.pushConstantRangeCount = entry->push_bytes > 0 ? 1 : 0;
    layout.pPushConstantRanges = &range;
    const VkResult result = nativeApi().vkCreatePipelineLayout(dev.device, &layout, nullptr, &kernel->layout);
    if (result != VK_SUCCESS) {
        return deviceFailure(dev, "vkCreatePipelineLayout", result, "taking a kernel");
    }
    Kernel *k = kernel.get();
    try {
        module->kernels.emplace(entry->name, std::move(kernel));
    } catch (...) {
        nativeApi().vkDestroyPipelineLayout(dev.device, k->layout, nullptr);
        throw;
    }
    *out = k;
    return INFINI_STATUS_SUCCESS;
}

// Vulkan gives a shader's module-scope variables no address: NOT_IMPLEMENTED.
infiniStatus_t moduleGetGlobal(int device, void *, const char *name, void **, size_t *) {
    return common::fail(INFINI_STATUS_NOT_IMPLEMENTED,
                        "Vulkan gives a shader's variables (\"%s\") no address on vulkan:%d: pass a buffer argument to "
                        "the kernels instead",
                        name, device);
}

infiniStatus_t kernelPipeline(Kernel &k, const Shape &shape, VkPipeline *pipeline) {
    if (k.last_pipeline != VK_NULL_HANDLE && k.last_shape == shape) {
        *pipeline = k.last_pipeline;
        return INFINI_STATUS_SUCCESS;
    }
    const auto found = k.pipelines.find(shape);
    if (found != k.pipelines.end()) {
        k.last_shape = shape;
        k.last_pipeline = found->second;
        *pipeline = found->second;
        return INFINI_STATUS_SUCCESS;
    }
    // The map entries in Shape's order: the block's dimensions, the dynamic bytes, then an (index,
    // bytes) pair per LOCAL argument.
    const SpirvEntryPoint &e = *k.entry;
    std::vector<VkSpecializationMapEntry> entries;
    std::vector<unsigned char> data;
    size_t next = 0;
    auto add = [&](int64_t id, uint32_t bytes) {
        entries.push_back(VkSpecializationMapEntry{static_cast<uint32_t>(id), static_cast<uint32_t>(data.size()), bytes});
        const uint64_t value = shape[next++];
        const uint32_t narrow = static_cast<uint32_t>(value);
        const unsigned char *from = bytes == 8 ? reinterpret_cast<const unsigned char *>(&value)
                                               : reinterpret_cast<const unsigned char *>(&narrow);
        data.insert(data.end(), from, from + bytes);
    };
    for (int d = 0; d < 3; ++d) {
        if (e.spec_id[d] >= 0) {
            add(e.spec_id[d], 4);
        }
    }
    if (k.dynamic_spec >= 0) {
        add(k.dynamic_spec, k.dynamic_spec_bytes);
    }
    while (next + 1 < shape.size) { // (index, bytes) of each LOCAL argument
        const size_t index = shape[next++];
        add(k.local_spec[index], k.local_spec_bytes[index]);
    }
    VkSpecializationInfo specialization{};
    specialization.mapEntryCount = static_cast<uint32_t>(entries.size());
    specialization.pMapEntries = entries.data();
    specialization.dataSize = data.size();
    specialization.pData = data.data();
    VkComputePipelineCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    info.flags = VK_PIPELINE_CREATE_DISPATCH_BASE_BIT; // grids over the limit run in parts (vulkan_launch.cpp)
    info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = k.module->shader;
    info.stage.pName = e.name.c_str();
    info.stage.pSpecializationInfo = entries.empty() ? nullptr : &specialization;
    info.layout = k.layout;
    Device &dev = infinirt::vulkan::device(k.device);
    VkPipeline created = VK_NULL_HANDLE;
    const VkResult result = nativeApi().vkCreateComputePipelines(dev.device, VK_NULL_HANDLE, 1, &info, nullptr, &created);
    if (result != VK_SUCCESS) {
        if (result == VK_ERROR_INVALID_SHADER_NV) {
            return common::fail(INFINI_STATUS_BUILD_FAILED,
                                "vkCreateComputePipelines refused kernel \"%s\" on vulkan:%d "
                                "(VK_ERROR_INVALID_SHADER_NV)",
                                e.name.c_str(), k.device);
        }
        return deviceFailure(dev, "vkCreateComputePipelines", result, "creating a kernel's pipeline");
    }
    try {
        k.pipelines.emplace(shape, created);
        k.last_shape = shape;
    } catch (...) {
        nativeApi().vkDestroyPipeline(dev.device, created, nullptr);
        throw;
    }
    k.last_pipeline = created;
    *pipeline = created;
    return INFINI_STATUS_SUCCESS;
}

// MAX_THREADS_PER_BLOCK: maxComputeWorkGroupInvocations, or the threads of a block the module
// fixes; STATIC_SHARED_BYTES: the entry point's Workgroup variables not sized by specialization
// constants; PRIVATE_BYTES_PER_THREAD 0 and NUM_REGISTERS -1 (Vulkan does not say);
// PREFERRED_BLOCK_MULTIPLE: the subgroup size; MAX_DYNAMIC_SHARED_BYTES: maxComputeSharedMemorySize
// less the static (settable lower); NUM_PARAMS: the members of its arguments' block.
infiniStatus_t kernelGetAttribute(int device, void *handle, infinirtKernelAttribute_t attr, int64_t *value) {
    const Kernel &k = *static_cast<const Kernel *>(handle);
    switch (attr) {
    case INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK: *value = k.max_threads; return INFINI_STATUS_SUCCESS;
    case INFINIRT_KERNEL_ATTR_STATIC_SHARED_BYTES:
        *value = static_cast<int64_t>(k.entry->static_shared);
        return INFINI_STATUS_SUCCESS;
    case INFINIRT_KERNEL_ATTR_PRIVATE_BYTES_PER_THREAD: *value = 0; return INFINI_STATUS_SUCCESS;
    case INFINIRT_KERNEL_ATTR_NUM_REGISTERS: *value = -1; return INFINI_STATUS_SUCCESS;
    case INFINIRT_KERNEL_ATTR_PREFERRED_BLOCK_MULTIPLE:
        *value = std::max<int64_t>(1, infinirt::vulkan::device(device).shader.subgroup_size);
        return INFINI_STATUS_SUCCESS;
    case INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES:
        *value = k.max_dynamic_shared.load(std::memory_order_relaxed);
        return INFINI_STATUS_SUCCESS;
    case INFINIRT_KERNEL_ATTR_NUM_PARAMS: *value = static_cast<int64_t>(k.entry->params.size()); return INFINI_STATUS_SUCCESS;
    }
    return common::fail(INFINI_STATUS_BAD_PARAM, "unknown kernel attribute %d", static_cast<int>(attr));
}

// MAX_DYNAMIC_SHARED_BYTES, at most maxComputeSharedMemorySize less the static shared memory.
infiniStatus_t kernelSetAttribute(int device, void *handle, infinirtKernelAttribute_t attr, int64_t value) {
    Kernel &k = *static_cast<Kernel *>(handle);
    if (attr != INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "kernel attribute %d is not settable on vulkan",
                            static_cast<int>(attr));
    }
    if (value < 0 || static_cast<uint64_t>(value) > k.shared_capacity) {
        return common::fail(INFINI_STATUS_BAD_PARAM,
                            "MAX_DYNAMIC_SHARED_BYTES of %lld for kernel \"%s\" on vulkan:%d is outside 0 to %llu "
                            "bytes (maxComputeSharedMemorySize %u less %llu bytes of static shared memory)",
                            static_cast<long long>(value), k.entry->name.c_str(), device,
                            static_cast<unsigned long long>(k.shared_capacity),
                            infinirt::vulkan::device(device).properties.limits.maxComputeSharedMemorySize,
                            static_cast<unsigned long long>(k.entry->static_shared));
    }
    k.max_dynamic_shared.store(value, std::memory_order_relaxed);
    return INFINI_STATUS_SUCCESS;
}

// SPIRV for any device (Vulkan SPIR-V is not built for one); nothing else loads.
infiniStatus_t moduleRankImage(int, infinirtModuleFormat_t format, const char *arch, int *rank, char *why,
                               size_t why_size) {
    if (format != INFINIRT_MODULE_FORMAT_SPIRV) {
        return common::imageUnfit(rank, why, why_size, "the vulkan backend loads SPIRV (Vulkan SPIR-V), not %s",
                                  common::moduleFormatName(format));
    }
    if (!common::imageForAnyDevice(arch)) {
        return common::imageUnfit(rank, why, why_size,
                                  "Vulkan SPIR-V is for any device; an image for \"%s\" is not one this backend reads",
                                  arch);
    }
    return common::imageFits(rank, 1);
}

} // namespace infinirt::vulkan
