// The fast paths of MemcpyAsync and MemsetAsync on an explicit stream answer their pointers from
// the calling thread's lookup cache alone, which never holds NULL, and hand everything they cannot
// decide to the general path (api_memory.cpp). Over the cpu plugin (CMakeLists.txt), a warm thread
// (every pointer cached) still gets the general path's refusals and messages, and copies between
// memory of two devices, or ranges that leave an allocation, still go where the general path sends
// them.
#include "status_assertions.h"

#include <string>
#include <vector>

namespace {

class StreamFastPath : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_OK(infinirtSetDevice(INFINI_DEVICE_CPU, 0));
        ASSERT_OK(infinirtStreamCreate(&stream_));
        ASSERT_OK(infinirtMalloc(&dev_, 64));
        for (int i = 0; i < 4; ++i) { // the lookups are answered from the thread's cache after the first
            ASSERT_OK(infinirtMemcpyAsync(dev_, host_.data(), 64, INFINIRT_MEMCPY_H2D, stream_));
            ASSERT_OK(infinirtMemsetAsync(dev_, 0, 64, stream_));
        }
    }
    void TearDown() override {
        EXPECT_OK(infinirtStreamSynchronize(stream_));
        EXPECT_OK(infinirtStreamDestroy(stream_));
        EXPECT_OK(infinirtFree(dev_));
    }
    infinirtStream_t stream_ = nullptr;
    void *dev_ = nullptr;
    std::vector<unsigned char> host_ = std::vector<unsigned char>(128, 0x3c);
};

TEST_F(StreamFastPath, WarmCallsRefuseNull) {
    infinirt_test::Outcome dst =
        infinirt_test::Capture(infinirtMemcpyAsync(nullptr, host_.data(), 64, INFINIRT_MEMCPY_H2D, stream_));
    EXPECT_EQ(dst.status, INFINI_STATUS_NULL_POINTER);
    EXPECT_NE(dst.message.find("dst"), std::string::npos) << dst.message;
    infinirt_test::Outcome src =
        infinirt_test::Capture(infinirtMemcpyAsync(dev_, nullptr, 64, INFINIRT_MEMCPY_H2D, stream_));
    EXPECT_EQ(src.status, INFINI_STATUS_NULL_POINTER);
    EXPECT_NE(src.message.find("src"), std::string::npos) << src.message;
    infinirt_test::Outcome fill = infinirt_test::Capture(infinirtMemsetAsync(nullptr, 0, 64, stream_));
    EXPECT_EQ(fill.status, INFINI_STATUS_NULL_POINTER);
    EXPECT_NE(fill.message.find("ptr"), std::string::npos) << fill.message;
}

TEST_F(StreamFastPath, WarmCallsCheckRanges) {
    infinirt_test::Outcome copy =
        infinirt_test::Capture(infinirtMemcpyAsync(dev_, host_.data(), 65, INFINIRT_MEMCPY_H2D, stream_));
    EXPECT_EQ(copy.status, INFINI_STATUS_BAD_PARAM);
    EXPECT_NE(copy.message.find("infinirtMemcpyAsync: dst range"), std::string::npos) << copy.message;
    infinirt_test::Outcome fill =
        infinirt_test::Capture(infinirtMemsetAsync(static_cast<char *>(dev_) + 8, 0, 57, stream_));
    EXPECT_EQ(fill.status, INFINI_STATUS_BAD_PARAM);
    EXPECT_NE(fill.message.find("infinirtMemsetAsync: ptr range"), std::string::npos) << fill.message;
    // Within the allocation, from its middle: the fast path's own check lets it through.
    ASSERT_OK(infinirtMemsetAsync(static_cast<char *>(dev_) + 8, 0x7e, 56, stream_));
    std::vector<unsigned char> back(64, 0);
    ASSERT_OK(infinirtMemcpyAsync(back.data(), dev_, 64, INFINIRT_MEMCPY_D2H, stream_));
    ASSERT_OK(infinirtStreamSynchronize(stream_));
    EXPECT_EQ(std::vector<unsigned char>(back.begin(), back.begin() + 8), std::vector<unsigned char>(8, 0));
    EXPECT_EQ(std::vector<unsigned char>(back.begin() + 8, back.end()), std::vector<unsigned char>(56, 0x7e));
}

TEST_F(StreamFastPath, AnotherDevicesMemoryTakesTheGeneralPath) {
    int count = 0;
    ASSERT_OK(infinirtGetDeviceCount(INFINI_DEVICE_CPU, &count));
    if (count < 2) {
        GTEST_SKIP() << "needs two cpu devices (INFINIRT_CPU_DEVICE_COUNT=2)";
    }
    ASSERT_OK(infinirtSetDevice(INFINI_DEVICE_CPU, 1));
    void *other = nullptr;
    ASSERT_OK(infinirtMalloc(&other, 64));
    ASSERT_OK(infinirtSetDevice(INFINI_DEVICE_CPU, 0));
    for (int i = 0; i < 3; ++i) { // warm: both pointers cached, the second of another device
        ASSERT_OK(infinirtMemcpyAsync(other, dev_, 64, INFINIRT_MEMCPY_DEFAULT, stream_));
    }
    ASSERT_OK(infinirtStreamSynchronize(stream_));
    std::vector<unsigned char> back(64, 1);
    ASSERT_OK(infinirtMemcpy(back.data(), other, 64, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(back, std::vector<unsigned char>(64, 0));
    // The copy noted stream_'s device as a user of `other`: the free waits for it and succeeds.
    ASSERT_OK(infinirtFree(other));
}

} // namespace
