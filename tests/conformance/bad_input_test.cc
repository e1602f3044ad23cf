// Bad input: every refusal has its documented status and a non-empty last-error message, outputs
// are left untouched, and nothing crashes.
#include "device_test.h"
#include "out_of_range_enums.h"
#include "resources.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace infinirt_test {
namespace {

class BadInput : public DeviceTest {};

// Handles that were never created. The loader must recognise them without dereferencing them.
const std::vector<void *> &GarbageHandles() {
    static const std::vector<void *> kHandles = {
        reinterpret_cast<void *>(0x1234),
        reinterpret_cast<void *>(0xdeadbeef0ull),
        reinterpret_cast<void *>(~uintptr_t{0} - 7),
    };
    return kHandles;
}

void *const kSentinel = reinterpret_cast<void *>(0x5e17);

// Refused by the loader before any backend is asked: runs whatever the backend declares.
TEST_P(BadInput, NullOutputPointers) {
    infiniDevice_t t;
    int i;
    size_t bytes;
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtGetAllDeviceCount(nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, (infinirtGetAllDeviceCount)(nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtGetDeviceCount(type(), nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtGetDevice(nullptr, &i));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtGetDevice(&t, nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtGetMemInfo(type(), id(), nullptr, &bytes));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtGetMemInfo(type(), id(), &bytes, nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtGetDeviceResourceSnapshot(type(), id(), nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtGetDeviceProperties(type(), id(), nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtStreamCreate(nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtEventCreate(nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtEventCreateWithFlags(nullptr, 0));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtMalloc(nullptr, 64));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtMallocHost(nullptr, 64));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtMallocAsync(nullptr, 64, nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtGetBackendCount(nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtGetBackendInfo(0, nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtPointerGetAttributes(nullptr, &i));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtStreamGetNativeHandle(nullptr, nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtDeviceGetNativeContext(type(), id(), nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtGraphInstantiate(nullptr, nullptr, nullptr, nullptr, 0));
}

// The same refusals for calls that take a live stream or event.
TEST_P(BadInput, NullOutputPointersWithLiveHandles) {
    REQUIRE_FEATURES(Feature::kStreams, Feature::kEvents);
    ScopedStream s;
    ASSERT_OK(s.Create());
    ScopedEvent e;
    ASSERT_OK(e.Create());
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtEventQuery(e, nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtEventElapsedTime(nullptr, e, e));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtMallocAsync(nullptr, 64, s));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtStreamGetNativeHandle(s, nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtEventGetNativeHandle(e, nullptr));
}

TEST_P(BadInput, NullGraphOutputEndsCaptureRefused) {
    REQUIRE_FEATURES(Feature::kStreams, Feature::kStreamCapture);
    ScopedStream s;
    ASSERT_OK(s.Create());
    ASSERT_OK(infinirtStreamBeginCapture(s, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtStreamEndCapture(s, nullptr));
    infinirtGraph_t graph = nullptr;
    if (infinirtStreamEndCapture(s, &graph) == INFINI_STATUS_SUCCESS) {
        EXPECT_OK(infinirtGraphDestroy(graph));
    }
}

TEST_P(BadInput, NullDataPointersWithNonZeroSize) {
    REQUIRE_FEATURES(Feature::kMemory, Feature::kStreams);
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(64));
    EXPECT_REFUSED(infinirtMemcpy(nullptr, d, 64, INFINIRT_MEMCPY_D2H));
    EXPECT_REFUSED(infinirtMemcpy(d, nullptr, 64, INFINIRT_MEMCPY_H2D));
    EXPECT_REFUSED(infinirtMemcpyAsync(nullptr, d, 64, INFINIRT_MEMCPY_D2H, nullptr));
    EXPECT_REFUSED(infinirtMemset(nullptr, 0, 64));
    EXPECT_REFUSED(infinirtMemsetAsync(nullptr, 0, 64, nullptr));
    EXPECT_OK(infinirtStreamSynchronize(nullptr));
}

TEST_P(BadInput, DestroyedStream) {
    REQUIRE_FEATURES(Feature::kStreams, Feature::kEvents, Feature::kMemory);
    infinirtStream_t s = nullptr;
    ASSERT_OK(infinirtStreamCreate(&s));
    ASSERT_OK(infinirtStreamDestroy(s));
    ScopedEvent e;
    ASSERT_OK(e.Create());
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(64));
    std::vector<uint8_t> host(64, 0);
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamDestroy(s));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamSynchronize(s));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamQuery(s));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamWaitEvent(s, e));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventRecord(e, s));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtMemcpyAsync(host.data(), d, 64, INFINIRT_MEMCPY_D2H, s));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtMemsetAsync(d, 0, 64, s));
    void *p = kSentinel;
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtMallocAsync(&p, 64, s));
    EXPECT_EQ(p, kSentinel);
    // FreeAsync checks its stream first, whatever the pointer: NULL, device memory or garbage.
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtFreeAsync(nullptr, s));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtFreeAsync(d, s));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE,
                  infinirtFreeAsync(nullptr, reinterpret_cast<infinirtStream_t>(uintptr_t{0xdead0040})));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamBeginCapture(s, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL));
    void *native = kSentinel;
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamGetNativeHandle(s, &native));
    EXPECT_EQ(native, kSentinel);
}

