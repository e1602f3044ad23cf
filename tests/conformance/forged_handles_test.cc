// Forged handle values: a live handle's kind with a generation no live handle can have (0, or any
// even value) and any slot of a chunk in use. Every entry that takes that kind answers
// INVALID_HANDLE, touches nothing, and the process survives.
#include "kernel_images.h"
#include "resources.h"

#include <cstdint>
#include <functional>
#include <sstream>
#include <string>

namespace infinirt_test {
namespace {

constexpr uint32_t kChunkSlots = 4096;

// Every forged value of `live`'s kind over the chunk that holds `live`'s slot: generations 0, 2,
// and the even neighbours of `live`'s own. Each is passed to every call of `calls`, which must
// answer INVALID_HANDLE; the first value an entry accepts is reported with its status.
void ExpectForgedRefused(void *live, const std::vector<std::pair<const char *, std::function<infiniStatus_t(void *)>>> &calls) {
    const uint64_t v = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(live));
    // (generation << 30) | (index << 6) | tag, as infinirt/handles.h makes them.
    const uint64_t tag = v & 0x3f;
    const uint64_t gen = v >> 30;
    const uint32_t idx = static_cast<uint32_t>(v >> 6) & 0xffffffu;
    ASSERT_NE(idx, 0u) << "not a loader handle: " << live;
    ASSERT_EQ(gen & 1u, 1u) << "a live handle has an odd generation: " << live;
    const uint32_t first = (idx / kChunkSlots) * kChunkSlots; // slot 0 of chunk 0 is never handed out
    const uint64_t gens[] = {0u, 2u, gen - 1, gen + 1};
    for (const auto &call : calls) {
        size_t accepted = 0;
        std::ostringstream first_accepted;
        for (uint32_t slot = first; slot < first + kChunkSlots; ++slot) {
            for (uint64_t g : gens) {
                void *forged = reinterpret_cast<void *>(static_cast<uintptr_t>((g << 30) | (uint64_t{slot} << 6) | tag));
                const infiniStatus_t st = call.second(forged);
                if (st != INFINI_STATUS_INVALID_HANDLE) {
                    if (accepted++ == 0) {
                        first_accepted << forged << " answered " << st << " (" << infinirtGetErrorName(st) << ")";
                    }
                } else if (std::string(infinirtGetLastErrorMessage()).empty()) {
                    ADD_FAILURE() << call.first << ": refused " << forged << " without a message";
                    return;
                }
            }
        }
        EXPECT_EQ(accepted, 0u) << call.first << " accepted forged values; the first: " << first_accepted.str();
    }
}

class ForgedHandles : public DeviceTest {};

TEST_P(ForgedHandles, StreamsAndEvents) {
    REQUIRE_FEATURES(Feature::kMemory, Feature::kStreams, Feature::kEvents);
    ScopedStream stream;
    ASSERT_OK(stream.Create());
    ScopedEvent event;
    ASSERT_OK(event.Create());
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(64));
    void *native = nullptr;
    infinirtGraph_t graph = nullptr;
    infinirtEventStatus_t status;
    float ms = 0;
    void *p = nullptr;
    char host[64] = {};
    ExpectForgedRefused(stream, {
        {"StreamSynchronize", [](void *h) { return infinirtStreamSynchronize(h); }},
        {"StreamQuery", [](void *h) { return infinirtStreamQuery(h); }},
        {"StreamDestroy", [](void *h) { return infinirtStreamDestroy(h); }},
        {"StreamWaitEvent", [&](void *h) { return infinirtStreamWaitEvent(h, event); }},
        {"StreamGetNativeHandle", [&](void *h) { return infinirtStreamGetNativeHandle(h, &native); }},
        {"StreamBeginCapture", [](void *h) { return infinirtStreamBeginCapture(h, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL); }},
        {"StreamEndCapture", [&](void *h) { return infinirtStreamEndCapture(h, &graph); }},
        {"EventRecord(stream)", [&](void *h) { return infinirtEventRecord(event, h); }},
        {"MemcpyAsync", [&](void *h) { return infinirtMemcpyAsync(d, host, sizeof host, INFINIRT_MEMCPY_H2D, h); }},
        {"MemsetAsync", [&](void *h) { return infinirtMemsetAsync(d, 0, 64, h); }},
        {"MallocAsync", [&](void *h) { return infinirtMallocAsync(&p, 64, h); }},
        {"FreeAsync", [](void *h) { return infinirtFreeAsync(nullptr, h); }},
    });
    ExpectForgedRefused(event, {
        {"EventRecord", [&](void *h) { return infinirtEventRecord(h, stream); }},
        {"EventQuery", [&](void *h) { return infinirtEventQuery(h, &status); }},
        {"EventSynchronize", [](void *h) { return infinirtEventSynchronize(h); }},
        {"EventDestroy", [](void *h) { return infinirtEventDestroy(h); }},
        {"EventElapsedTime(start)", [&](void *h) { return infinirtEventElapsedTime(&ms, h, event); }},
        {"EventElapsedTime(end)", [&](void *h) { return infinirtEventElapsedTime(&ms, event, h); }},
        {"EventGetNativeHandle", [&](void *h) { return infinirtEventGetNativeHandle(h, &native); }},
        {"StreamWaitEvent(event)", [&](void *h) { return infinirtStreamWaitEvent(stream, h); }},
    });
    EXPECT_EQ(graph, nullptr);
    EXPECT_EQ(p, nullptr);
    // The live handles still work.
    EXPECT_OK(infinirtMemsetAsync(d, 1, 64, stream));
    EXPECT_OK(infinirtEventRecord(event, stream));
    EXPECT_OK(infinirtEventSynchronize(event));
    EXPECT_OK(infinirtStreamSynchronize(stream));
}

