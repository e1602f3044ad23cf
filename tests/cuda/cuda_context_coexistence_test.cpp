/*
 * Coexistence with a caller who manages CUDA contexts itself: after any infinirt call but
 * SetDevice and PushDevice the caller's context stack is exactly what it was, empty or not;
 * SetDevice acts like cudaSetDevice; PopDevice gives back what PushDevice replaced.
 * Each test runs in a fresh thread so that it starts from an empty context stack.
 */
#include <infinirt.h>

#include "cuda_test_support.h"

#include <cstring>
#include <thread>
#include <vector>

namespace {

using cuda_test::ContextStack;
using cuda_test::nativeApi;

template <class Body>
void InFreshThread(Body body) {
    std::thread t(body);
    t.join();
}

CUcontext Current() {
    CUcontext c = nullptr;
    EXPECT_EQ(nativeApi().cuCtxGetCurrent(&c), CUDA_SUCCESS);
    return c;
}

CUcontext PrimaryContext() {
    void *native = nullptr;
    EXPECT_EQ(infinirtDeviceGetNativeContext(INFINI_DEVICE_NVIDIA, 0, &native), INFINI_STATUS_SUCCESS);
    return static_cast<CUcontext>(native);
}

/* Every call must succeed and leave the caller's stack untouched. */
#define EXPECT_CALL_KEEPS_STACK(call, stack)                                                                           \
    do {                                                                                                               \
        EXPECT_EQ((call), INFINI_STATUS_SUCCESS) << #call << ": " << infinirtGetLastErrorMessage();                    \
        EXPECT_EQ(ContextStack(), (stack)) << "after " #call;                                                          \
    } while (0)

TEST(CudaContextCoexistence, CallerStackIsUnchangedByEveryCall) {
    SKIP_WITHOUT_CUDA_DEVICE();
    InFreshThread([] {
        const cuda_test::Extra extra = cuda_test::ExtraEntryPoints();
        ASSERT_NE(extra.cuCtxCreate, nullptr);
        ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_NVIDIA, 0), INFINI_STATUS_SUCCESS);
        const CUcontext primary = PrimaryContext();
        CUdevice dev = 0;
        ASSERT_EQ(nativeApi().cuDeviceGet(&dev, 0), CUDA_SUCCESS);
        /* The caller's own contexts, pushed on top of the primary one: [own2, own1, primary]. */
        CUcontext own1 = nullptr, own2 = nullptr;
        ASSERT_EQ(extra.cuCtxCreate(&own1, 0, dev), CUDA_SUCCESS);
        ASSERT_EQ(extra.cuCtxCreate(&own2, 0, dev), CUDA_SUCCESS);
        const std::vector<CUcontext> stack = ContextStack();
        ASSERT_EQ(stack, (std::vector<CUcontext>{own2, own1, primary}));

        const size_t n = 1 << 20;
        std::vector<unsigned char> host(n, 7), back(n, 0);
        int count = 0;
        size_t free_bytes = 0, total = 0;
        infinirtDeviceProperties_t props{};
        props.struct_size = sizeof props;
        infinirtDeviceResourceSnapshot_t snapshot{};
        void *dev_buf = nullptr, *async_buf = nullptr, *pinned = nullptr;
        infinirtStream_t stream = nullptr;
        infinirtEvent_t start = nullptr, end = nullptr;
        infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
        float ms = -1.0f;

        EXPECT_CALL_KEEPS_STACK(infinirtGetDeviceCount(INFINI_DEVICE_NVIDIA, &count), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtGetDeviceProperties(INFINI_DEVICE_NVIDIA, 0, &props), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtGetMemInfo(INFINI_DEVICE_NVIDIA, 0, &free_bytes, &total), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtGetDeviceResourceSnapshot(INFINI_DEVICE_NVIDIA, 0, &snapshot), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtMalloc(&dev_buf, n), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtMallocHost(&pinned, n), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtStreamCreate(&stream), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtEventCreate(&start), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtEventCreateWithFlags(&end, INFINIRT_EVENT_BLOCKING_SYNC), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtMemcpy(dev_buf, host.data(), n, INFINIRT_MEMCPY_H2D), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtMemset(dev_buf, 3, n / 2), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtEventRecord(start, stream), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtMemcpyAsync(pinned, dev_buf, n, INFINIRT_MEMCPY_DEFAULT, stream), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtMemsetAsync(dev_buf, 9, 16, stream), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtMallocAsync(&async_buf, n, stream), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtMemcpyAsync(async_buf, dev_buf, n, INFINIRT_MEMCPY_D2D, stream), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtFreeAsync(async_buf, stream), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtEventRecord(end, stream), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtStreamWaitEvent(nullptr, end), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtEventRecord(end, nullptr), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtStreamSynchronize(stream), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtStreamQuery(stream), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtEventSynchronize(end), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtEventQuery(end, &status), stack);
        EXPECT_EQ(status, INFINIRT_EVENT_COMPLETE);
        EXPECT_CALL_KEEPS_STACK(infinirtEventElapsedTime(&ms, start, end), stack);
        EXPECT_GE(ms, 0.0f);
        EXPECT_CALL_KEEPS_STACK(infinirtDeviceSynchronize(), stack);
        EXPECT_EQ(static_cast<unsigned char *>(pinned)[n / 2 - 1], 3);
        EXPECT_EQ(static_cast<unsigned char *>(pinned)[n / 2], 7);

        infinirtGraph_t graph = nullptr;
        infinirtGraphExec_t exec = nullptr;
        EXPECT_CALL_KEEPS_STACK(infinirtStreamBeginCapture(stream, INFINIRT_STREAM_CAPTURE_MODE_THREAD_LOCAL), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtMemsetAsync(dev_buf, 5, n, stream), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtStreamEndCapture(stream, &graph), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtGraphInstantiate(&exec, graph, nullptr, nullptr, 0), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtGraphLaunch(exec, stream), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtStreamSynchronize(stream), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtMemcpy(back.data(), dev_buf, n, INFINIRT_MEMCPY_D2H), stack);
        EXPECT_EQ(back[0], 5);
        EXPECT_EQ(back[n - 1], 5);
        EXPECT_CALL_KEEPS_STACK(infinirtGraphExecDestroy(exec), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtGraphDestroy(graph), stack);

        /* infinirt memory lives in the primary context, not in the caller's current one. */
        CUcontext owner = nullptr;
        ASSERT_EQ(extra.cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT,
                                              static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(dev_buf))),
                  CUDA_SUCCESS);
        EXPECT_EQ(owner, primary);

        EXPECT_CALL_KEEPS_STACK(infinirtEventDestroy(start), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtEventDestroy(end), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtStreamDestroy(stream), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtFreeHost(pinned), stack);
        EXPECT_CALL_KEEPS_STACK(infinirtFree(dev_buf), stack);

        EXPECT_EQ(extra.cuCtxDestroy(own2), CUDA_SUCCESS);
        EXPECT_EQ(extra.cuCtxDestroy(own1), CUDA_SUCCESS);
        EXPECT_EQ(ContextStack(), (std::vector<CUcontext>{primary}));
    });
}