TEST_P(BadInput, DestroyedEvent) {
    REQUIRE_FEATURES(Feature::kEvents);
    infinirtEvent_t e = nullptr;
    ASSERT_OK(infinirtEventCreate(&e));
    ASSERT_OK(infinirtEventDestroy(e));
    ScopedEvent live;
    ASSERT_OK(live.Create());
    ASSERT_OK(infinirtEventRecord(live, nullptr));
    ASSERT_OK(infinirtEventSynchronize(live));
    infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
    float ms = -1.0f;
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventDestroy(e));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventRecord(e, nullptr));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventQuery(e, &status));
    EXPECT_EQ(status, INFINIRT_EVENT_NOT_READY);
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventSynchronize(e));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamWaitEvent(nullptr, e));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventElapsedTime(&ms, e, live));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventElapsedTime(&ms, live, e));
    EXPECT_EQ(ms, -1.0f);
}

// Destroyed handles stay invalid after their slots are reused by new handles.
TEST_P(BadInput, DestroyedHandlesStayInvalidAfterReuse) {
    REQUIRE_FEATURES(Feature::kStreams, Feature::kEvents, Feature::kStreamQuery);
    std::vector<infinirtStream_t> dead_streams;
    std::vector<infinirtEvent_t> dead_events;
    for (int i = 0; i < 64; ++i) {
        infinirtStream_t s = nullptr;
        infinirtEvent_t e = nullptr;
        ASSERT_OK(infinirtStreamCreate(&s));
        ASSERT_OK(infinirtEventCreate(&e));
        ASSERT_OK(infinirtStreamDestroy(s));
        ASSERT_OK(infinirtEventDestroy(e));
        dead_streams.push_back(s);
        dead_events.push_back(e);
    }
    ScopedStream live;
    ScopedEvent live_event;
    ASSERT_OK(live.Create());
    ASSERT_OK(live_event.Create());
    infinirtEventStatus_t status;
    for (size_t i = 0; i < dead_streams.size(); ++i) {
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamQuery(dead_streams[i])) << i;
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventQuery(dead_events[i], &status)) << i;
    }
    EXPECT_OK(infinirtStreamQuery(live));
    EXPECT_OK(infinirtEventQuery(live_event, &status));
}

TEST_P(BadInput, GarbageHandles) {
    REQUIRE_FEATURES(Feature::kStreams, Feature::kEvents);
    ScopedEvent live;
    ASSERT_OK(live.Create());
    ScopedStream live_stream;
    ASSERT_OK(live_stream.Create());
    infinirtEventStatus_t status;
    float ms;
    void *native;
    infinirtGraph_t graph;
    infinirtGraphExec_t exec;
    for (void *h : GarbageHandles()) {
        SCOPED_TRACE(h);
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamSynchronize(h));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamQuery(h));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamDestroy(h));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamWaitEvent(h, live));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamWaitEvent(live_stream, h));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamGetNativeHandle(h, &native));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventRecord(h, nullptr));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventRecord(live, h));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventQuery(h, &status));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventSynchronize(h));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventDestroy(h));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventElapsedTime(&ms, h, live));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventGetNativeHandle(h, &native));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamBeginCapture(h, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamEndCapture(h, &graph));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphDestroy(h));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphInstantiate(&exec, h, nullptr, nullptr, 0));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphExecDestroy(h));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphLaunch(h, nullptr));
        EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphLuanch(h, nullptr));
    }
}

