// opencl-specific behaviour through the C ABI: what the backend maps onto OpenCL objects (queues,
// markers, SVM) and its messages. Runs on every OpenCL device found; skipped without one.
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include "infinirt.h"
#include "opencl_test_devices.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// Raw OpenCL, for inspecting native handles; the same ICD loader instance the plugin uses.
struct RawCl {
    decltype(&::clGetCommandQueueInfo) getCommandQueueInfo = nullptr;
    decltype(&::clGetEventInfo) getEventInfo = nullptr;
    decltype(&::clGetDeviceInfo) getDeviceInfo = nullptr;
    RawCl() {
        void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
        if (lib) {
            getCommandQueueInfo = reinterpret_cast<decltype(getCommandQueueInfo)>(dlsym(lib, "clGetCommandQueueInfo"));
            getEventInfo = reinterpret_cast<decltype(getEventInfo)>(dlsym(lib, "clGetEventInfo"));
            getDeviceInfo = reinterpret_cast<decltype(getDeviceInfo)>(dlsym(lib, "clGetDeviceInfo"));
        }
    }
};

class OpenclBackend : public ::testing::TestWithParam<int> {
  protected:
    void SetUp() override { ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_OPENCL, GetParam()), INFINI_STATUS_SUCCESS); }
};

using infinirt_opencl_test::openclDevices;

TEST_P(OpenclBackend, PropertiesComeFromTheDeviceAndItsPlatform) {
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof(props);
    ASSERT_EQ(infinirtGetDeviceProperties(INFINI_DEVICE_OPENCL, GetParam(), &props), INFINI_STATUS_SUCCESS);
    EXPECT_STRNE(props.name, "");
    EXPECT_STRNE(props.platform, "");
    EXPECT_STRNE(props.driver_version, "");
    EXPECT_GT(props.total_memory, 0u);
    EXPECT_GT(props.multiprocessor_count, 0);
}

TEST_P(OpenclBackend, StreamIsAnInOrderProfilingQueueOfTheDeviceContext) {
    RawCl cl;
    ASSERT_NE(cl.getCommandQueueInfo, nullptr);
    infinirtStream_t stream = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&stream), INFINI_STATUS_SUCCESS);
    void *queue = nullptr, *context = nullptr;
    ASSERT_EQ(infinirtStreamGetNativeHandle(stream, &queue), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtDeviceGetNativeContext(INFINI_DEVICE_OPENCL, GetParam(), &context), INFINI_STATUS_SUCCESS);
    cl_command_queue_properties props = 0;
    cl_context queue_context = nullptr;
    ASSERT_EQ(cl.getCommandQueueInfo(static_cast<cl_command_queue>(queue), CL_QUEUE_PROPERTIES, sizeof(props), &props,
                                     nullptr),
              CL_SUCCESS);
    ASSERT_EQ(cl.getCommandQueueInfo(static_cast<cl_command_queue>(queue), CL_QUEUE_CONTEXT, sizeof(queue_context),
                                     &queue_context, nullptr),
              CL_SUCCESS);
    EXPECT_TRUE(props & CL_QUEUE_PROFILING_ENABLE);
    EXPECT_FALSE(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    EXPECT_EQ(queue_context, static_cast<cl_context>(context));

    void *default_queue = nullptr;
    ASSERT_EQ(infinirtStreamGetNativeHandle(nullptr, &default_queue), INFINI_STATUS_SUCCESS);
    EXPECT_NE(default_queue, nullptr);
    EXPECT_NE(default_queue, queue);
    EXPECT_EQ(infinirtStreamDestroy(stream), INFINI_STATUS_SUCCESS);
}

