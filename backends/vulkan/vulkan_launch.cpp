// vulkan_launch.cpp - kernel launch: the arguments laid out as the entry point's argument block
// says (vulkan_spirv.h), the pipeline of the launch's shape, then bind, push and dispatch,
// enqueued on the stream like a copy (stream-ordered, batched while the stream is busy).
#include "vulkan_backend.h"
#include "vulkan_device.h"
#include "vulkan_memory.h"
#include "vulkan_module.h"
#include "vulkan_stream.h"

#include "common/kernel_args.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>

namespace infinirt::vulkan {
namespace {

__attribute__((noinline, cold)) infiniStatus_t badArgument(const Kernel &k, uint32_t index,
                                                           const infinirtKernelArg_t &arg, const char *why) {
    const SpirvParam &p = k.entry->params[index];
    return common::fail(INFINI_STATUS_BAD_PARAM,
                        "argument %u (%s, %zu bytes) of kernel \"%s\" on vulkan:%d: parameter %u is %s (%u bytes at "
                        "offset %u of its argument block): %s",
                        index, common::kernelArgKindName(arg.kind), arg.size, k.entry->name.c_str(), k.device, index, p.type.c_str(),
                        p.size, p.offset, why);
}

__attribute__((noinline, cold)) infiniStatus_t refuseConfig(const Kernel &k, const infinirtLaunchConfig_t &c,
                                                            uint32_t num_args) {
    const SpirvEntryPoint &e = *k.entry;
    const VkPhysicalDeviceLimits &limits = device(k.device).properties.limits;
    if (c.flags & INFINIRT_LAUNCH_COOPERATIVE) {
        return common::fail(INFINI_STATUS_NOT_IMPLEMENTED,
                            "cooperative launch of kernel \"%s\" on vulkan:%d: Vulkan cannot guarantee that all "
                            "workgroups run together",
                            e.name.c_str(), k.device);
    }
    if ((c.cluster[0] | c.cluster[1] | c.cluster[2]) != 0) {
        return common::fail(INFINI_STATUS_NOT_IMPLEMENTED,
                            "cluster %ux%ux%u for kernel \"%s\" on vulkan:%d: Vulkan has no thread-block clusters",
                            c.cluster[0], c.cluster[1], c.cluster[2], e.name.c_str(), k.device);
    }
    if (num_args != e.params.size()) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "kernel \"%s\" on vulkan:%d takes %zu arguments; %u given",
                            e.name.c_str(), k.device, e.params.size(), num_args);
    }
    for (int d = 0; d < 3; ++d) {
        if (e.spec_id[d] < 0 && c.block[d] != e.fixed_size[d]) {
            return common::fail(INFINI_STATUS_BAD_PARAM,
                                "block %ux%ux%u for kernel \"%s\" on vulkan:%d: the module fixes its block at %ux%ux%u "
                                "(size it with local_size_%c_id = %d to choose it at launch: docs/kernels.md)",
                                c.block[0], c.block[1], c.block[2], e.name.c_str(), k.device, e.fixed_size[0],
                                e.fixed_size[1], e.fixed_size[2], "xyz"[d], d);
        }
        if (c.block[d] > limits.maxComputeWorkGroupSize[d]) {
            return common::fail(INFINI_STATUS_BAD_PARAM,
                                "block %ux%ux%u for kernel \"%s\" on vulkan:%d: dimension %c is over the device's "
                                "maxComputeWorkGroupSize %ux%ux%u",
                                c.block[0], c.block[1], c.block[2], e.name.c_str(), k.device, "xyz"[d],
                                limits.maxComputeWorkGroupSize[0], limits.maxComputeWorkGroupSize[1],
                                limits.maxComputeWorkGroupSize[2]);
        }
    }
    return common::fail(INFINI_STATUS_INTERNAL_ERROR, "launch of kernel \"%s\" on vulkan:%d refused for no reason",
                        e.name.c_str(), k.device);
}

// vkCmdDispatch of the grid; a grid over maxComputeWorkGroupCount in some dimension as several
// vkCmdDispatchBase parts, each within the limits (the pipelines allow a base: kernelPipeline).
void recordDispatch(VkCommandBuffer buffer, const uint32_t grid[3], const uint32_t limit[3]) {
    const NativeApi &vk = nativeApi();
    if (grid[0] <= limit[0] && grid[1] <= limit[1] && grid[2] <= limit[2]) {
        vk.vkCmdDispatch(buffer, grid[0], grid[1], grid[2]);
        return;
    }
    for (uint64_t z = 0; z < grid[2]; z += limit[2]) {
        const uint32_t nz = static_cast<uint32_t>(std::min<uint64_t>(limit[2], grid[2] - z));
        for (uint64_t y = 0; y < grid[1]; y += limit[1]) {
            const uint32_t ny = static_cast<uint32_t>(std::min<uint64_t>(limit[1], grid[1] - y));
            for (uint64_t x = 0; x < grid[0]; x += limit[0]) {
                const uint32_t nx = static_cast<uint32_t>(std::min<uint64_t>(limit[0], grid[0] - x));
                vk.vkCmdDispatchBase(buffer, static_cast<uint32_t>(x), static_cast<uint32_t>(y),
                                     static_cast<uint32_t>(z), nx, ny, nz);
            }
        }
    }
}