// A valid handle of one kind passed where another kind is expected.
TEST_P(BadInput, WrongKindHandles) {
    REQUIRE_FEATURES(Feature::kStreams, Feature::kEvents);
    ScopedStream s;
    ASSERT_OK(s.Create());
    ScopedEvent e;
    ASSERT_OK(e.Create());
    infinirtEventStatus_t status;
    float ms;
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventRecord(s, nullptr));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventQuery(s, &status));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventSynchronize(s));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventElapsedTime(&ms, s, e));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventDestroy(s));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamWaitEvent(s, s));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamSynchronize(e));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamQuery(e));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventRecord(e, e));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamDestroy(e));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphDestroy(s));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphExecDestroy(e));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphLaunch(s, nullptr));
    // Both handles still work after being misused.
    EXPECT_OK(infinirtEventRecord(e, s));
    EXPECT_OK(infinirtEventSynchronize(e));
    EXPECT_OK(infinirtStreamSynchronize(s));
}

TEST_P(BadInput, GraphAndExecHandlesOfTheWrongKind) {
    REQUIRE_FEATURES(Feature::kMemory, Feature::kStreams, Feature::kStreamCapture);
    ScopedStream s;
    ASSERT_OK(s.Create());
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(64));
    ScopedGraph graph;
    ScopedGraphExec exec;
    ASSERT_OK(CaptureMemsetGraph(s, d, 64, graph, exec));
    infinirtGraphExec_t other = nullptr;
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphLaunch(graph, s));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphExecDestroy(graph));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphDestroy(exec));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphInstantiate(&other, exec, nullptr, nullptr, 0));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamSynchronize(graph));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventRecord(exec, s));
    EXPECT_EQ(other, nullptr);
    EXPECT_OK(infinirtGraphLaunch(exec, s));
    EXPECT_OK(infinirtStreamSynchronize(s));
}

TEST_P(BadInput, StreamDestroyOfDefaultStreamIsRefused) {
    REQUIRE_FEATURES(Feature::kStreams);
    EXPECT_REFUSED(infinirtStreamDestroy(nullptr));
    EXPECT_OK(infinirtStreamSynchronize(nullptr));
}

TEST_P(BadInput, DoubleForeignAndInteriorFrees) {
    REQUIRE_FEATURES(Feature::kMemory);
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(4096));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFree(static_cast<uint8_t *>(d.get()) + 16));
    // The interior free released nothing: the allocation still works and frees once.
    ASSERT_OK(infinirtMemset(d, 0, 4096));
    d.Disown();
    EXPECT_OK(infinirtFree(d));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFree(d));

    void *foreign = std::malloc(256);
    ASSERT_NE(foreign, nullptr);
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFree(foreign));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFreeHost(foreign));
    std::free(foreign);
    int on_stack = 0;
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFree(&on_stack));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFree(reinterpret_cast<void *>(0x1000)));
}

TEST_P(BadInput, PinnedHostDoubleAndInteriorFrees) {
    REQUIRE_FEATURES(Feature::kMemory);
    PinnedBuffer h;
    ASSERT_OK(h.MallocHost(4096));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFreeHost(static_cast<uint8_t *>(h.get()) + 8));
    static_cast<uint8_t *>(h.get())[4095] = 1; // still allocated
    h.Disown();
    EXPECT_OK(infinirtFreeHost(h));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFreeHost(h));
}

