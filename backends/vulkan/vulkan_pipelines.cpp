// vulkan_pipelines.cpp - the built-in compute pipelines (see the header).
#include "vulkan_pipelines.h"

#include "vulkan_backend.h"

#include "shaders/copy.spv.h"

#include <algorithm>

namespace infinirt::vulkan {
namespace {

// A compute pipeline of `spirv` (entry point "main") whose layout is `push_bytes` of push constants.
infiniStatus_t createPipeline(Device &dev, const uint32_t *spirv, size_t spirv_bytes, uint32_t push_bytes,
                              const char *what, VkPipeline *pipeline, VkPipelineLayout *layout) {
    const NativeApi &vk = nativeApi();
    VkShaderModuleCreateInfo module_info{};
    module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    module_info.codeSize = spirv_bytes;
    module_info.pCode = spirv;
    VkShaderModule module = VK_NULL_HANDLE;
    VkResult result = vk.vkCreateShaderModule(dev.device, &module_info, nullptr, &module);
    if (result != VK_SUCCESS) {
        return deviceFailure(dev, "vkCreateShaderModule", result, what);
    }
    VkPushConstantRange range{};
    range.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    range.size = push_bytes;
    VkPipelineLayoutCreateInfo layout_info{};
    layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    layout_info.pushConstantRangeCount = 1;
    layout_info.pPushConstantRanges = &range;
    VkPipelineLayout created_layout = VK_NULL_HANDLE;
    result = vk.vkCreatePipelineLayout(dev.device, &layout_info, nullptr, &created_layout);
    if (result != VK_SUCCESS) {
        vk.vkDestroyShaderModule(dev.device, module, nullptr);
        return deviceFailure(dev, "vkCreatePipelineLayout", result, what);
    }
    VkComputePipelineCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module;
    info.stage.pName = "main";
    info.layout = created_layout;
    VkPipeline created = VK_NULL_HANDLE;
    result = vk.vkCreateComputePipelines(dev.device, VK_NULL_HANDLE, 1, &info, nullptr, &created);
    vk.vkDestroyShaderModule(dev.device, module, nullptr);
    if (result != VK_SUCCESS) {
        return deviceFailure(dev, "vkCreateComputePipelines", result, what);
    }
    *pipeline = created;
    *layout = created_layout;
    return INFINI_STATUS_SUCCESS;
}

} // namespace

infiniStatus_t copyPipeline(Device &dev, VkPipeline *pipeline, VkPipelineLayout *layout) {
    std::lock_guard<std::mutex> lock(dev.pipeline_mutex);
    if (dev.copy_pipeline == VK_NULL_HANDLE) {
        infiniStatus_t status = createPipeline(dev, shaders::kCopySpirv, sizeof(shaders::kCopySpirv),
                                               sizeof(CopyArguments), "creating the copy shader's pipeline",
                                               &dev.copy_pipeline, &dev.copy_layout);
        if (status != INFINI_STATUS_SUCCESS) {
            return status;
        }
    }
    *pipeline = dev.copy_pipeline;
    *layout = dev.copy_layout;
    return INFINI_STATUS_SUCCESS;
}

void recordShaderCopy(const Device &dev, VkCommandBuffer buffer, VkPipeline pipeline, VkPipelineLayout layout,
                      const CopyArguments &arguments) {
    const NativeApi &vk = nativeApi();
    constexpr uint64_t kGroup = 256; // copy.comp's local_size_x
    const uint64_t groups =
        std::min<uint64_t>({(arguments.count + kGroup - 1) / kGroup, dev.properties.limits.maxComputeWorkGroupCount[0],
                            uint64_t{65535}});
    vk.vkCmdBindPipeline(buffer, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vk.vkCmdPushConstants(buffer, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(arguments), &arguments);
    vk.vkCmdDispatch(buffer, static_cast<uint32_t>(groups), 1, 1);
}

} // namespace infinirt::vulkan
