// infinirtGetDeviceTypeName: every infiniDevice_t named as the project spells it elsewhere
// (INFINICORE_DEFAULT_DEVICE, infinirt-info, the Python package), "unknown" outside the range,
// never NULL, and no last error written.
#include "status_assertions.h"

#include <climits>
#include <string>

namespace {

TEST(DeviceTypeName, EveryTypeHasItsName) {
    static const char *const kExpected[] = {"cpu",    "nvidia", "cambricon", "ascend", "metax",
                                            "moore",  "iluvatar", "kunlun",  "hygon",  "qy",
                                            "ali",    "amd",    "opencl",    "vulkan"};
    constexpr int kKnown = static_cast<int>(sizeof kExpected / sizeof kExpected[0]);
    ASSERT_LE(INFINI_DEVICE_TYPE_COUNT, kKnown) << "a new device type needs its name in this test";
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        const char *name = infinirtGetDeviceTypeName(static_cast<infiniDevice_t>(t));
        ASSERT_NE(name, nullptr) << t;
        EXPECT_STREQ(name, kExpected[t]) << t;
    }
    EXPECT_STREQ(infinirtGetDeviceTypeName(INFINI_DEVICE_CPU), "cpu");
    EXPECT_STREQ(infinirtGetDeviceTypeName(INFINI_DEVICE_NVIDIA), "nvidia");
    EXPECT_STREQ(infinirtGetDeviceTypeName(INFINI_DEVICE_AMD), "amd");
    EXPECT_STREQ(infinirtGetDeviceTypeName(INFINI_DEVICE_OPENCL), "opencl");
}

TEST(DeviceTypeName, OutOfRangeIsUnknown) {
    for (int t : {-1, INT_MIN, static_cast<int>(INFINI_DEVICE_TYPE_COUNT), 99, INT_MAX}) {
        const char *name = infinirtGetDeviceTypeName(static_cast<infiniDevice_t>(t));
        ASSERT_NE(name, nullptr) << t;
        EXPECT_STREQ(name, "unknown") << t;
    }
}

TEST(DeviceTypeName, NeverTouchesTheLastError) {
    int id = 0;
    EXPECT_EQ(infinirtGetDevice(nullptr, &id), INFINI_STATUS_NULL_POINTER);
    const std::string before = infinirtGetLastErrorMessage();
    ASSERT_FALSE(before.empty());
    (void)infinirtGetDeviceTypeName(static_cast<infiniDevice_t>(-5));
    (void)infinirtGetDeviceTypeName(INFINI_DEVICE_CPU);
    EXPECT_EQ(before, infinirtGetLastErrorMessage());
}

} // namespace