TEST_P(BadInput, BadDeviceIds) {
    int count = 0;
    ASSERT_OK(infinirtGetDeviceCount(type(), &count));
    size_t free_bytes = 1;
    size_t total_bytes = 1;
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof(props);
    infinirtDeviceResourceSnapshot_t snapshot{};
    void *native = kSentinel;
    for (int bad : {-1, count, count + 1000}) {
        SCOPED_TRACE(bad);
        EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtSetDevice(type(), bad));
        infiniDevice_t t = INFINI_DEVICE_TYPE_COUNT;
        int i = -1;
        ASSERT_OK(infinirtGetDevice(&t, &i));
        EXPECT_EQ(t, type()) << "a failed SetDevice changed the current device";
        EXPECT_EQ(i, id()) << "a failed SetDevice changed the current device";
        EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtGetMemInfo(type(), bad, &free_bytes, &total_bytes));
        EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtGetDeviceProperties(type(), bad, &props));
        EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtGetDeviceResourceSnapshot(type(), bad, &snapshot));
        EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtDeviceGetNativeContext(type(), bad, &native));
    }
    EXPECT_EQ(free_bytes, 1u);
    EXPECT_EQ(total_bytes, 1u);
    EXPECT_EQ(native, kSentinel);
}

TEST_P(BadInput, BadDeviceTypes) {
    int count = -7;
    size_t free_bytes = 1;
    size_t total_bytes = 1;
    for (int bad : {-1, static_cast<int>(INFINI_DEVICE_TYPE_COUNT), 1000}) {
        SCOPED_TRACE(bad);
        EXPECT_STATUS(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED, oorSetDevice(bad, 0));
        infiniDevice_t t = INFINI_DEVICE_TYPE_COUNT;
        int i = -1;
        ASSERT_OK(infinirtGetDevice(&t, &i));
        EXPECT_EQ(t, type()) << "a failed SetDevice changed the current device";
        EXPECT_EQ(i, id()) << "a failed SetDevice changed the current device";
        EXPECT_STATUS(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED, oorGetDeviceCount(bad, &count));
        EXPECT_STATUS(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED, oorGetMemInfo(bad, 0, &free_bytes, &total_bytes));
        infinirtDeviceProperties_t props{};
        props.struct_size = sizeof props;
        EXPECT_STATUS(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED, oorGetDeviceProperties(bad, 0, &props));
        infinirtDeviceResourceSnapshot_t snapshot{};
        EXPECT_STATUS(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED, oorGetDeviceResourceSnapshot(bad, 0, &snapshot));
        void *native = kSentinel;
        EXPECT_STATUS(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED, oorDeviceGetNativeContext(bad, 0, &native));
        EXPECT_EQ(native, kSentinel);
    }
    EXPECT_EQ(count, -7);
    EXPECT_EQ(free_bytes, 1u);
}

// Out-of-range capture modes, as a C caller passes them (out_of_range_enums.h): refused as
// integers, before anything is converted (UBSan-clean), and the stream does not start capturing.
TEST_P(BadInput, InvalidCaptureMode) {
    REQUIRE_FEATURES(Feature::kStreams);
    infinirtStream_t s = nullptr;
    ASSERT_OK(infinirtStreamCreate(&s));
    for (int mode : {-1, 3, 99}) {
        SCOPED_TRACE(mode);
        EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, oorStreamBeginCapture(s, mode));
    }
    EXPECT_OK(infinirtStreamSynchronize(s)) << "a refused BeginCapture left the stream capturing";
    EXPECT_OK(infinirtStreamDestroy(s));
}

TEST_P(BadInput, SizeZeroAllocationsAreRefused) {
    void *p = kSentinel;
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMalloc(&p, 0));
    EXPECT_EQ(p, kSentinel);
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMallocHost(&p, 0));
    EXPECT_EQ(p, kSentinel);
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMallocAsync(&p, 0, nullptr));
    EXPECT_EQ(p, kSentinel);
}