TEST_P(ForgedHandles, GraphsAndExecs) {
    REQUIRE_FEATURES(Feature::kMemory, Feature::kStreams, Feature::kStreamCapture);
    ScopedStream s;
    ASSERT_OK(s.Create());
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(64));
    ScopedGraph graph;
    ScopedGraphExec exec;
    ASSERT_OK(CaptureMemsetGraph(s, d, 64, graph, exec));
    infinirtGraphExec_t other = nullptr;
    ExpectForgedRefused(graph, {
        {"GraphInstantiate", [&](void *h) { return infinirtGraphInstantiate(&other, h, nullptr, nullptr, 0); }},
        {"GraphDestroy", [](void *h) { return infinirtGraphDestroy(h); }},
    });
    ExpectForgedRefused(exec, {
        {"GraphLaunch", [&](void *h) { return infinirtGraphLaunch(h, s); }},
        {"GraphLuanch", [&](void *h) { return infinirtGraphLuanch(h, s); }},
        {"GraphExecDestroy", [](void *h) { return infinirtGraphExecDestroy(h); }},
    });
    EXPECT_EQ(other, nullptr);
    EXPECT_OK(infinirtGraphLaunch(exec, s));
    EXPECT_OK(infinirtStreamSynchronize(s));
}

// A live handle's slot and generation under another kind's tag: the slot was made for one kind,
// and no other kind's entry accepts it.
TEST_P(ForgedHandles, LiveSlotsUnderAnotherKindsTag) {
    REQUIRE_FEATURES(Feature::kStreams, Feature::kEvents);
    ScopedStream stream;
    ASSERT_OK(stream.Create());
    ScopedEvent event;
    ASSERT_OK(event.Create());
    const auto retag = [](void *h, void *kind_of) {
        const uint64_t mask = uint64_t{0xff} << 56;
        const uint64_t v = (static_cast<uint64_t>(reinterpret_cast<uintptr_t>(h)) & ~mask) |
                           (static_cast<uint64_t>(reinterpret_cast<uintptr_t>(kind_of)) & mask);
        return reinterpret_cast<void *>(static_cast<uintptr_t>(v));
    };
    void *stream_as_event = retag(stream, event);
    void *event_as_stream = retag(event, stream);
    infinirtEventStatus_t status;
    void *native = nullptr;
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventQuery(stream_as_event, &status));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventSynchronize(stream_as_event));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventRecord(stream_as_event, stream));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventGetNativeHandle(stream_as_event, &native));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventDestroy(stream_as_event));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamQuery(event_as_stream));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamSynchronize(event_as_stream));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamGetNativeHandle(event_as_stream, &native));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamDestroy(event_as_stream));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphDestroy(retag(stream, reinterpret_cast<void *>(uintptr_t{0xA3} << 56))));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphExecDestroy(retag(event, reinterpret_cast<void *>(uintptr_t{0xA4} << 56))));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtModuleUnload(retag(stream, reinterpret_cast<void *>(uintptr_t{0xA5} << 56))));
    EXPECT_EQ(native, nullptr);
    EXPECT_OK(infinirtEventRecord(event, stream));
    EXPECT_OK(infinirtEventSynchronize(event));
    EXPECT_OK(infinirtStreamQuery(stream));
}

INSTANTIATE_ON_ALL_DEVICES(ForgedHandles);

class ForgedKernelHandles : public KernelTest {};

TEST_P(ForgedKernelHandles, ModulesAndKernels) {
    infinirtKernel_t k = nullptr;
    ASSERT_OK(GetKernel(&k, "vector_add"));
    infinirtKernel_t out = nullptr;
    void *global = nullptr;
    size_t size = 0;
    int64_t value = 0;
    const infinirtLaunchConfig_t config = LaunchConfig({1, 1, 1}, {1, 1, 1});
    void *null_pointer = nullptr;
    const int32_t n = 0;
    const infinirtKernelArg_t args[] = {PointerArg(&null_pointer), PointerArg(&null_pointer), PointerArg(&null_pointer),
                                        ValueArg(&n)};
    ExpectForgedRefused(module_, {
        {"ModuleGetKernel", [&](void *h) { return infinirtModuleGetKernel(&out, h, "vector_add"); }},
        {"ModuleGetGlobal", [&](void *h) { return infinirtModuleGetGlobal(&global, &size, h, "g_value"); }},
        {"ModuleUnload", [](void *h) { return infinirtModuleUnload(h); }},
    });
    ExpectForgedRefused(k, {
        {"KernelGetAttribute", [&](void *h) { return infinirtKernelGetAttribute(&value, INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK, h); }},
        {"KernelSetAttribute", [](void *h) { return infinirtKernelSetAttribute(h, INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES, 0); }},
        {"LaunchKernel", [&](void *h) { return infinirtLaunchKernel(h, &config, args, 4, nullptr); }},
    });
    EXPECT_EQ(out, nullptr);
    EXPECT_EQ(global, nullptr);
    EXPECT_OK(infinirtKernelGetAttribute(&value, INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK, k));
    EXPECT_GT(value, 0);
}

INSTANTIATE_ON_ALL_DEVICES(ForgedKernelHandles);

} // namespace
} // namespace infinirt_test
