// Waits that fail for a reason of their own (clWaitForEvents, clFinish answering
// CL_OUT_OF_HOST_MEMORY at once, through failing_waits_shim.c as the ICD loader) still return only
// once the work they waited for has ended, so that nothing is freed under queued work: a failed
// EventSynchronize or synchronous Memcpy has waited, and a failed StreamDestroy leaves its stream
// usable.
#include <infinirt.h>

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstring>
#include <vector>

namespace {

constexpr size_t kBytes = size_t{32} << 20;
constexpr int kFills = 24; // queued work that takes a while on a cpu OpenCL device

class FailingWaits : public ::testing::Test {
protected:
    void SetUp() override {
        int count = 0;
        if (infinirtGetDeviceCount(INFINI_DEVICE_OPENCL, &count) != INFINI_STATUS_SUCCESS || count == 0) {
            GTEST_SKIP() << "no opencl device";
        }
        void *shim = dlopen(FAILING_WAITS_SHIM, RTLD_NOW | RTLD_NOLOAD);
        ASSERT_NE(shim, nullptr) << "the plugin did not load " FAILING_WAITS_SHIM " (INFINIRT_OPENCL_LIBRARY)";
        flag_ = static_cast<int *>(dlsym(shim, "infinirt_test_failing_waits"));
        ASSERT_NE(flag_, nullptr);
        ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_OPENCL, 0), INFINI_STATUS_SUCCESS);
        ASSERT_EQ(infinirtStreamCreate(&stream_), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
        ASSERT_EQ(infinirtMalloc(&buffer_, kBytes), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    }
    void TearDown() override {
        if (flag_ != nullptr) {
            failWaits(false);
        }
        if (stream_ != nullptr) {
            EXPECT_EQ(infinirtStreamDestroy(stream_), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
        }
        if (buffer_ != nullptr) {
            EXPECT_EQ(infinirtFree(buffer_), INFINI_STATUS_SUCCESS);
        }
    }
    void failWaits(bool on) { __atomic_store_n(flag_, on ? 1 : 0, __ATOMIC_RELEASE); }
    void queueFills(infinirtStream_t s) {
        for (int i = 0; i < kFills; ++i) {
            ASSERT_EQ(infinirtMemsetAsync(buffer_, i + 1, kBytes, s), INFINI_STATUS_SUCCESS);
        }
    }

    int *flag_ = nullptr;
    infinirtStream_t stream_ = nullptr;
    void *buffer_ = nullptr;
};

TEST_F(FailingWaits, EventSynchronizeReturnsOnlyOnceTheWorkEnded) {
    infinirtEvent_t done = nullptr;
    ASSERT_EQ(infinirtEventCreate(&done), INFINI_STATUS_SUCCESS);
    queueFills(stream_);
    ASSERT_EQ(infinirtEventRecord(done, stream_), INFINI_STATUS_SUCCESS);
    failWaits(true);
    EXPECT_NE(infinirtEventSynchronize(done), INFINI_STATUS_SUCCESS) << "the shim's failure was not reported";
    failWaits(false);
    infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
    ASSERT_EQ(infinirtEventQuery(done, &status), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    EXPECT_EQ(status, INFINIRT_EVENT_COMPLETE) << "the failed synchronize returned before the work ended";
    EXPECT_EQ(infinirtEventDestroy(done), INFINI_STATUS_SUCCESS);
}

TEST_F(FailingWaits, SynchronousCopyReturnsOnlyOnceTheCopyEnded) {
    queueFills(nullptr); // the default stream, which the synchronous copy follows
    std::vector<unsigned char> host(kBytes, 0);
    failWaits(true);
    EXPECT_NE(infinirtMemcpy(host.data(), buffer_, kBytes, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    failWaits(false);
    // Whatever the failed copy queued has ended: nothing writes `host` after it returned.
    const std::vector<unsigned char> at_return = host;
    ASSERT_EQ(infinirtDeviceSynchronize(), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    EXPECT_TRUE(host == at_return) << "the failed copy was still writing after it returned";
}

TEST_F(FailingWaits, FailedStreamDestroyLeavesAUsableStream) {
    queueFills(stream_);
    failWaits(true);
    EXPECT_NE(infinirtStreamDestroy(stream_), INFINI_STATUS_SUCCESS) << "the shim's failure was not reported";
    failWaits(false);
    EXPECT_EQ(infinirtMemsetAsync(buffer_, 0x5a, 64, stream_), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    EXPECT_EQ(infinirtStreamSynchronize(stream_), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
    unsigned char back[64] = {};
    ASSERT_EQ(infinirtMemcpy(back, buffer_, sizeof back, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(back[0], 0x5a);
}

} // namespace
