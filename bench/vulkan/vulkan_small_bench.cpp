// vulkan_small_bench.cpp - issue 45's small work on a vulkan device: each figure through infinirt
// beside a native Vulkan program (vulkan_native.h: its own VkDevice on the same physical device)
// doing the same work in the same run, in ABBA rounds (kernel_bench.h):
//   - a 64-byte device-to-device copy, then a synchronize; native: one command buffer holding the
//     vkCmdCopyBuffer, submitted alone and waited for. Limit: ours <= 1.2 x native;
//   - a 64-byte fill, likewise (vkCmdFillBuffer);
//   - an event record, then its query until complete; native: a timestamp write submitted alone,
//     then the semaphore's counter read until reached;
//   - 1,000 64-byte copies (and 1,000 fills) enqueued, then one synchronize; native: one command
//     buffer holding all 1,000, submitted and waited for. Limit: ours <= 1.2 x native;
//   - 1,000 64-byte fills of 1,000 different places (information: a batch of different targets);
//   - the host's part of the 1,000 fills (information): enqueueing them, beside the native program
//     recording and submitting its command buffer of 1,000 (best of 5 each, the wait untimed).
// Prints PASS/FAIL per limit and exits 0 whatever the figures (1 only when a call fails).
// --quick: one short round (the smoke check); --device=N: vulkan:N (default 0).
#include "kernel_bench.h"
#include "vulkan_native.h"

#include <cstdio>
#include <string>
#include <vector>

using namespace infinirt_bench;

