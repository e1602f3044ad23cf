// vulkan_kernel_bench.cpp - issue 46's kernel figures on a vulkan device: each through
// infinirtLaunchKernel beside a native Vulkan program (vulkan_native.h: its own VkDevice on the
// same physical device) dispatching the same SPIR-V (kernels built from examples/saxpy/saxpy.comp
// and tools/bench/empty.comp) in the same run, in ABBA rounds:
//   - saxpy over 256 MiB of floats (x and y, 64 Mi each), launch then synchronize; native: one
//     command buffer binding the pipeline, pushing the same arguments and dispatching, submitted
//     and waited for. Limit: our bandwidth >= 0.95 x native's;
//   - an empty kernel's launch then synchronize; native: its dispatch submitted alone and waited
//     for. Limit: ours <= 1.1 x native;
//   - 1,000 empty launches then one synchronize; native: one command buffer holding 1,000
//     dispatches. Limit: ours <= 1.2 x native. The empty kernel touches no memory, so the stream
//     orders nothing around it and the native buffer has no barriers either;
//   - 1,000 one-block saxpy launches then one synchronize (information): kernels that touch memory,
//     which a stream keeps in order, beside a native buffer with a barrier between each two;
//   - the host's part of the 1,000 launches (enqueueing them, best of 5; information);
//   - the first launch of a new block size (its pipeline's creation) beside a launch of a block
//     size already used (information).
// Prints PASS/FAIL per limit and exits 0 whatever the figures (1 only when a call fails).
// --quick: small sizes, one short round (the smoke check); --device=N: vulkan:N (default 0).
#include "kernel_bench.h"
#include "vulkan_native.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#ifndef INFINIRT_BENCH_VULKAN_KERNELS
#error "INFINIRT_BENCH_VULKAN_KERNELS (the bench's Vulkan SPIR-V module) must be defined"
#endif

using namespace infinirt_bench;

namespace {

// The native program's compute pipeline of entry point `name` (block size x 1 x 1 through
// specialization constant 0), with `push_bytes` of push constants.
struct NativePipeline {
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
};

bool nativePipeline(Native &n, VkShaderModule module, const char *name, uint32_t block, uint32_t push_bytes,
                    NativePipeline *out) {
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
    VkPipelineLayoutCreateInfo layout{};
    layout.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    layout.pushConstantRangeCount = push_bytes ? 1 : 0;
    layout.pPushConstantRanges = &range;
    if (n.vk.vkCreatePipelineLayout(n.device, &layout, nullptr, &out->layout) != VK_SUCCESS) {
        return false;
    }
    const VkSpecializationMapEntry entry{0, 0, 4};
    VkSpecializationInfo spec{1, &entry, 4, &block};
    VkComputePipelineCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    info.flags = VK_PIPELINE_CREATE_DISPATCH_BASE_BIT;
    info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module;
    info.stage.pName = name;
    info.stage.pSpecializationInfo = &spec;
    info.layout = out->layout;
    return n.vk.vkCreateComputePipelines(n.device, VK_NULL_HANDLE, 1, &info, nullptr, &out->pipeline) == VK_SUCCESS;
}

// A grid of `groups` in x, in parts of at most `limit` groups (as the plugin does past the limit).
void nativeDispatch(Native &n, VkCommandBuffer cb, uint32_t groups, uint32_t limit) {
    for (uint32_t x = 0; x < groups; x += limit) {
        const uint32_t count = std::min(limit, groups - x);
        if (x == 0 && count == groups) {
            n.vk.vkCmdDispatch(cb, groups, 1, 1);
        } else {
            n.vk.vkCmdDispatchBase(cb, x, 0, 0, count, 1, 1);
        }
    }
}

struct SaxpyArguments {
    uint64_t y, x;
    float a;
    uint32_t n;
};

} // namespace

