// The NULL stream (the current device's default stream) in the cases its fast path hands to the
// general path, over the cpu plugin, each in a process of its own (CMakeLists.txt):
//  NullStreamFirstCall  the process's first infinirt call is a NULL-stream MemsetAsync, then a
//                       MemcpyAsync: the loader initialises there and the thread takes the process
//                       default device;
//  NullStreamThreads    a thread that never chose a device copies on the NULL stream (its default
//                       device's), and a warm thread's copies and fills (answered from the lookup
//                       cache) still check their ranges and arguments, with the general path's
//                       messages.
#include "status_assertions.h"

#include <string>
#include <thread>
#include <vector>

namespace {

TEST(NullStreamFirstCall, InitialisesAndTakesTheDefaultDevice) {
    std::vector<unsigned char> host(256, 0xab);
    ASSERT_OK(infinirtMemsetAsync(host.data(), 0x11, host.size(), nullptr));
    std::vector<unsigned char> copy(256, 0);
    ASSERT_OK(infinirtMemcpyAsync(copy.data(), host.data(), copy.size(), INFINIRT_MEMCPY_DEFAULT, nullptr));
    ASSERT_OK(infinirtStreamSynchronize(nullptr));
    EXPECT_EQ(copy, std::vector<unsigned char>(256, 0x11));
    infiniDevice_t type = INFINI_DEVICE_TYPE_COUNT;
    int id = -1;
    ASSERT_OK(infinirtGetDevice(&type, &id));
    EXPECT_EQ(type, INFINI_DEVICE_CPU);
    EXPECT_EQ(id, 0);
}

TEST(NullStreamThreads, AThreadWithoutADeviceCopiesOnItsDefault) {
    void *dev = nullptr;
    ASSERT_OK(infinirtMalloc(&dev, 64));
    std::vector<unsigned char> in(64, 0x5a);
    std::vector<unsigned char> out(64, 0);
    infiniStatus_t copied_in = INFINI_STATUS_INTERNAL_ERROR;
    infiniStatus_t copied_out = INFINI_STATUS_INTERNAL_ERROR;
    infiniStatus_t synced = INFINI_STATUS_INTERNAL_ERROR;
    std::thread([&] {
        copied_in = infinirtMemcpyAsync(dev, in.data(), 64, INFINIRT_MEMCPY_H2D, nullptr);
        copied_out = infinirtMemcpyAsync(out.data(), dev, 64, INFINIRT_MEMCPY_D2H, nullptr);
        synced = infinirtStreamSynchronize(nullptr);
    }).join();
    EXPECT_EQ(copied_in, INFINI_STATUS_SUCCESS);
    EXPECT_EQ(copied_out, INFINI_STATUS_SUCCESS);
    EXPECT_EQ(synced, INFINI_STATUS_SUCCESS);
    EXPECT_EQ(out, in);
    ASSERT_OK(infinirtFree(dev));
}

TEST(NullStreamThreads, WarmCallsStillCheckRanges) {
    ASSERT_OK(infinirtSetDevice(INFINI_DEVICE_CPU, 0));
    void *dev = nullptr;
    ASSERT_OK(infinirtMalloc(&dev, 64));
    std::vector<unsigned char> host(128, 0);
    for (int i = 0; i < 4; ++i) { // the lookups are answered from the thread's cache after the first
        ASSERT_OK(infinirtMemcpyAsync(dev, host.data(), 64, INFINIRT_MEMCPY_H2D, nullptr));
        ASSERT_OK(infinirtMemsetAsync(dev, 0, 64, nullptr));
    }
    infinirt_test::Outcome copy =
        infinirt_test::Capture(infinirtMemcpyAsync(dev, host.data(), 65, INFINIRT_MEMCPY_H2D, nullptr));
    EXPECT_EQ(copy.status, INFINI_STATUS_BAD_PARAM);
    EXPECT_NE(copy.message.find("infinirtMemcpyAsync: dst range"), std::string::npos) << copy.message;
    infinirt_test::Outcome fill =
        infinirt_test::Capture(infinirtMemsetAsync(static_cast<char *>(dev) + 8, 0, 57, nullptr));
    EXPECT_EQ(fill.status, INFINI_STATUS_BAD_PARAM);
    EXPECT_NE(fill.message.find("infinirtMemsetAsync: ptr range"), std::string::npos) << fill.message;
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtMemsetAsync(nullptr, 0, 64, nullptr));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM,
                  infinirtMemcpyAsync(dev, host.data(), 64, static_cast<infinirtMemcpyKind_t>(7), nullptr));
    ASSERT_OK(infinirtStreamSynchronize(nullptr));
    ASSERT_OK(infinirtFree(dev));
}

} // namespace
