// The thread's device stack: infinirtPushDevice / infinirtPopDevice.
#include "device_test.h"

#include <thread>

namespace infinirt_test {
namespace {

class DeviceStack : public DeviceTest {};

// What infinirtGetDevice says now.
DeviceParam Current() {
    DeviceParam d;
    d.type = INFINI_DEVICE_TYPE_COUNT;
    d.id = -1;
    EXPECT_OK(infinirtGetDevice(&d.type, &d.id));
    return d;
}

// A device of another backend to push over the device under test: cpu:0 where the cpu backend is
// loaded, else the first device of any other backend, else the device under test itself (a run
// with one backend only, such as INFINIRT_BACKENDS=cuda).
DeviceParam Other(const DeviceParam &self) {
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        const int type = (t + INFINI_DEVICE_CPU) % INFINI_DEVICE_TYPE_COUNT; // cpu first
        int count = 0;
        if (type != self.type && infinirtGetDeviceCount(static_cast<infiniDevice_t>(type), &count) ==
                                     INFINI_STATUS_SUCCESS && count > 0) {
            DeviceParam d;
            d.type = static_cast<infiniDevice_t>(type);
            d.id = 0;
            return d;
        }
    }
    return self;
}

TEST_P(DeviceStack, PushMakesCurrentAndPopRestores) {
    ASSERT_OK(infinirtPushDevice(type(), id()));
    EXPECT_EQ(Current().type, type());
    EXPECT_EQ(Current().id, id());
    infiniDevice_t t = INFINI_DEVICE_TYPE_COUNT;
    int i = -1;
    ASSERT_OK(infinirtPopDevice(&t, &i));
    EXPECT_EQ(t, type());
    EXPECT_EQ(i, id());
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtPopDevice(nullptr, nullptr));
}

TEST_P(DeviceStack, NestsAndCrossesBackends) {
    // Another backend's device over the device under test, and the device under test over it.
    const DeviceParam other = Other(GetParam());
    ASSERT_OK(infinirtPushDevice(other.type, other.id));
    EXPECT_EQ(Current().type, other.type);
    ASSERT_OK(infinirtPushDevice(type(), id()));
    EXPECT_EQ(Current().type, type());
    infiniDevice_t t = INFINI_DEVICE_TYPE_COUNT;
    int i = -1;
    ASSERT_OK(infinirtPopDevice(&t, &i));
    EXPECT_EQ(t, other.type);
    EXPECT_EQ(i, other.id);
    ASSERT_OK(infinirtPopDevice(&t, nullptr));
    EXPECT_EQ(t, type());
    ASSERT_OK(infinirtGetDevice(&t, &i));
    EXPECT_EQ(t, type());
    EXPECT_EQ(i, id());
    // The device works after the round trip.
    if (!Declares(Feature::kMemory)) {
        return;
    }
    void *p = nullptr;
    ASSERT_OK(infinirtMalloc(&p, 64));
    EXPECT_OK(infinirtMemset(p, 1, 64));
    EXPECT_OK(infinirtFree(p));
}

TEST_P(DeviceStack, HoldsSixtyFourEntriesAndRefusesMore) {
    const DeviceParam other = Other(GetParam());
    int pushed = 0;
    Defer pop_all([&] {
        while (pushed-- > 0) {
            infinirtPopDevice(nullptr, nullptr);
        }
    });
    for (; pushed < 64; ++pushed) {
        ASSERT_OK(infinirtPushDevice(pushed % 2 == 0 ? type() : other.type, pushed % 2 == 0 ? id() : other.id))
            << "push #" << pushed;
    }
    EXPECT_REFUSED(infinirtPushDevice(type(), id()));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtPushDevice(type(), id()));
    for (int k = 63; k >= 0; --k) {
        infiniDevice_t t = INFINI_DEVICE_TYPE_COUNT;
        ASSERT_OK(infinirtPopDevice(&t, nullptr));
        --pushed;
        // After popping push #k the current device is what push #k-1 made current.
        EXPECT_EQ(t, k == 0 ? type() : ((k - 1) % 2 == 0 ? type() : other.type));
    }
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtPopDevice(nullptr, nullptr));
}

TEST_P(DeviceStack, RefusedPushChangesNothing) {
    int count = 0;
    ASSERT_OK(infinirtGetDeviceCount(type(), &count));
    EXPECT_REFUSED(infinirtPushDevice(type(), count));
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtPushDevice(type(), count));
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtPushDevice(type(), -1));
    EXPECT_STATUS(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED,
                  infinirtPushDevice(static_cast<infiniDevice_t>(INFINI_DEVICE_TYPE_COUNT), 0));
    EXPECT_STATUS(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED, infinirtPushDevice(static_cast<infiniDevice_t>(-1), 0));
    EXPECT_EQ(Current().type, type());
    EXPECT_EQ(Current().id, id());
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtPopDevice(nullptr, nullptr)) << "a refused push pushed something";
}

TEST_P(DeviceStack, EmptyPopWritesNothing) {
    infiniDevice_t t = INFINI_DEVICE_TYPE_COUNT;
    int i = -7;
    EXPECT_REFUSED(infinirtPopDevice(&t, &i));
    EXPECT_EQ(t, INFINI_DEVICE_TYPE_COUNT);
    EXPECT_EQ(i, -7);
}

TEST_P(DeviceStack, IsPerThread) {
    const DeviceParam other = Other(GetParam());
    ASSERT_OK(infinirtPushDevice(type(), id()));
    Defer pop([] { infinirtPopDevice(nullptr, nullptr); });
    infiniStatus_t other_pop = INFINI_STATUS_SUCCESS;
    infiniStatus_t other_push = INFINI_STATUS_BAD_PARAM;
    infiniStatus_t other_pop_after = INFINI_STATUS_BAD_PARAM;
    infiniDevice_t other_type = INFINI_DEVICE_TYPE_COUNT;
    std::thread([&] {
        other_pop = infinirtPopDevice(nullptr, nullptr); // a new thread's stack is empty
        other_push = infinirtPushDevice(other.type, other.id);
        other_pop_after = infinirtPopDevice(&other_type, nullptr);
    }).join();
    EXPECT_EQ(other_pop, INFINI_STATUS_BAD_PARAM);
    EXPECT_EQ(other_push, INFINI_STATUS_SUCCESS);
    EXPECT_EQ(other_pop_after, INFINI_STATUS_SUCCESS);
    // This thread's entry is still there.
    EXPECT_EQ(Current().type, type());
    pop.Cancel();
    EXPECT_OK(infinirtPopDevice(nullptr, nullptr));
}

INSTANTIATE_ON_ALL_DEVICES(DeviceStack);

} // namespace
} // namespace infinirt_test
