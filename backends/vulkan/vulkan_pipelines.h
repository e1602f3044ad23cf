// The vulkan backend's built-in compute pipelines (vulkan_pipelines.cpp): SPIR-V compiled from
// shaders/*.comp by scripts/vulkan-shaders.sh and embedded (shaders/*.spv.h), created once per
// device on first use. Their arguments are push constants holding buffer device addresses, so no
// descriptor set is needed.
#pragma once

#include "vulkan_device.h"
#include "vulkan_native_api.h"
#include "vulkan_stream.h"

#include "infinicore.h"

#include <cstdint>

namespace infinirt::vulkan {

// What copy.comp reads: 16-byte words from src to dst (both 16-byte aligned device addresses).
struct CopyArguments {
    uint64_t src;
    uint64_t dst;
    uint64_t count; // words
};

// The copy pipeline of `dev` (created on first use; a failure is reported and retried next time).
infiniStatus_t copyPipeline(Device &dev, VkPipeline *pipeline, VkPipelineLayout *layout);

// Under stream.mutex: records the shader copy of `words` 16-byte words into `buffer`, the stream's
// (the pipeline bound, the arguments pushed, the dispatch).
void recordShaderCopy(Stream &stream, VkCommandBuffer buffer, VkPipeline pipeline, VkPipelineLayout layout,
                      const CopyArguments &arguments);

// What fill.comp reads: the head and tail words of a ragged fill (4-byte aligned device addresses,
// 0: none), the bytes of each to set, and the byte value in all four bytes.
struct FillEdgeArguments {
    uint64_t word[2];
    uint32_t mask[2];
    uint32_t value;
    uint32_t unused;
};

// The fill-edge pipeline of `dev`, as copyPipeline.
infiniStatus_t fillPipeline(Device &dev, VkPipeline *pipeline, VkPipelineLayout *layout);

// Under stream.mutex: records fill.comp's one dispatch setting the edge words of `arguments` into
// `buffer`, the stream's.
void recordShaderFillEdges(Stream &stream, VkCommandBuffer buffer, VkPipeline pipeline, VkPipelineLayout layout,
                           const FillEdgeArguments &arguments);

// One small fill of fills.comp's list (std430: 24 bytes, 8-byte aligned).
struct FillRecord {
    uint64_t address;    // the first word's buffer device address (4-byte aligned)
    uint32_t words;      // words from there (at least 1)
    uint32_t value;      // the byte value in all four bytes
    uint32_t first_mask; // the bytes of the first word to set (0xffffffff: all)
    uint32_t last_mask;  // the bytes of the last word to set (both masks apply to a single word)
};
static_assert(sizeof(FillRecord) == 24, "fills.comp reads 24-byte records");

// The fill-list pipeline of `dev`, as copyPipeline.
infiniStatus_t fillsPipeline(Device &dev, VkPipeline *pipeline, VkPipelineLayout *layout);

// Under stream.mutex: records fills.comp's dispatch of `count` records (one work group each),
// the first at buffer device address `records`, into `buffer`, the stream's.
void recordShaderFills(Stream &stream, VkCommandBuffer buffer, VkPipeline pipeline, VkPipelineLayout layout,
                       VkDeviceAddress records, uint32_t count);

} // namespace infinirt::vulkan