int main(int argc, char **argv) {
    const bool quick = quickMode(argc, argv);
    const int id = intOption(argc, argv, "--device", 0);
    int count = 0;
    if (!check(infinirtGetDeviceCount(INFINI_DEVICE_VULKAN, &count), "infinirtGetDeviceCount") || count <= id) {
        std::printf("no vulkan:%d device (%d found): nothing to measure\n", id, count);
        return g_failed ? 1 : 0;
    }
    std::ifstream in(INFINIRT_BENCH_VULKAN_KERNELS, std::ios::binary);
    const std::vector<char> spirv((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (spirv.empty()) {
        std::fprintf(stderr, "cannot read the bench's kernels (%s)\n", INFINIRT_BENCH_VULKAN_KERNELS);
        return 1;
    }
    Native native;
    const std::string why = buildNative(native, INFINI_DEVICE_VULKAN, id);
    if (!why.empty()) {
        std::fprintf(stderr, "the native Vulkan program: %s\n", why.c_str());
        return 1;
    }
    const uint32_t n = quick ? (1u << 20) : (64u << 20); // floats: 4 MiB or 256 MiB per array
    const size_t bytes = size_t{n} * sizeof(float);
    constexpr uint32_t kBlock = 256;
    const uint32_t groups = (n + kBlock - 1) / kBlock;
    if (!native.ensure(native.device_a, bytes, native.device_type) ||
        !native.ensure(native.device_b, bytes, native.device_type)) {
        std::fprintf(stderr, "the native Vulkan program cannot allocate 2 x %zu bytes\n", bytes);
        return 1;
    }
    VkShaderModuleCreateInfo module_info{};
    module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    module_info.codeSize = spirv.size();
    std::vector<uint32_t> words(spirv.size() / 4);
    std::memcpy(words.data(), spirv.data(), spirv.size());
    module_info.pCode = words.data();
    VkShaderModule shader = VK_NULL_HANDLE;
    NativePipeline native_saxpy, native_empty;
    if (native.vk.vkCreateShaderModule(native.device, &module_info, nullptr, &shader) != VK_SUCCESS ||
        !nativePipeline(native, shader, "saxpy", kBlock, sizeof(SaxpyArguments), &native_saxpy) ||
        !nativePipeline(native, shader, "empty", 64, 8, &native_empty)) {
        std::fprintf(stderr, "the native Vulkan program cannot create its pipelines\n");
        return 1;
    }

    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof props;
    check(infinirtGetDeviceProperties(INFINI_DEVICE_VULKAN, id, &props), "infinirtGetDeviceProperties");
    check(infinirtSetDevice(INFINI_DEVICE_VULKAN, id), "infinirtSetDevice");
    infinirtModuleImage_t image{};
    image.struct_size = sizeof image;
    image.format = INFINIRT_MODULE_FORMAT_SPIRV;
    image.data = spirv.data();
    image.size = spirv.size();
    infinirtModule_t module = nullptr;
    infinirtKernel_t saxpy = nullptr, empty = nullptr;
    void *x = nullptr, *y = nullptr;
    infinirtStream_t stream = nullptr;
    check(infinirtModuleLoad(&module, INFINI_DEVICE_VULKAN, id, &image, 1, nullptr, 0), "infinirtModuleLoad");
    check(infinirtModuleGetKernel(&saxpy, module, "saxpy"), "infinirtModuleGetKernel(saxpy)");
    check(infinirtModuleGetKernel(&empty, module, "empty"), "infinirtModuleGetKernel(empty)");
    check(infinirtMalloc(&x, bytes), "infinirtMalloc");
    check(infinirtMalloc(&y, bytes), "infinirtMalloc");
    check(infinirtMemset(x, 0, bytes), "infinirtMemset");
    check(infinirtMemset(y, 0, bytes), "infinirtMemset");
    check(infinirtStreamCreate(&stream), "infinirtStreamCreate");
    if (g_failed) {
        return 1;
    }
    const float a = 2.0f;
    const infinirtKernelArg_t saxpy_args[] = {{INFINIRT_KERNEL_ARG_POINTER, sizeof(void *), &y},
                                              {INFINIRT_KERNEL_ARG_POINTER, sizeof(void *), &x},
                                              {INFINIRT_KERNEL_ARG_VALUE, sizeof a, &a},
                                              {INFINIRT_KERNEL_ARG_VALUE, sizeof n, &n}};
    infinirtLaunchConfig_t saxpy_config{};
    saxpy_config.struct_size = sizeof saxpy_config;
    saxpy_config.grid[0] = groups;
    saxpy_config.grid[1] = saxpy_config.grid[2] = 1;
    saxpy_config.block[0] = kBlock;
    saxpy_config.block[1] = saxpy_config.block[2] = 1;
    infinirtLaunchConfig_t empty_config = saxpy_config;
    empty_config.grid[0] = 1;
    empty_config.block[0] = 64;
    const SaxpyArguments native_args{native.device_b.address, native.device_a.address, a, n};
    const uint32_t limit = props.max_grid_dim[0] > 0 ? static_cast<uint32_t>(props.max_grid_dim[0]) : 65535;

    const int rounds = quick ? 1 : 5;
    auto nothing = [] {};
    std::vector<Row> rows;
    const Pair saxpy_time = paired(
        rounds, quick ? 2 : 10,
        [&] {
            infinirtLaunchKernel(saxpy, &saxpy_config, saxpy_args, 4, stream);
            infinirtStreamSynchronize(stream);
        },
        [&] {
            native.submit([&](VkCommandBuffer cb) {
                native.vk.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, native_saxpy.pipeline);
                native.vk.vkCmdPushConstants(cb, native_saxpy.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                             sizeof native_args, &native_args);
                nativeDispatch(native, cb, groups, limit);
            });
            native.wait();
        },
        nothing);
    // As bandwidth (x read, y read and written): GB/s = 3 x bytes / ns.
    const double moved = 3.0 * static_cast<double>(bytes);
    rows.push_back(ratioAtLeast(format("saxpy over 2 x %zu MiB: bandwidth", bytes >> 20), "GB/s",
                                Pair{moved / saxpy_time.ours, moved / saxpy_time.anchor, 0.0}, 0.95));
    rows.push_back(ratioAtMost(
        "empty kernel: launch + synchronize",
        paired(
            rounds, quick ? 10 : 200,
            [&] {
                infinirtLaunchKernel(empty, &empty_config, nullptr, 0, stream);
                infinirtStreamSynchronize(stream);
            },
            [&] {
                native.submit([&](VkCommandBuffer cb) {
                    native.vk.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, native_empty.pipeline);
                    native.vk.vkCmdDispatch(cb, 1, 1, 1);
                });
                native.wait();
            },
            nothing),
        1.1));
    constexpr int kMany = 1000;
    auto manyLaunches = [&] {
        for (int i = 0; i < kMany; ++i) {
            infinirtLaunchKernel(empty, &empty_config, nullptr, 0, stream);
        }
        infinirtStreamSynchronize(stream);
    };
    // The native side: one command buffer of 1,000 dispatches of `pipeline` (`args`: its push
    // constants, when set), with a compute-to-compute barrier between each two when `ordered` (the
    // order a stream keeps between kernels that touch memory), submitted and waited for.
    auto nativeMany = [&](const NativePipeline &pipeline, const SaxpyArguments *args, bool ordered) {
        native.submit([&](VkCommandBuffer cb) {
            native.vk.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline);
            VkMemoryBarrier barrier{};
            barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
            barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
            barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
            for (int i = 0; i < kMany; ++i) {
                if (ordered && i > 0) {
                    native.vk.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0, nullptr, 0,
                                                   nullptr);
                }
                if (args != nullptr) {
                    native.vk.vkCmdPushConstants(cb, pipeline.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof *args,
                                                 args);
                }
                native.vk.vkCmdDispatch(cb, 1, 1, 1);
            }
        });
        native.wait();
    };
    // The empty kernel touches no memory: a stream orders nothing around it, as the native buffer.
    rows.push_back(ratioAtMost("1000 empty launches, then synchronize",
                               paired(rounds, quick ? 1 : 10, manyLaunches, [&] { nativeMany(native_empty, nullptr, false); }, nothing),
                               1.2));
    // Kernels that touch memory are ordered: 1,000 saxpy launches of one block (256 floats) each,
    // against the native command buffer with a barrier between each two.
    infinirtLaunchConfig_t small_config = saxpy_config;
    small_config.grid[0] = 1;
    const int small_n = static_cast<int>(kBlock);
    const infinirtKernelArg_t small_args[] = {saxpy_args[0], saxpy_args[1], saxpy_args[2],
                                              {INFINIRT_KERNEL_ARG_VALUE, sizeof small_n, &small_n}};
    const SaxpyArguments native_small{native.device_b.address, native.device_a.address, a, small_n};
    rows.push_back(info("1000 one-block saxpy launches (ordered) vs native with barriers", "ns",
                        paired(
                            rounds, quick ? 1 : 10,
                            [&] {
                                for (int i = 0; i < kMany; ++i) {
                                    infinirtLaunchKernel(saxpy, &small_config, small_args, 4, stream);
                                }
                                infinirtStreamSynchronize(stream);
                            },
                            [&] { nativeMany(native_saxpy, &native_small, true); }, nothing)));
    // The host's part of the 1,000 launches: the time to enqueue them (then synchronized, untimed).
    const double enqueue_ns = bestOf(
        quick ? 1 : 5,
        [&] {
            for (int i = 0; i < kMany; ++i) {
                infinirtLaunchKernel(empty, &empty_config, nullptr, 0, stream);
            }
        },
        [&] { infinirtStreamSynchronize(stream); });
    rows.push_back(info("1000 empty launches: enqueue only (best)", "ns", unpaired(enqueue_ns, 0)));
    // The first launch of a new shape creates its pipeline: block sizes 1..32 not used above.
    double first = 0, again = 0;
    const int shapes = quick ? 2 : 16;
    for (int i = 0; i < shapes; ++i) {
        infinirtLaunchConfig_t c = empty_config;
        c.block[0] = 1 + static_cast<uint32_t>(i);
        for (int pass = 0; pass < 2; ++pass) {
            const auto t0 = std::chrono::steady_clock::now();
            infinirtLaunchKernel(empty, &c, nullptr, 0, stream);
            infinirtStreamSynchronize(stream);
            const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
            (pass == 0 ? first : again) += ns / shapes;
        }
    }
    rows.push_back(info("first launch of a new block size (pipeline made) vs again", "ns", unpaired(first, again)));
    printTable(format("vulkan:%d (%s, %s): kernels, infinirt against a native Vulkan program", id, props.name,
                      props.platform),
               "a native Vulkan program on the same device (its own VkDevice) dispatching the same SPIR-V",
               rows);
    check(infinirtStreamDestroy(stream), "infinirtStreamDestroy");
    check(infinirtFree(x), "infinirtFree");
    check(infinirtFree(y), "infinirtFree");
    check(infinirtModuleUnload(module), "infinirtModuleUnload");
    return g_failed ? 1 : 0;
}