// Priorities are cl_khr_priority_hints where the device lists it: 1 LOW, 0 the default (no hint),
// -1 HIGH, each queue created with its hint; elsewhere one level, (0, 0).
TEST_P(OpenclBackend, StreamPrioritiesAreThePriorityHintsWhereTheDeviceHasThem) {
    RawCl cl;
    ASSERT_NE(cl.getDeviceInfo, nullptr);
    void *default_queue = nullptr;
    ASSERT_EQ(infinirtStreamGetNativeHandle(nullptr, &default_queue), INFINI_STATUS_SUCCESS);
    cl_device_id device = nullptr;
    ASSERT_EQ(cl.getCommandQueueInfo(static_cast<cl_command_queue>(default_queue), CL_QUEUE_DEVICE, sizeof(device),
                                     &device, nullptr),
              CL_SUCCESS);
    size_t length = 0;
    ASSERT_EQ(cl.getDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, nullptr, &length), CL_SUCCESS);
    std::string extensions(length, '\0');
    ASSERT_EQ(cl.getDeviceInfo(device, CL_DEVICE_EXTENSIONS, length, &extensions[0], nullptr), CL_SUCCESS);
    const bool hints = (" " + std::string(extensions.c_str()) + " ").find(" cl_khr_priority_hints ") != std::string::npos;

    int least = 99, greatest = 99;
    ASSERT_EQ(infinirtDeviceGetStreamPriorityRange(&least, &greatest, INFINI_DEVICE_OPENCL, GetParam()),
              INFINI_STATUS_SUCCESS);
    EXPECT_EQ(least, hints ? 1 : 0);
    EXPECT_EQ(greatest, hints ? -1 : 0);
    for (int priority = greatest; priority <= least; ++priority) {
        infinirtStream_t stream = nullptr;
        ASSERT_EQ(infinirtStreamCreateWithPriority(&stream, priority), INFINI_STATUS_SUCCESS) << priority;
        int got = 99;
        EXPECT_EQ(infinirtStreamGetPriority(&got, stream), INFINI_STATUS_SUCCESS);
        EXPECT_EQ(got, priority);
        void *queue = nullptr;
        ASSERT_EQ(infinirtStreamGetNativeHandle(stream, &queue), INFINI_STATUS_SUCCESS);
        cl_queue_properties props[16] = {};
        size_t size = 0;
        if (cl.getCommandQueueInfo(static_cast<cl_command_queue>(queue), CL_QUEUE_PROPERTIES_ARRAY, sizeof(props), props,
                                   &size) == CL_SUCCESS) {
            cl_queue_properties hint = 0;
            for (size_t i = 0; i + 1 < size / sizeof(cl_queue_properties) && props[i] != 0; i += 2) {
                if (props[i] == CL_QUEUE_PRIORITY_KHR) {
                    hint = props[i + 1];
                }
            }
            const cl_queue_properties expected = priority < 0   ? CL_QUEUE_PRIORITY_HIGH_KHR
                                                 : priority > 0 ? CL_QUEUE_PRIORITY_LOW_KHR
                                                                : 0;
            EXPECT_EQ(hint, expected) << "priority " << priority;
        }
        EXPECT_EQ(infinirtStreamSynchronize(stream), INFINI_STATUS_SUCCESS);
        EXPECT_EQ(infinirtStreamDestroy(stream), INFINI_STATUS_SUCCESS);
    }
}

TEST_P(OpenclBackend, EventRecordEnqueuesACommandOnTheStreamQueue) {
    RawCl cl;
    ASSERT_NE(cl.getEventInfo, nullptr);
    infinirtStream_t stream = nullptr;
    infinirtEvent_t event = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&stream), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtEventCreate(&event), INFINI_STATUS_SUCCESS);
    void *native = nullptr;
    // Before the first record: a user event, already complete.
    ASSERT_EQ(infinirtEventGetNativeHandle(event, &native), INFINI_STATUS_SUCCESS);
    cl_int state = CL_QUEUED;
    ASSERT_EQ(cl.getEventInfo(static_cast<cl_event>(native), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(state), &state,
                              nullptr),
              CL_SUCCESS);
    EXPECT_EQ(state, CL_COMPLETE);
    ASSERT_EQ(infinirtEventRecord(event, stream), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtEventGetNativeHandle(event, &native), INFINI_STATUS_SUCCESS);
    void *queue = nullptr;
    ASSERT_EQ(infinirtStreamGetNativeHandle(stream, &queue), INFINI_STATUS_SUCCESS);
    cl_command_queue event_queue = nullptr;
    ASSERT_EQ(cl.getEventInfo(static_cast<cl_event>(native), CL_EVENT_COMMAND_QUEUE, sizeof(event_queue), &event_queue,
                              nullptr),
              CL_SUCCESS);
    EXPECT_EQ(event_queue, static_cast<cl_command_queue>(queue));
    EXPECT_EQ(infinirtEventSynchronize(event), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtEventDestroy(event), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtStreamDestroy(stream), INFINI_STATUS_SUCCESS);
}

