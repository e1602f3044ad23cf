// anchor_vulkan.cpp - the vulkan backend's anchor: a native Vulkan program in the same process,
// with a VkInstance and VkDevice of its own on the same physical device (found by its UUID: the
// plugin hands out no Vulkan objects), its own buffers of the same sizes (a device-local one, a
// second for device-to-device copies, and a host-visible coherent one standing for pinned memory)
// and one queue of the compute family. Each copy is one command buffer recorded, submitted alone
// and waited for (vkCmdCopyBuffer; a host-to-host copy is memcpy); an event record is a submission
// writing a timestamp and signalling a timeline semaphore, its query the semaphore's counter; a
// stream synchronize waits for the semaphore. No launch anchor yet: infinirt-bench prints the empty
// kernel's launch through infinirt alone (the native dispatch of the same SPIR-V is measured by
// bench/vulkan/vulkan_kernel_bench.cpp).
#include "bench_anchor.h"

#ifdef INFINIRT_BENCH_WITH_VULKAN
#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include "vulkan_native.h"

#include <cstring>
#endif

namespace infinirt_bench_tool {

#ifndef INFINIRT_BENCH_WITH_VULKAN

Anchor vulkanAnchor(const Target &) { return noAnchor("infinirt-bench was built without the vulkan backend"); }

#else

Anchor vulkanAnchor(const Target &target) {
    using infinirt_bench::Native;
    static Native *native = new Native; // lives until the process exits
    const std::string why = infinirt_bench::buildNative(*native, target.type, target.id);
    if (!why.empty()) {
        return noAnchor("the native Vulkan program: " + why);
    }
    Native &n = *native;
    Anchor a;
    a.name = "Vulkan";
    a.describe = "a native Vulkan program (its own VkDevice on the same GPU, found by UUID): vkCmdCopyBuffer between "
                 "its own device-local and host-visible coherent buffers, one command buffer submitted alone and "
                 "waited for per copy (memcpy for H2H); vkCmdWriteTimestamp + a timeline semaphore signal, "
                 "vkGetSemaphoreCounterValue and vkWaitSemaphores for the events and stream synchronize";
    a.copy = [&n](void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind) {
        switch (kind) {
        case INFINIRT_MEMCPY_H2D:
            if (n.ensure(n.host, size, n.host_type) && n.ensure(n.device_a, size, n.device_type)) {
                n.copy(n.device_a, n.host, size);
            }
            break;
        case INFINIRT_MEMCPY_D2H:
            if (n.ensure(n.host, size, n.host_type) && n.ensure(n.device_a, size, n.device_type)) {
                n.copy(n.host, n.device_a, size);
            }
            break;
        case INFINIRT_MEMCPY_D2D:
            if (n.ensure(n.device_a, size, n.device_type) && n.ensure(n.device_b, size, n.device_type)) {
                n.copy(n.device_b, n.device_a, size);
            }
            break;
        default: std::memcpy(dst, src, size); break;
        }
    };
    a.event_record = [&n] {
        n.submit([&](VkCommandBuffer b) {
            n.vk.vkCmdResetQueryPool(b, n.queries, 0, 1);
            n.vk.vkCmdWriteTimestamp(b, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, n.queries, 0);
        });
    };
    a.event_query = [&n] {
        uint64_t done = 0;
        n.vk.vkGetSemaphoreCounterValue(n.device, n.timeline, &done);
    };
    a.stream_sync = [&n] { n.wait(); };
    a.drain = a.stream_sync;
    return a;
}

#endif

} // namespace infinirt_bench_tool
