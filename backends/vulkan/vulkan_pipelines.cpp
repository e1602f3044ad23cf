// vulkan_pipelines.cpp - the built-in compute pipelines (see the header).
#include "vulkan_pipelines.h"

#include "vulkan_backend.h"

#include "shaders/copy.spv.h"
#include "shaders/fill.spv.h"
#include "shaders/fills.spv.h"

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

// The pipeline `*created` (with `*created_layout`) of `dev`, created on first use.
infiniStatus_t builtinPipeline(Device &dev, const uint32_t *spirv, size_t spirv_bytes, uint32_t push_bytes,
                               const char *what, VkPipeline *created, VkPipelineLayout *created_layout,
                               VkPipeline *pipeline, VkPipelineLayout *layout) {
    std::lock_guard<std::mutex> lock(dev.pipeline_mutex);
    if (*created == VK_NULL_HANDLE) {
        infiniStatus_t status = createPipeline(dev, spirv, spirv_bytes, push_bytes, what, created, created_layout);
        if (status != INFINI_STATUS_SUCCESS) {
            return status;
        }
    }
    *pipeline = *created;
    *layout = *created_layout;
    return INFINI_STATUS_SUCCESS;
}

} // namespace

infiniStatus_t copyPipeline(Device &dev, VkPipeline *pipeline, VkPipelineLayout *layout) {
    return builtinPipeline(dev, shaders::kCopySpirv, sizeof(shaders::kCopySpirv), sizeof(CopyArguments),
                           "creating the copy shader's pipeline", &dev.copy_pipeline, &dev.copy_layout, pipeline,
                           layout);
}

infiniStatus_t fillPipeline(Device &dev, VkPipeline *pipeline, VkPipelineLayout *layout) {
    return builtinPipeline(dev, shaders::kFillSpirv, sizeof(shaders::kFillSpirv), sizeof(FillEdgeArguments),
                           "creating the fill shader's pipeline", &dev.fill_pipeline, &dev.fill_layout, pipeline,
                           layout);
}

infiniStatus_t fillsPipeline(Device &dev, VkPipeline *pipeline, VkPipelineLayout *layout) {
    return builtinPipeline(dev, shaders::kFillsSpirv, sizeof(shaders::kFillsSpirv), sizeof(VkDeviceAddress),
                           "creating the fill-list shader's pipeline", &dev.fills_pipeline, &dev.fills_layout, pipeline,
                           layout);
}

void recordShaderCopy(Stream &stream, VkCommandBuffer buffer, VkPipeline pipeline, VkPipelineLayout layout,
                      const CopyArguments &arguments) {
    const NativeApi &vk = nativeApi();
    const Device &dev = *stream.dev;
    // copy.comp's local_size_x times its kUnroll: the words one work group moves per step. One step
    // per group where the grid allows it (65535 groups of 1,024 words: 1 GiB), a grid-stride loop
    // beyond.
    constexpr uint64_t kGroupWords = 256 * 4;
    const uint64_t groups = std::min<uint64_t>({(arguments.count + kGroupWords - 1) / kGroupWords,
                                                dev.properties.limits.maxComputeWorkGroupCount[0], uint64_t{65535}});
    bindPipeline(stream, buffer, pipeline);
    vk.vkCmdPushConstants(buffer, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(arguments), &arguments);
    vk.vkCmdDispatch(buffer, static_cast<uint32_t>(groups), 1, 1);
}

void recordShaderFillEdges(Stream &stream, VkCommandBuffer buffer, VkPipeline pipeline, VkPipelineLayout layout,
                           const FillEdgeArguments &arguments) {
    const NativeApi &vk = nativeApi();
    bindPipeline(stream, buffer, pipeline);
    vk.vkCmdPushConstants(buffer, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(arguments), &arguments);
    vk.vkCmdDispatch(buffer, 1, 1, 1);
}

void recordShaderFills(Stream &stream, VkCommandBuffer buffer, VkPipeline pipeline, VkPipelineLayout layout,
                       VkDeviceAddress records, uint32_t count) {
    const NativeApi &vk = nativeApi();
    bindPipeline(stream, buffer, pipeline);
    vk.vkCmdPushConstants(buffer, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(records), &records);
    vk.vkCmdDispatch(buffer, count, 1, 1);
}

} // namespace infinirt::vulkan