TEST_P(OpenclBackend, DevicePointersSupportArithmeticInEveryCopyKind) {
    constexpr size_t kSize = 1 << 20;
    unsigned char *dev = nullptr;
    ASSERT_EQ(infinirtMalloc(reinterpret_cast<void **>(&dev), kSize), INFINI_STATUS_SUCCESS);
    std::vector<unsigned char> in(5000), out(5000, 0), host_copy(5000, 0);
    for (size_t i = 0; i < in.size(); ++i) {
        in[i] = static_cast<unsigned char>(i * 7 + 3);
    }
    ASSERT_EQ(infinirtMemcpy(dev + 4096, in.data(), in.size(), INFINIRT_MEMCPY_H2D), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemcpy(dev + 65537, dev + 4096, in.size(), INFINIRT_MEMCPY_D2D), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemcpy(dev + 200001, dev + 65537, in.size(), INFINIRT_MEMCPY_DEFAULT), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemcpy(out.data(), dev + 200001, out.size(), INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(out, in);
    ASSERT_EQ(infinirtMemcpy(host_copy.data(), out.data(), out.size(), INFINIRT_MEMCPY_H2H), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(host_copy, in);
    EXPECT_EQ(infinirtFree(dev), INFINI_STATUS_SUCCESS);
}

TEST_P(OpenclBackend, MemsetFillsAnInteriorRangeOnly) {
    constexpr size_t kSize = 4096;
    unsigned char *dev = nullptr;
    ASSERT_EQ(infinirtMalloc(reinterpret_cast<void **>(&dev), kSize), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemset(dev, 0, kSize), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemset(dev + 101, 0x1AB, 999), INFINI_STATUS_SUCCESS); // only the low byte counts
    std::vector<unsigned char> out(kSize);
    ASSERT_EQ(infinirtMemcpy(out.data(), dev, kSize, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    for (size_t i = 0; i < kSize; ++i) {
        ASSERT_EQ(out[i], (i >= 101 && i < 1100) ? 0xAB : 0) << "byte " << i;
    }
    EXPECT_EQ(infinirtFree(dev), INFINI_STATUS_SUCCESS);
}

TEST_P(OpenclBackend, AllocationFailureNamesTheCallAndTheFigures) {
    void *ptr = nullptr;
    EXPECT_EQ(infinirtMalloc(&ptr, size_t{1} << 50), INFINI_STATUS_OUT_OF_MEMORY);
    EXPECT_EQ(ptr, nullptr);
    const std::string message = infinirtGetLastErrorMessage();
    // Refused against what the device reports, before clSVMAlloc (PoCL would overcommit).
    EXPECT_NE(message.find("CL_DEVICE_GLOBAL_MEM_SIZE"), std::string::npos) << message;
    EXPECT_NE(message.find("largest single allocation"), std::string::npos) << message;
    EXPECT_NE(message.find("1.0 PiB"), std::string::npos) << message;
}

// Registered as opencl.memory_limit with INFINIRT_OPENCL_MEMORY_LIMIT=64 MiB (tests/opencl/CMakeLists.txt).
TEST_P(OpenclBackend, MemoryLimitBoundsTheDeviceAndItsAllocations) {
    const char *limit_text = std::getenv("INFINIRT_OPENCL_MEMORY_LIMIT");
    if (limit_text == nullptr) {
        GTEST_SKIP() << "needs INFINIRT_OPENCL_MEMORY_LIMIT (set by the opencl.memory_limit entry)";
    }
    const size_t limit = std::strtoull(limit_text, nullptr, 10);
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof props;
    ASSERT_EQ(infinirtGetDeviceProperties(INFINI_DEVICE_OPENCL, GetParam(), &props), INFINI_STATUS_SUCCESS);
    ASSERT_LE(props.total_memory, limit);
    size_t free_bytes = 0, total_bytes = 0;
    ASSERT_EQ(infinirtGetMemInfo(INFINI_DEVICE_OPENCL, GetParam(), &free_bytes, &total_bytes), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(total_bytes, props.total_memory);
    std::vector<void *> held;
    void *ptr = nullptr;
    size_t allocated = 0;
    while (infinirtMalloc(&ptr, props.total_memory / 4) == INFINI_STATUS_SUCCESS) {
        held.push_back(ptr);
        allocated += props.total_memory / 4;
        ASSERT_LE(allocated, props.total_memory);
    }
    const std::string message = infinirtGetLastErrorMessage();
    EXPECT_GE(held.size(), 3u) << message; // staging reserved at first use may take part of a quarter
    if (props.total_memory == limit) {
        EXPECT_NE(message.find("INFINIRT_OPENCL_MEMORY_LIMIT"), std::string::npos) << message;
    }
    for (void *p : held) {
        EXPECT_EQ(infinirtFree(p), INFINI_STATUS_SUCCESS);
    }
}

TEST_P(OpenclBackend, FreeAsyncWaitsForTheWorkQueuedBeforeIt) {
    constexpr size_t kSize = 8 << 20;
    infinirtStream_t stream = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&stream), INFINI_STATUS_SUCCESS);
    size_t free_before = 0, total = 0;
    ASSERT_EQ(infinirtGetMemInfo(INFINI_DEVICE_OPENCL, GetParam(), &free_before, &total), INFINI_STATUS_SUCCESS);
    void *dev = nullptr;
    ASSERT_EQ(infinirtMallocAsync(&dev, kSize, stream), INFINI_STATUS_SUCCESS);
    std::vector<unsigned char> out(kSize, 0);
    ASSERT_EQ(infinirtMemsetAsync(dev, 0x5A, kSize, stream), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemcpyAsync(out.data(), dev, kSize, INFINIRT_MEMCPY_D2H, stream), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtFreeAsync(dev, stream), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtStreamSynchronize(stream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(out, std::vector<unsigned char>(kSize, 0x5A));
    size_t free_after = 0;
    ASSERT_EQ(infinirtGetMemInfo(INFINI_DEVICE_OPENCL, GetParam(), &free_after, &total), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(free_after, free_before);
    EXPECT_EQ(infinirtStreamDestroy(stream), INFINI_STATUS_SUCCESS);
}

TEST_P(OpenclBackend, PinnedHostMemoryServesAsyncCopiesBothWays) {
    constexpr size_t kSize = 1 << 20;
    unsigned char *src = nullptr, *dst = nullptr, *dev = nullptr;
    ASSERT_EQ(infinirtMallocHost(reinterpret_cast<void **>(&src), kSize), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMallocHost(reinterpret_cast<void **>(&dst), kSize), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMalloc(reinterpret_cast<void **>(&dev), kSize), INFINI_STATUS_SUCCESS);
    for (size_t i = 0; i < kSize; ++i) {
        src[i] = static_cast<unsigned char>(i % 251);
    }
    std::memset(dst, 0, kSize);
    infinirtStream_t stream = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&stream), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemcpyAsync(dev, src, kSize, INFINIRT_MEMCPY_H2D, stream), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemcpyAsync(dst, dev, kSize, INFINIRT_MEMCPY_D2H, stream), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtStreamSynchronize(stream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(std::memcmp(src, dst, kSize), 0);
    std::memset(dst, 0, kSize);
    ASSERT_EQ(infinirtMemcpyAsync(dst, src, kSize, INFINIRT_MEMCPY_H2H, stream), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtStreamSynchronize(stream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(std::memcmp(src, dst, kSize), 0);
    EXPECT_EQ(infinirtStreamDestroy(stream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFree(dev), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFreeHost(src), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFreeHost(dst), INFINI_STATUS_SUCCESS);
}

TEST_P(OpenclBackend, BarrierOrdersAStreamAfterAnotherStreamsEvent) {
    constexpr size_t kSize = 64 << 20;
    infinirtStream_t producer = nullptr, consumer = nullptr;
    infinirtEvent_t done = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&producer), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtStreamCreate(&consumer), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtEventCreateWithFlags(&done, INFINIRT_EVENT_DISABLE_TIMING), INFINI_STATUS_SUCCESS);
    void *dev = nullptr;
    ASSERT_EQ(infinirtMalloc(&dev, kSize), INFINI_STATUS_SUCCESS);
    std::vector<unsigned char> out(kSize, 0);
    for (int value : {7, 9}) {
        ASSERT_EQ(infinirtMemsetAsync(dev, value, kSize, producer), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtEventRecord(done, producer), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtStreamWaitEvent(consumer, done), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtMemcpyAsync(out.data(), dev, kSize, INFINIRT_MEMCPY_D2H, consumer), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtStreamSynchronize(consumer), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(out, std::vector<unsigned char>(kSize, static_cast<unsigned char>(value)));
    }
    float ms = 0;
    EXPECT_EQ(infinirtEventElapsedTime(&ms, done, done), INFINI_STATUS_BAD_PARAM); // DISABLE_TIMING
    EXPECT_EQ(infinirtFree(dev), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtEventDestroy(done), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtStreamDestroy(producer), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtStreamDestroy(consumer), INFINI_STATUS_SUCCESS);
}

TEST_P(OpenclBackend, ElapsedTimeComesFromProfilingTimestamps) {
    constexpr size_t kSize = 64 << 20;
    infinirtEvent_t start = nullptr, end = nullptr;
    ASSERT_EQ(infinirtEventCreate(&start), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtEventCreate(&end), INFINI_STATUS_SUCCESS);
    void *dev = nullptr;
    ASSERT_EQ(infinirtMalloc(&dev, kSize), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtEventRecord(start, nullptr), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemsetAsync(dev, 1, kSize, nullptr), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtEventRecord(end, nullptr), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtEventSynchronize(end), INFINI_STATUS_SUCCESS);
    float forward = -1, backward = 1;
    ASSERT_EQ(infinirtEventElapsedTime(&forward, start, end), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtEventElapsedTime(&backward, end, start), INFINI_STATUS_SUCCESS);
    // A 64 MiB fill lies between the two recordings, so the later one has a later timestamp.
    EXPECT_GT(forward, 0.0f);
    EXPECT_FLOAT_EQ(backward, -forward);
    EXPECT_EQ(infinirtFree(dev), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtEventDestroy(start), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtEventDestroy(end), INFINI_STATUS_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Devices, OpenclBackend, ::testing::ValuesIn(openclDevices()),
                         [](const ::testing::TestParamInfo<int> &info) { return "opencl" + std::to_string(info.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpenclBackend);

} // namespace