// Whether the config needs refuseConfig's look (all fields but the arguments' count, which the
// caller compares).
inline bool configRefused(const Kernel &k, const infinirtLaunchConfig_t &c) {
    const SpirvEntryPoint &e = *k.entry;
    const VkPhysicalDeviceLimits &limits = device(k.device).properties.limits;
    bool refused = (c.flags & INFINIRT_LAUNCH_COOPERATIVE) != 0 || (c.cluster[0] | c.cluster[1] | c.cluster[2]) != 0;
    for (int d = 0; d < 3; ++d) {
        refused = refused || (e.spec_id[d] < 0 && c.block[d] != e.fixed_size[d]) ||
                  c.block[d] > limits.maxComputeWorkGroupSize[d];
    }
    return refused;
}

// The device address a POINTER argument passes: device memory of this device as it is, pinned
// host memory (MallocHost) as its buffer's device address, memory of another vulkan device
// refused, anything else passed on (the loader has warned).
infiniStatus_t pointerAddress(const Kernel &k, uint32_t index, const infinirtKernelArg_t &arg, uint64_t *address) {
    const void *ptr = *static_cast<void *const *>(arg.value);
    *address = reinterpret_cast<uintptr_t>(ptr);
    if (ptr == nullptr) {
        return INFINI_STATUS_SUCCESS;
    }
    Located found;
    if (findDeviceMemory(ptr, &found)) {
        if (found.allocation.device != k.device) {
            char why[96];
            std::snprintf(why, sizeof why, "%p is memory of vulkan:%d, not of the kernel's device", ptr,
                          found.allocation.device);
            return badArgument(k, index, arg, why);
        }
        return INFINI_STATUS_SUCCESS;
    }
    if (findHostMemory(ptr, &found)) {
        if (found.allocation.device != k.device) {
            char why[112];
            std::snprintf(why, sizeof why, "%p is pinned host memory of vulkan:%d, not of the kernel's device", ptr,
                          found.allocation.device);
            return badArgument(k, index, arg, why);
        }
        VkBufferDeviceAddressInfo info{};
        info.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO;
        info.buffer = found.allocation.buffer;
        *address = nativeApi().vkGetBufferDeviceAddress(device(k.device).device, &info) + found.offset;
    }
    return INFINI_STATUS_SUCCESS;
}

// Lays the arguments out in `block` (zeroed, the argument block's size) and appends, for each
// LOCAL argument whose specialization constant the module declares, its index and bytes to `shape`.
infiniStatus_t layArguments(const Kernel &k, const infinirtKernelArg_t *args, uint32_t num_args, unsigned char *block,
                            uint32_t block_bytes, Shape *shape) {
    const SpirvEntryPoint &e = *k.entry;
    for (uint32_t i = 0; i < num_args; ++i) {
        const infinirtKernelArg_t &arg = args[i];
        const SpirvParam &p = e.params[i];
        switch (arg.kind) {
        case INFINIRT_KERNEL_ARG_POINTER: {
            if (!p.address) {
                return badArgument(k, i, arg, "a POINTER needs a buffer reference or a 64-bit integer parameter");
            }
            uint64_t address = 0;
            const infiniStatus_t status = pointerAddress(k, i, arg, &address);
            if (status != INFINI_STATUS_SUCCESS) {
                return status;
            }
            std::memcpy(block + p.offset, &address, 8);
            break;
        }
        case INFINIRT_KERNEL_ARG_LOCAL: {
            if (!p.integer) {
                return badArgument(k, i, arg, "a LOCAL argument's parameter is a 32- or 64-bit integer (its bytes)");
            }
            const uint64_t bytes = arg.size;
            const uint32_t narrow = static_cast<uint32_t>(bytes);
            std::memcpy(block + p.offset, p.size == 8 ? static_cast<const void *>(&bytes) : &narrow, p.size);
            if (k.local_spec[i] >= 0) { // the module declares specialization constant 100 + i
                if (shape->size + 2 > Shape::kMost) {
                    return badArgument(k, i, arg, "more LOCAL arguments sized by specialization constants than "
                                                  "infinirt passes (14)");
                }
                shape->push_back(i);
                shape->push_back(bytes);
            }
            break;
        }
        case INFINIRT_KERNEL_ARG_VALUE:
        default: {
            if (arg.size != p.size && arg.size != p.padded) {
                return badArgument(k, i, arg, "a VALUE must have the parameter's size");
            }
            const size_t n = std::min<size_t>(arg.size, block_bytes - p.offset);
            std::memcpy(block + p.offset, arg.value, n);
            break;
        }
        }
    }
    return INFINI_STATUS_SUCCESS;
}

} // namespace