/* Documented: SetDevice replaces the top of the stack with the primary context, exactly as
 * cudaSetDevice does, so that CUDA-runtime code after it runs where infinirt's work runs. */
TEST(CudaContextCoexistence, SetDeviceReplacesTheTopLikeCudaSetDevice) {
    SKIP_WITHOUT_CUDA_DEVICE();
    InFreshThread([] {
        const cuda_test::Extra extra = cuda_test::ExtraEntryPoints();
        CUdevice dev = 0;
        ASSERT_EQ(nativeApi().cuDeviceGet(&dev, 0), CUDA_SUCCESS);
        CUcontext own = nullptr;
        ASSERT_EQ(extra.cuCtxCreate(&own, 0, dev), CUDA_SUCCESS);
        ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_NVIDIA, 0), INFINI_STATUS_SUCCESS);
        EXPECT_EQ(ContextStack(), (std::vector<CUcontext>{PrimaryContext()}));
        EXPECT_EQ(extra.cuCtxDestroy(own), CUDA_SUCCESS);
    });
}

/* A thread that never called SetDevice has no current context, and keeps none: infinirt pushes
 * the primary context for each call and pops it after. */
TEST(CudaContextCoexistence, EmptyStackStaysEmpty) {
    SKIP_WITHOUT_CUDA_DEVICE();
    InFreshThread([] {
        infiniDevice_t type = INFINI_DEVICE_CPU;
        int id = -1;
        ASSERT_EQ(infinirtGetDevice(&type, &id), INFINI_STATUS_SUCCESS);
        if (type != INFINI_DEVICE_NVIDIA) {
            GTEST_SKIP() << "the process default device is not a CUDA device (INFINICORE_DEFAULT_DEVICE?)";
        }
        const std::vector<CUcontext> empty;
        ASSERT_EQ(ContextStack(), empty);
        const size_t n = 4096;
        std::vector<unsigned char> host(n, 1), back(n, 0);
        void *p = nullptr;
        infinirtStream_t stream = nullptr;
        infinirtEvent_t event = nullptr;
        EXPECT_CALL_KEEPS_STACK(infinirtMalloc(&p, n), empty);
        EXPECT_CALL_KEEPS_STACK(infinirtStreamCreate(&stream), empty);
        EXPECT_CALL_KEEPS_STACK(infinirtEventCreate(&event), empty);
        EXPECT_CALL_KEEPS_STACK(infinirtMemcpyAsync(p, host.data(), n, INFINIRT_MEMCPY_H2D, nullptr), empty);
        EXPECT_CALL_KEEPS_STACK(infinirtMemsetAsync(p, 4, 16, nullptr), empty);
        EXPECT_CALL_KEEPS_STACK(infinirtEventRecord(event, nullptr), empty);
        EXPECT_CALL_KEEPS_STACK(infinirtStreamWaitEvent(stream, event), empty);
        EXPECT_CALL_KEEPS_STACK(infinirtMemcpyAsync(back.data(), p, n, INFINIRT_MEMCPY_DEFAULT, stream), empty);
        EXPECT_CALL_KEEPS_STACK(infinirtStreamSynchronize(stream), empty);
        EXPECT_CALL_KEEPS_STACK(infinirtStreamSynchronize(nullptr), empty);
        EXPECT_CALL_KEEPS_STACK(infinirtDeviceSynchronize(), empty);
        EXPECT_EQ(back[0], 4);
        EXPECT_EQ(back[n - 1], 1);
        EXPECT_CALL_KEEPS_STACK(infinirtEventDestroy(event), empty);
        EXPECT_CALL_KEEPS_STACK(infinirtStreamDestroy(stream), empty);
        EXPECT_CALL_KEEPS_STACK(infinirtFree(p), empty);
    });
}

