/* CUDA-runtime code in the same process works on infinirt memory and streams: one primary
 * context, one legacy default stream, native handles that are the driver's own. */
#include <infinirt.h>

#include "cuda_test_support.h"
#include "interop_kernels.h"

#include <vector>

namespace {

TEST(CudaInterop, KernelRunsOnInfinirtMemoryAndStream) {
    SKIP_WITHOUT_CUDA_DEVICE();
    ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_NVIDIA, 0), INFINI_STATUS_SUCCESS);
    const int n = 1 << 20;
    std::vector<float> host(n), back(n, -1.0f);
    for (int i = 0; i < n; ++i) {
        host[i] = static_cast<float>(i % 1000);
    }
    void *x = nullptr;
    infinirtStream_t stream = nullptr;
    ASSERT_EQ(infinirtMalloc(&x, n * sizeof(float)), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtStreamCreate(&stream), INFINI_STATUS_SUCCESS);
    void *native = nullptr;
    ASSERT_EQ(infinirtStreamGetNativeHandle(stream, &native), INFINI_STATUS_SUCCESS);
    ASSERT_NE(native, nullptr);
    ASSERT_EQ(infinirtMemcpyAsync(x, host.data(), n * sizeof(float), INFINIRT_MEMCPY_H2D, stream),
              INFINI_STATUS_SUCCESS);
    ASSERT_EQ(interop_scale(static_cast<float *>(x), n, 2.0f, 1.0f, native), 0);
    ASSERT_EQ(infinirtMemcpyAsync(back.data(), x, n * sizeof(float), INFINIRT_MEMCPY_D2H, stream),
              INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtStreamSynchronize(stream), INFINI_STATUS_SUCCESS);
    int wrong = 0;
    for (int i = 0; i < n; ++i) {
        wrong += back[i] != host[i] * 2.0f + 1.0f;
    }
    EXPECT_EQ(wrong, 0);

    /* The NULL stream is the legacy stream 0 of CUDA-runtime code: a kernel launched there is
     * ordered before infinirt's synchronous copy. */
    ASSERT_EQ(interop_scale(static_cast<float *>(x), n, 1.0f, 5.0f, nullptr), 0);
    ASSERT_EQ(infinirtMemcpy(back.data(), x, n * sizeof(float), INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    wrong = 0;
    for (int i = 0; i < n; ++i) {
        wrong += back[i] != host[i] * 2.0f + 6.0f;
    }
    EXPECT_EQ(wrong, 0);

    /* An event recorded by infinirt is a CUevent the runtime can wait on. */
    infinirtEvent_t event = nullptr;
    void *native_event = nullptr;
    ASSERT_EQ(infinirtEventCreate(&event), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtEventGetNativeHandle(event, &native_event), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtEventRecord(event, stream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(cuda_test::nativeApi().cuEventSynchronize(static_cast<CUevent>(native_event)), CUDA_SUCCESS);

    EXPECT_EQ(infinirtEventDestroy(event), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtStreamDestroy(stream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFree(x), INFINI_STATUS_SUCCESS);
}

TEST(CudaInterop, RuntimeUsesThePrimaryContext) {
    SKIP_WITHOUT_CUDA_DEVICE();
    ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_NVIDIA, 0), INFINI_STATUS_SUCCESS);
    void *ours = nullptr, *theirs = nullptr;
    ASSERT_EQ(infinirtDeviceGetNativeContext(INFINI_DEVICE_NVIDIA, 0, &ours), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(interop_runtime_context(0, &theirs), 0);
    EXPECT_EQ(ours, theirs);
}

TEST(CudaInterop, ForeignRuntimeAllocationIsRecognised) {
    SKIP_WITHOUT_CUDA_DEVICE();
    void *p = nullptr;
    const size_t bytes = 3 << 20;
    ASSERT_EQ(interop_cuda_malloc(&p, bytes), 0);
    infinirtPointerAttributes_t attributes{};
    attributes.struct_size = sizeof attributes;
    ASSERT_EQ(infinirtPointerGetAttributes(&attributes, static_cast<char *>(p) + 100), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(attributes.kind, INFINIRT_MEMORY_DEVICE);
    EXPECT_EQ(attributes.device_type, INFINI_DEVICE_NVIDIA);
    EXPECT_EQ(attributes.device_id, 0);
    EXPECT_EQ(attributes.base, p);
    EXPECT_EQ(attributes.size, bytes);
    EXPECT_EQ(interop_cuda_free(p), 0);
}

} // namespace