int main(int argc, char **argv) {
    const bool quick = quickMode(argc, argv);
    const int id = intOption(argc, argv, "--device", 0);
    int count = 0;
    if (!check(infinirtGetDeviceCount(INFINI_DEVICE_VULKAN, &count), "infinirtGetDeviceCount") || count <= id) {
        std::printf("no vulkan:%d device (%d found): nothing to measure\n", id, count);
        return g_failed ? 1 : 0;
    }
    Native native;
    const std::string why = buildNative(native, INFINI_DEVICE_VULKAN, id);
    if (!why.empty()) {
        std::fprintf(stderr, "the native Vulkan program: %s\n", why.c_str());
        return 1;
    }
    constexpr size_t kSmall = 64;
    constexpr int kMany = 1000;
    if (!native.ensure(native.device_a, kSmall, native.device_type) ||
        !native.ensure(native.device_b, kSmall * kMany, native.device_type)) {
        std::fprintf(stderr, "the native Vulkan program cannot allocate its buffers\n");
        return 1;
    }
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof props;
    check(infinirtGetDeviceProperties(INFINI_DEVICE_VULKAN, id, &props), "infinirtGetDeviceProperties");
    check(infinirtSetDevice(INFINI_DEVICE_VULKAN, id), "infinirtSetDevice");
    void *a = nullptr, *b = nullptr, *spread = nullptr;
    infinirtStream_t stream = nullptr;
    infinirtEvent_t event = nullptr;
    check(infinirtMalloc(&a, kSmall), "infinirtMalloc");
    check(infinirtMalloc(&b, kSmall), "infinirtMalloc");
    check(infinirtMalloc(&spread, kSmall * kMany), "infinirtMalloc");
    check(infinirtStreamCreate(&stream), "infinirtStreamCreate");
    check(infinirtEventCreate(&event), "infinirtEventCreate");
    if (g_failed) {
        return 1;
    }
    const int rounds = quick ? 1 : 5;
    const int iters = quick ? 10 : 200;
    const int many_iters = quick ? 1 : 10;
    auto nothing = [] {};
    auto nativeCopy = [&](VkCommandBuffer cb) {
        const VkBufferCopy region{0, 0, kSmall};
        native.vk.vkCmdCopyBuffer(cb, native.device_a.buffer, native.device_b.buffer, 1, &region);
    };
    auto nativeFill = [&](VkCommandBuffer cb) { native.vk.vkCmdFillBuffer(cb, native.device_b.buffer, 0, kSmall, 0x5a5a5a5au); };
    std::vector<Row> rows;
    rows.push_back(ratioAtMost(
        "copy of 64 B d2d + synchronize",
        paired(
            rounds, iters,
            [&] {
                infinirtMemcpyAsync(b, a, kSmall, INFINIRT_MEMCPY_D2D, stream);
                infinirtStreamSynchronize(stream);
            },
            [&] {
                native.submit(nativeCopy);
                native.wait();
            },
            nothing),
        1.2));
    rows.push_back(ratioAtMost(
        "fill of 64 B + synchronize",
        paired(
            rounds, iters,
            [&] {
                infinirtMemsetAsync(b, 0x5a, kSmall, stream);
                infinirtStreamSynchronize(stream);
            },
            [&] {
                native.submit(nativeFill);
                native.wait();
            },
            nothing),
        1.2));
    rows.push_back(ratioAtMost(
        "event record + query until complete",
        paired(
            rounds, iters,
            [&] {
                infinirtEventRecord(event, stream);
                infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
                while (infinirtEventQuery(event, &status) == INFINI_STATUS_SUCCESS && status != INFINIRT_EVENT_COMPLETE) {
                }
            },
            [&] {
                native.submit([&](VkCommandBuffer cb) {
                    native.vk.vkCmdResetQueryPool(cb, native.queries, 0, 1);
                    native.vk.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, native.queries, 0);
                });
                uint64_t done = 0;
                while (native.vk.vkGetSemaphoreCounterValue(native.device, native.timeline, &done) == VK_SUCCESS &&
                       done < native.value) {
                }
            },
            nothing),
        1.2));
    rows.push_back(ratioAtMost(
        "copies: 1000 x 64 B d2d, then synchronize",
        paired(
            rounds, many_iters,
            [&] {
                for (int i = 0; i < kMany; ++i) {
                    infinirtMemcpyAsync(b, a, kSmall, INFINIRT_MEMCPY_D2D, stream);
                }
                infinirtStreamSynchronize(stream);
            },
            [&] {
                native.submit([&](VkCommandBuffer cb) {
                    for (int i = 0; i < kMany; ++i) {
                        nativeCopy(cb);
                    }
                });
                native.wait();
            },
            nothing),
        1.2));
    // 1,000 fills enqueued; natively, one command buffer of 1,000 recorded and submitted.
    auto enqueueFills = [&] {
        for (int i = 0; i < kMany; ++i) {
            infinirtMemsetAsync(b, 0x5a, kSmall, stream);
        }
    };
    auto submitNativeFills = [&] {
        native.submit([&](VkCommandBuffer cb) {
            for (int i = 0; i < kMany; ++i) {
                nativeFill(cb);
            }
        });
    };
    auto synchronize = [&] { infinirtStreamSynchronize(stream); };
    auto nativeWait = [&] { native.wait(); };
    rows.push_back(ratioAtMost(
        "fills: 1000 x 64 B, then synchronize",
        paired(
            rounds, many_iters,
            [&] {
                enqueueFills();
                synchronize();
            },
            [&] {
                submitNativeFills();
                nativeWait();
            },
            nothing),
        1.2));
    rows.push_back(info(
        "fills: 1000 x 64 B, different places, then sync", "ns",
        paired(
            rounds, many_iters,
            [&] {
                for (int i = 0; i < kMany; ++i) {
                    infinirtMemsetAsync(static_cast<char *>(spread) + i * kSmall, 0x5a, kSmall, stream);
                }
                synchronize();
            },
            [&] {
                native.submit([&](VkCommandBuffer cb) {
                    for (int i = 0; i < kMany; ++i) {
                        native.vk.vkCmdFillBuffer(cb, native.device_b.buffer, i * kSmall, kSmall, 0x5a5a5a5au);
                    }
                });
                nativeWait();
            },
            nothing)));
    const int host_runs = quick ? 1 : 5;
    rows.push_back(info("fills: 1000 x 64 B, host time to enqueue (native: record + submit)", "ns",
                        unpaired(bestOf(host_runs, enqueueFills, synchronize),
                                 bestOf(host_runs, submitNativeFills, nativeWait))));
    printTable(format("vulkan:%d (%s, %s): small work, infinirt against a native Vulkan program (ns per iteration)",
                      id, props.name, props.platform),
               "a native Vulkan program on the same device (its own VkDevice): one command buffer per submission",
               rows);
    check(infinirtEventDestroy(event), "infinirtEventDestroy");
    check(infinirtStreamDestroy(stream), "infinirtStreamDestroy");
    check(infinirtFree(a), "infinirtFree");
    check(infinirtFree(b), "infinirtFree");
    check(infinirtFree(spread), "infinirtFree");
    return g_failed ? 1 : 0;
}
