// The SPIR-V reader of the vulkan plugin on its own (backends/vulkan/vulkan_spirv.cpp): which entry
// points touch memory beyond their invocations and workgroup, the fact that decides whether a
// launch needs a barrier in its stream's batch. A wrong "touches nothing" would drop a barrier that
// stream order needs, a race that lavapipe, which runs one command after another, never shows.
#include "vulkan_spirv.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#ifndef INFINIRT_VULKAN_SPIRV_DIR
#error "INFINIRT_VULKAN_SPIRV_DIR (the folder of the test's SPIR-V) must be defined"
#endif

namespace {

using infinirt::vulkan::readSpirv;
using infinirt::vulkan::SpirvEntryPoint;
using infinirt::vulkan::SpirvModule;

SpirvModule load(const std::string &name) {
    const std::string path = std::string(INFINIRT_VULKAN_SPIRV_DIR) + "/" + name;
    std::ifstream in(path, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_FALSE(bytes.empty()) << path << " is missing or empty";
    SpirvModule module;
    std::string why;
    EXPECT_TRUE(readSpirv(bytes.data(), bytes.size(), &module, &why)) << path << ": " << why;
    return module;
}

const SpirvEntryPoint *entry(const SpirvModule &module, const std::string &name) {
    for (const SpirvEntryPoint &e : module.entries) {
        if (e.name == name) {
            return &e;
        }
    }
    ADD_FAILURE() << "no entry point \"" << name << "\"";
    return nullptr;
}

// The bench's module: the entries share one addressing model and the buffer reference types of
// both; each is judged by its own code.
TEST(VulkanSpirv, EachEntryOfALinkedModuleIsJudgedAlone) {
    const SpirvModule module = load("linked.spv");
    ASSERT_EQ(module.entries.size(), 2u);
    const SpirvEntryPoint *empty = entry(module, "empty");
    const SpirvEntryPoint *saxpy = entry(module, "saxpy");
    ASSERT_TRUE(empty && saxpy);
    EXPECT_FALSE(empty->touches_memory) << "an empty kernel that only declares a buffer reference type";
    EXPECT_TRUE(saxpy->touches_memory) << "saxpy loads and stores through buffer references";
}

// Push constants (a buffer reference among them, never followed), shared memory, a barrier and a
// call, compiled without optimization so that all of it stays.
TEST(VulkanSpirv, InvocationAndWorkgroupMemoryAreNotMemory) {
    const SpirvModule module = load("no_memory.spv");
    ASSERT_EQ(module.entries.size(), 1u);
    EXPECT_FALSE(module.entries[0].touches_memory);
}

// The only access is two calls deep, through an address passed as an integer.
TEST(VulkanSpirv, MemoryTouchedInACalledFunctionCounts) {
    const SpirvModule module = load("store_in_callee.spv");
    ASSERT_EQ(module.entries.size(), 1u);
    EXPECT_TRUE(module.entries[0].touches_memory);
}

// A descriptor-bound storage buffer (a StorageBuffer variable), read only.
TEST(VulkanSpirv, AStorageBufferVariableCounts) {
    const SpirvModule module = load("storage_buffer.spv");
    ASSERT_EQ(module.entries.size(), 1u);
    EXPECT_TRUE(module.entries[0].touches_memory);
}

} // namespace
