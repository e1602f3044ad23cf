// One order of checks for every entry (the header's preamble): NULL outputs (NULL_POINTER), then
// handles (INVALID_HANDLE), then values (BAD_PARAM, NULL_POINTER for a NULL input, NOT_FOUND...).
// Each case passes two faults at once, so only the first in that order may be reported.
#include "kernel_images.h"
#include "resources.h"

#include <cstdint>

namespace infinirt_test {
namespace {

void *const kGarbage = reinterpret_cast<void *>(uintptr_t{0x1234});

class CheckOrder : public DeviceTest {};

TEST_P(CheckOrder, NullOutputsComeBeforeHandles) {
    infinirtEvent_t e = nullptr;
    infinirtGraph_t g = nullptr;
    void *p = nullptr;
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtEventQuery(kGarbage, nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtEventElapsedTime(nullptr, kGarbage, kGarbage));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtStreamEndCapture(kGarbage, nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtGraphInstantiate(nullptr, kGarbage, nullptr, nullptr, 0));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtMallocAsync(nullptr, 64, kGarbage));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtStreamGetNativeHandle(kGarbage, nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtEventGetNativeHandle(kGarbage, nullptr));
    infiniDevice_t type{};
    int id = 0;
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtStreamGetDevice(kGarbage, nullptr, &id));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtStreamGetDevice(kGarbage, &type, nullptr));
    int64_t value = 0;
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER,
                  infinirtKernelGetAttribute(nullptr, INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK, kGarbage));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtModuleGetKernel(nullptr, kGarbage, "vector_add"));
    size_t size = 0;
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtModuleGetGlobal(nullptr, &size, kGarbage, "g_value"));
    EXPECT_EQ(e, nullptr);
    EXPECT_EQ(g, nullptr);
    EXPECT_EQ(p, nullptr);
    EXPECT_EQ(value, 0);
}

TEST_P(CheckOrder, NullOutputsComeBeforeValuesAndDevices) {
    const int bad_type = INFINI_DEVICE_TYPE_COUNT + 3;
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtMalloc(nullptr, 0));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtMallocHost(nullptr, 0));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtMallocAsync(nullptr, 0, nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtEventCreateWithFlags(nullptr, 0x80u));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtGetDeviceCount(static_cast<infiniDevice_t>(bad_type), nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER,
                  infinirtGetMemInfo(static_cast<infiniDevice_t>(bad_type), 0, nullptr, nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER,
                  infinirtGetDeviceProperties(static_cast<infiniDevice_t>(bad_type), 0, nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtGetDeviceProperties(type(), 1 << 20, nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER,
                  infinirtDeviceCanAccessPeer(nullptr, static_cast<infiniDevice_t>(bad_type), 0, type(), id()));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER,
                  infinirtDeviceGetNativeContext(static_cast<infiniDevice_t>(bad_type), 0, nullptr));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtPointerGetAttributes(nullptr, kGarbage));
}

TEST_P(CheckOrder, HandlesComeBeforeValues) {
    void *p = kGarbage;
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtMallocAsync(&p, 0, kGarbage));
    EXPECT_EQ(p, kGarbage);
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE,
                  infinirtStreamBeginCapture(kGarbage, static_cast<infinirtStreamCaptureMode_t>(99)));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtFreeAsync(kGarbage, kGarbage));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtMemsetAsync(nullptr, 0, 64, kGarbage));
    char host[64] = {};
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE,
                  infinirtMemcpyAsync(nullptr, host, sizeof host, INFINIRT_MEMCPY_H2D, kGarbage));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE,
                  infinirtMemcpyAsync(host, host, sizeof host, static_cast<infinirtMemcpyKind_t>(99), kGarbage));
    int64_t value = 0;
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE,
                  infinirtKernelGetAttribute(&value, static_cast<infinirtKernelAttribute_t>(999), kGarbage));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE,
                  infinirtKernelSetAttribute(kGarbage, static_cast<infinirtKernelAttribute_t>(999), -1));
    infinirtKernel_t k = nullptr;
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtModuleGetKernel(&k, kGarbage, nullptr));
    void *global = nullptr;
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtModuleGetGlobal(&global, nullptr, kGarbage, nullptr));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtLaunchKernel(kGarbage, nullptr, nullptr, 1, kGarbage));
    EXPECT_EQ(k, nullptr);
    EXPECT_EQ(global, nullptr);
}

// The NULL stream is the default stream, a valid handle: refusing it where it cannot serve
// (destroy, capture) is a value check, after the outputs.
TEST_P(CheckOrder, TheDefaultStreamIsAValueNotABadHandle) {
    REQUIRE_FEATURES(Feature::kStreams);
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtStreamDestroy(nullptr));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtStreamBeginCapture(nullptr, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtStreamEndCapture(nullptr, nullptr));
    // Handles that are never the default: NULL is a bad handle.
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventDestroy(nullptr));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphDestroy(nullptr));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphExecDestroy(nullptr));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtModuleUnload(nullptr));
}

INSTANTIATE_ON_ALL_DEVICES(CheckOrder);

} // namespace
} // namespace infinirt_test