// Checked here, beyond the loader's checks: COOPERATIVE and clusters are NOT_IMPLEMENTED; a block
// dimension the module fixes must be given as fixed, and each within maxComputeWorkGroupSize; a
// grid over maxComputeWorkGroupCount runs as several dispatches (recordDispatch); each argument must fit its parameter (VALUE: its size;
// POINTER: a buffer reference or 64-bit integer; LOCAL: a 32- or 64-bit integer, which gets its
// bytes, as does specialization constant 100 + index where the module declares it), else
// BAD_PARAM naming both. The
// pipeline of the shape (block, dynamic shared bytes, LOCAL sizes) is made on its first launch.
// Then, in one command: the arguments (push constants, or vkCmdUpdateBuffer into the stream's
// argument buffer and its address pushed), the pipeline bound (unless the batch bound it last),
// vkCmdDispatch(grid). A kernel whose code touches no memory beyond its invocations and workgroup
// (SpirvEntryPoint::touches_memory) is ordered against nothing else in its batch: no barrier.
infiniStatus_t launchKernel(int device, void *handle, const infinirtLaunchConfig_t *config,
                            const infinirtKernelArg_t *args, uint32_t num_args, void *stream_handle) {
    Kernel &k = *static_cast<Kernel *>(handle);
    const SpirvEntryPoint &e = *k.entry;
    const infinirtLaunchConfig_t &c = *config;
    if (__builtin_expect(configRefused(k, c) || num_args != e.params.size(), 0)) {
        return refuseConfig(k, c, num_args);
    }
    Stream *stream = nullptr;
    infiniStatus_t status = resolveStream(device, stream_handle, &stream);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    Shape shape;
    for (int d = 0; d < 3; ++d) {
        if (e.spec_id[d] >= 0) {
            shape.push_back(c.block[d]);
        }
    }
    if (k.dynamic_spec >= 0) {
        shape.push_back(c.dynamic_shared_bytes);
    }
    // The argument block: the push constants themselves, or the indirect block.
    const uint32_t block_bytes = e.indirect ? e.arguments_bytes : e.push_bytes;
    unsigned char small[256];
    std::vector<unsigned char> large;
    unsigned char *block = small;
    if (block_bytes > sizeof small) {
        large.resize(block_bytes);
        block = large.data();
    }
    std::memset(block, 0, std::min<size_t>(block_bytes, sizeof small));
    status = layArguments(k, args, num_args, block, block_bytes, &shape);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    VkPipeline pipeline = VK_NULL_HANDLE;
    {
        std::lock_guard<std::mutex> lock(k.mutex);
        status = kernelPipeline(k, shape, &pipeline);
    }
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    VkBuffer arguments = VK_NULL_HANDLE;
    unsigned char push[16] = {};
    if (e.indirect) {
        VkDeviceAddress address = 0;
        status = argumentBuffer(*stream, &arguments, &address);
        if (status != INFINI_STATUS_SUCCESS) {
            return status;
        }
        std::memcpy(push, &address, sizeof address);
    }
    const NativeApi &vk = nativeApi();
    const VkPhysicalDeviceLimits &limits = stream->dev->properties.limits;
    Access access;
    access.everything = e.touches_memory; // a kernel may read and write any memory its code names
    Stream &s = *stream;
    return enqueueWith(
        s,
        [&](VkCommandBuffer buffer) {
            if (e.indirect) {
                vk.vkCmdUpdateBuffer(buffer, arguments, 0, block_bytes, block);
                VkMemoryBarrier barrier{};
                barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
                barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
                barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
                vk.vkCmdPipelineBarrier(buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                                        1, &barrier, 0, nullptr, 0, nullptr);
            }
            bindPipeline(s, buffer, pipeline);
            if (e.indirect) {
                vk.vkCmdPushConstants(buffer, k.layout, VK_SHADER_STAGE_COMPUTE_BIT, e.address_offset, 8, push);
            } else if (e.push_bytes > 0) {
                vk.vkCmdPushConstants(buffer, k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, e.push_bytes, block);
            }
            recordDispatch(buffer, c.grid, limits.maxComputeWorkGroupCount);
        },
        access, "launching a kernel");
}

} // namespace infinirt::vulkan

INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::vulkan::launchKernel);