/* The premise of the plugin's fast path: calls on an explicit stream or event take the context
 * from the handle, whatever context is current (or none). */
TEST(CudaContextCoexistence, DriverTakesTheContextFromStreamAndEventHandles) {
    SKIP_WITHOUT_CUDA_DEVICE();
    InFreshThread([] {
        const cuda_test::Extra extra = cuda_test::ExtraEntryPoints();
        CUdevice dev = 0;
        ASSERT_EQ(nativeApi().cuDeviceGet(&dev, 0), CUDA_SUCCESS);
        CUcontext a = nullptr, b = nullptr;
        ASSERT_EQ(extra.cuCtxCreate(&a, 0, dev), CUDA_SUCCESS);
        CUstream s = nullptr;
        CUevent e = nullptr;
        CUdeviceptr buf = 0;
        ASSERT_EQ(nativeApi().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
        ASSERT_EQ(nativeApi().cuEventCreate(&e, 0), CUDA_SUCCESS);
        ASSERT_EQ(nativeApi().cuMemAlloc(&buf, 1 << 16), CUDA_SUCCESS);
        CUcontext popped = nullptr;
        ASSERT_EQ(nativeApi().cuCtxPopCurrent(&popped), CUDA_SUCCESS);
        ASSERT_EQ(Current(), nullptr);
        for (int round = 0; round < 2; ++round) { /* round 0: no context; round 1: another one */
            EXPECT_EQ(nativeApi().cuMemsetD8Async(buf, 1, 1 << 16, s), CUDA_SUCCESS) << "round " << round;
            EXPECT_EQ(nativeApi().cuMemcpyAsync(buf + 1024, buf, 1024, s), CUDA_SUCCESS) << "round " << round;
            EXPECT_EQ(nativeApi().cuEventRecord(e, s), CUDA_SUCCESS) << "round " << round;
            CUresult q = nativeApi().cuStreamQuery(s);
            EXPECT_TRUE(q == CUDA_SUCCESS || q == CUDA_ERROR_NOT_READY) << "round " << round << ": " << q;
            q = nativeApi().cuEventQuery(e);
            EXPECT_TRUE(q == CUDA_SUCCESS || q == CUDA_ERROR_NOT_READY) << "round " << round << ": " << q;
            EXPECT_EQ(nativeApi().cuStreamSynchronize(s), CUDA_SUCCESS) << "round " << round;
            EXPECT_EQ(nativeApi().cuEventSynchronize(e), CUDA_SUCCESS) << "round " << round;
            if (round == 0) {
                ASSERT_EQ(extra.cuCtxCreate(&b, 0, dev), CUDA_SUCCESS);
            }
        }
        EXPECT_EQ(extra.cuCtxDestroy(b), CUDA_SUCCESS);
        ASSERT_EQ(nativeApi().cuCtxPushCurrent(a), CUDA_SUCCESS);
        EXPECT_EQ(nativeApi().cuMemFree(buf), CUDA_SUCCESS);
        EXPECT_EQ(extra.cuCtxDestroy(a), CUDA_SUCCESS);
    });
}

/* infinirtPushDevice / infinirtPopDevice give the caller back exactly the context state it had:
 * a context of its own (cuCtxCreate) with its whole stack below, or no context at all; Pop never
 * creates or retains a context. */
TEST(CudaDeviceStack, PopGivesBackTheCallersOwnContext) {
    SKIP_WITHOUT_CUDA_DEVICE();
    InFreshThread([] {
        const cuda_test::Extra extra = cuda_test::ExtraEntryPoints();
        ASSERT_NE(extra.cuCtxCreate, nullptr);
        CUdevice dev = 0;
        ASSERT_EQ(nativeApi().cuDeviceGet(&dev, 0), CUDA_SUCCESS);
        CUcontext own1 = nullptr, own2 = nullptr;
        ASSERT_EQ(extra.cuCtxCreate(&own1, 0, dev), CUDA_SUCCESS);
        ASSERT_EQ(extra.cuCtxCreate(&own2, 0, dev), CUDA_SUCCESS);
        const std::vector<CUcontext> stack = ContextStack();
        ASSERT_EQ(stack, (std::vector<CUcontext>{own2, own1}));

        ASSERT_EQ(infinirtPushDevice(INFINI_DEVICE_NVIDIA, 0), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
        EXPECT_EQ(ContextStack(), (std::vector<CUcontext>{PrimaryContext(), own1}));
        /* cpu:0 over it changes no CUDA state; popping it keeps the primary context. */
        ASSERT_EQ(infinirtPushDevice(INFINI_DEVICE_CPU, 0), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtPopDevice(nullptr, nullptr), INFINI_STATUS_SUCCESS);
        EXPECT_EQ(ContextStack(), (std::vector<CUcontext>{PrimaryContext(), own1}));
        ASSERT_EQ(infinirtPopDevice(nullptr, nullptr), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
        EXPECT_EQ(ContextStack(), stack);

        EXPECT_EQ(extra.cuCtxDestroy(own2), CUDA_SUCCESS);
        EXPECT_EQ(extra.cuCtxDestroy(own1), CUDA_SUCCESS);
    });
}

TEST(CudaDeviceStack, PopRestoresNoContext) {
    SKIP_WITHOUT_CUDA_DEVICE();
    InFreshThread([] {
        const std::vector<CUcontext> empty;
        ASSERT_EQ(ContextStack(), empty);
        ASSERT_EQ(infinirtPushDevice(INFINI_DEVICE_NVIDIA, 0), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
        EXPECT_EQ(ContextStack(), (std::vector<CUcontext>{PrimaryContext()}));
        ASSERT_EQ(infinirtPopDevice(nullptr, nullptr), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
        EXPECT_EQ(ContextStack(), empty);
    });
}

} // namespace