TEST_P(BadInput, HugeAllocationsAreOutOfMemory) {
    REQUIRE_FEATURES(Feature::kMemory);
    for (size_t size : {SIZE_MAX, SIZE_MAX / 2, SIZE_MAX / 2 + 1}) {
        SCOPED_TRACE(size);
        void *p = kSentinel;
        EXPECT_STATUS(INFINI_STATUS_OUT_OF_MEMORY, infinirtMalloc(&p, size));
        EXPECT_EQ(p, kSentinel);
        EXPECT_STATUS(INFINI_STATUS_OUT_OF_MEMORY, infinirtMallocHost(&p, size));
        EXPECT_EQ(p, kSentinel);
    }
    // The device still allocates normally afterwards.
    void *p = nullptr;
    ASSERT_OK(infinirtMalloc(&p, 1024));
    EXPECT_OK(infinirtFree(p));
}

// More than the device reports having (four times its total memory, within what the address space
// holds) is OUT_OF_MEMORY at the call, on every backend: no backend overcommits device memory
// (PoCL's allocator did, and the first touch would have failed instead).
TEST_P(BadInput, AllocationBeyondTheDevicesMemoryIsOutOfMemory) {
    REQUIRE_FEATURES(Feature::kMemory);
    size_t free_bytes = 0;
    size_t total = 0;
    ASSERT_OK(infinirtGetMemInfo(type(), id(), &free_bytes, &total));
    ASSERT_GT(total, 0u);
    if (total > (SIZE_MAX >> 3)) {
        GTEST_SKIP() << "the device reports " << total << " bytes: four times that overflows";
    }
    void *p = kSentinel;
    EXPECT_STATUS(INFINI_STATUS_OUT_OF_MEMORY, infinirtMalloc(&p, 4 * total));
    EXPECT_EQ(p, kSentinel);
    EXPECT_NE(std::string(infinirtGetLastErrorMessage()), "");
    ASSERT_OK(infinirtMalloc(&p, 1024)) << "the device allocates normally afterwards";
    EXPECT_OK(infinirtFree(p));
}

TEST_P(BadInput, HugeStreamOrderedAllocationIsOutOfMemory) {
    REQUIRE_FEATURES(Feature::kMemory, Feature::kStreams, Feature::kStreamOrderedAlloc);
    void *p = kSentinel;
    EXPECT_STATUS(INFINI_STATUS_OUT_OF_MEMORY, infinirtMallocAsync(&p, SIZE_MAX, nullptr));
    EXPECT_EQ(p, kSentinel);
    EXPECT_OK(infinirtStreamSynchronize(nullptr));
}

TEST_P(BadInput, InvalidMemcpyKind) {
    REQUIRE_FEATURES(Feature::kMemory, Feature::kStreams);
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(64));
    ASSERT_OK(infinirtMemset(d, 0, 64));
    const std::vector<uint8_t> src(64, 0xaa);
    for (int kind : {99, -1, 5}) {
        SCOPED_TRACE(kind);
        EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, oorMemcpy(d, src.data(), 64, kind));
        EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, oorMemcpyAsync(d, src.data(), 64, kind, nullptr));
    }
    ASSERT_OK(infinirtStreamSynchronize(nullptr));
    std::vector<uint8_t> back(64, 1);
    ASSERT_OK(infinirtMemcpy(back.data(), d, 64, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(back, std::vector<uint8_t>(64, 0)) << "a refused copy wrote data";
}

// The error message belongs to the thread that failed.
TEST_P(BadInput, LastErrorMessageIsPerThread) {
    void *p = kSentinel;
    ASSERT_EQ(infinirtMalloc(&p, 0), INFINI_STATUS_BAD_PARAM);
    const std::string mine = infinirtGetLastErrorMessage();
    ASSERT_FALSE(mine.empty());
    std::string theirs;
    std::thread([&] {
        infinirtStreamSynchronize(reinterpret_cast<infinirtStream_t>(0x1234));
        theirs = infinirtGetLastErrorMessage();
    }).join();
    EXPECT_FALSE(theirs.empty());
    EXPECT_NE(theirs, mine);
    EXPECT_EQ(std::string(infinirtGetLastErrorMessage()), mine);
}

INSTANTIATE_ON_ALL_DEVICES(BadInput);

} // namespace
} // namespace infinirt_test
