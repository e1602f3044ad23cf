// Suite ThreadState: the device stack's plugin protocol (infinirtPushDevice / infinirtPopDevice
// with thread_state_save, thread_state_restore and set_device_saving), on a stub whose native
// per-thread state is a thread-local value (stubs/stub_thread_state.c).
//
// Run twice (see CMakeLists.txt), with the cpu plugin and one build of the stub: tsfused (with
// set_device_saving: the fused push) and tsunfused (without it: thread_state_save, then
// set_device). The suite finds which one the loader loaded; the cpu plugin, which has no native
// thread state, gives the third path (a push that is a set_device).
#include "loader_test_util.h"
#include "status_assertions.h"

#include <dlfcn.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace infinirt_loader_test {
namespace {

using infinirt_test::Capture;
using infinirt_test::Outcome;

constexpr infiniDevice_t kStub = INFINI_DEVICE_ASCEND;
// The stub's native value on a thread that never set one (STUB_TS_CALLER_OWN).
constexpr intptr_t kCallerOwn = 1000;
// What the tests make the calling thread's native state before pushing: a context of its own.
constexpr intptr_t kSentinel = 4242;
constexpr int kStackDepth = 64;
constexpr const char *kDetail = "native switch refused (marker 9301)";

struct Device {
    infiniDevice_t type;
    int id;
    bool operator==(const Device &other) const { return type == other.type && id == other.id; }
};

std::ostream &operator<<(std::ostream &os, const Device &d) { return os << d.type << ":" << d.id; }

Device Current() {
    Device d{INFINI_DEVICE_TYPE_COUNT, -1};
    EXPECT_OK(infinirtGetDevice(&d.type, &d.id));
    return d;
}

class ThreadState : public ::testing::Test {
protected:
    void SetUp() override {
        int count = 0;
        ASSERT_OK(infinirtGetDeviceCount(kStub, &count));
        ASSERT_EQ(count, 2);
        ASSERT_OK(infinirtGetDeviceCount(INFINI_DEVICE_CPU, &count));
        ASSERT_GT(count, 0) << "the cpu plugin is not loaded";
        const std::vector<infinirtBackendInfo_t> backends = Backends();
        for (const char *path : {STUB_TS_FUSED_PATH, STUB_TS_UNFUSED_PATH}) {
            // RTLD_NOLOAD: only the copy the loader opened; the loader keeps it open.
            void *lib = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
            if (lib == nullptr) {
                continue;
            }
            native_ = reinterpret_cast<NativeFn>(dlsym(lib, "stubThreadStateNative"));
            set_native_ = reinterpret_cast<SetNativeFn>(dlsym(lib, "stubThreadStateSetNative"));
            fail_ = reinterpret_cast<FailFn>(dlsym(lib, "stubThreadStateFail"));
            dlclose(lib);
            fused_ = path == std::string(STUB_TS_FUSED_PATH);
            const infinirtBackendInfo_t *info = FindByPath(backends, path);
            ASSERT_NE(info, nullptr) << path;
            name_ = info->name;
            break;
        }
        ASSERT_TRUE(native_ != nullptr && set_native_ != nullptr && fail_ != nullptr)
            << "neither " STUB_TS_FUSED_PATH " nor " STUB_TS_UNFUSED_PATH " is loaded";
        SetNative(kSentinel);
        before_ = Current();
        ASSERT_NE(before_.type, kStub) << "the process default must be another backend.s device (INFINICORE_DEFAULT_DEVICE=cpu:0)";
    }
    // A failed test leaves nothing armed and nothing on the stack for the next one.
    void TearDown() override {
        if (fail_ == nullptr) {
            return;
        }
        fail_("", nullptr);
        int popped = 0;
        while (popped < kStackDepth && infinirtPopDevice(nullptr, nullptr) == INFINI_STATUS_SUCCESS) {
            ++popped;
        }
    }

    intptr_t Native() const { return native_(); }
    void SetNative(intptr_t value) const { set_native_(value); }
    // The calling thread's next call of `entry` fails with INTERNAL_ERROR, with `detail` (or none).
    void Fail(const char *entry, const char *detail) const { fail_(entry, detail); }
    // The plugin calls of a push of the stub, in order.
    std::vector<const char *> PushCalls() const {
        if (fused_) {
            return {"set_device_saving"};
        }
        return {"thread_state_save", "set_device"};
    }

    // The stub's failure of `call` on device `id`, reported by the loader: the stub's status, and
    // a message naming the backend and the device, then the call (the stub set no detail) or the
    // stub's detail.
    void ExpectStubFailure(const Outcome &outcome, int id, const char *call, const char *detail) const {
        EXPECT_EQ(outcome.status, INFINI_STATUS_INTERNAL_ERROR) << infinirtGetErrorName(outcome.status);
        const std::string prefix = name_ + ":" + std::to_string(id) + ": ";
        const std::string rest = detail != nullptr ? std::string(detail) : std::string(call) + " failed";
        EXPECT_EQ(outcome.message.rfind(prefix + rest, 0), 0u) << outcome.message;
    }

    // Pushes `device`, which the push makes current with the stub's native value `native`.
    void PushExpecting(const Device &device, intptr_t native) const {
        EXPECT_OK(infinirtPushDevice(device.type, device.id));
        EXPECT_EQ(Native(), native);
        EXPECT_EQ(Current(), device);
    }
    // Pops; `current` is then infinirt's current device and the pop's outputs, and `native` the
    // stub's native value.
    void PopExpecting(const Device &current, intptr_t native) const {
        Device after{INFINI_DEVICE_TYPE_COUNT, -1};
        EXPECT_OK(infinirtPopDevice(&after.type, &after.id));
        EXPECT_EQ(after, current);
        EXPECT_EQ(Native(), native);
        EXPECT_EQ(Current(), current);
    }
    static void ExpectEmpty() { EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtPopDevice(nullptr, nullptr)); }

    // The details a failure is tried with: none (the loader names the call), and the stub's own.
    static std::vector<const char *> Details() { return {nullptr, kDetail}; }

    bool fused_ = false;
    std::string name_;
    Device before_{};

private:
    using NativeFn = intptr_t (*)();
    using SetNativeFn = void (*)(intptr_t);
    using FailFn = void (*)(const char *, const char *);
    NativeFn native_ = nullptr;
    SetNativeFn set_native_ = nullptr;
    FailFn fail_ = nullptr;
};

TEST_F(ThreadState, PopRestoresTheCallersNativeStateExactly) {
    PushExpecting({kStub, 1}, 1);
    PopExpecting(before_, kSentinel);
    ExpectEmpty();
}

// infinirtSetDevice between the push and the pop changes the native state (and saves nothing):
// the pop gives back what the push saved all the same.
TEST_F(ThreadState, PopRestoresOverASetDeviceInBetween) {
    PushExpecting({kStub, 0}, 0);
    ASSERT_OK(infinirtSetDevice(kStub, 1));
    EXPECT_EQ(Native(), 1);
    PopExpecting(before_, kSentinel);
}

// stub:0, cpu:0 (no native thread state), stub:1; each pop gives back the native value and the
// device of the one before, and writes the device current after it (either output may be NULL).
TEST_F(ThreadState, NestsAcrossDevicesAndBackends) {
    PushExpecting({kStub, 0}, 0);
    PushExpecting({INFINI_DEVICE_CPU, 0}, 0);
    PushExpecting({kStub, 1}, 1);
    PopExpecting({INFINI_DEVICE_CPU, 0}, 0);

    ASSERT_OK(infinirtPopDevice(nullptr, nullptr));
    EXPECT_EQ(Native(), 0);
    EXPECT_EQ(Current(), (Device{kStub, 0}));

    infiniDevice_t type = INFINI_DEVICE_TYPE_COUNT;
    ASSERT_OK(infinirtPopDevice(&type, nullptr));
    EXPECT_EQ(type, before_.type);
    EXPECT_EQ(Native(), kSentinel);
    EXPECT_EQ(Current(), before_);

    int id = -1;
    PushExpecting({kStub, 1}, 1);
    ASSERT_OK(infinirtPopDevice(nullptr, &id));
    EXPECT_EQ(id, before_.id);

    // An empty stack: nothing written.
    Device after{INFINI_DEVICE_TYPE_COUNT, -1};
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtPopDevice(&after.type, &after.id));
    EXPECT_EQ(after, (Device{INFINI_DEVICE_TYPE_COUNT, -1}));
    EXPECT_EQ(Native(), kSentinel);
}

// A push whose plugin call fails pushes nothing: the stub's status and a message, infinirt's
// current device and the native state unchanged, and the next pop pops the entry below.
TEST_F(ThreadState, FailedPushPushesNothing) {
    for (const char *call : PushCalls()) {
        for (const char *detail : Details()) {
            SCOPED_TRACE(std::string(call) + (detail != nullptr ? " with a detail" : " without a detail"));
            // Over an entry.
            PushExpecting({kStub, 0}, 0);
            Fail(call, detail);
            ExpectStubFailure(Capture(infinirtPushDevice(kStub, 1)), 1, call, detail);
            EXPECT_EQ(Current(), (Device{kStub, 0}));
            EXPECT_EQ(Native(), 0);
            PopExpecting(before_, kSentinel);
            ExpectEmpty();

            // On an empty stack.
            Fail(call, detail);
            ExpectStubFailure(Capture(infinirtPushDevice(kStub, 1)), 1, call, detail);
            EXPECT_EQ(Current(), before_);
            EXPECT_EQ(Native(), kSentinel);
            ExpectEmpty();

            // The stack works after it.
            PushExpecting({kStub, 1}, 1);
            PopExpecting(before_, kSentinel);
        }
    }
}

// The push takes the path of the stub's table: a failure armed on an entry it does not call
// (set_device and thread_state_save where set_device_saving exists) does not fail it.
TEST_F(ThreadState, PushCallsOnlyItsPathsEntries) {
    const std::vector<const char *> calls = PushCalls();
    for (const char *entry : {"set_device_saving", "thread_state_save", "set_device"}) {
        bool called = false;
        for (const char *call : calls) {
            called = called || std::string(call) == entry;
        }
        if (called) {
            continue;
        }
        SCOPED_TRACE(entry);
        Fail(entry, nullptr);
        PushExpecting({kStub, 1}, 1);
        PopExpecting(before_, kSentinel);
        Fail("", nullptr);
    }
}

// infinirtPopDevice's contract: a failure of the backend's restore returns its status and the
// entry is popped all the same (infinirt's current device is the one before the push). The
// native state is what the failed restore left (the stub changes nothing when it fails), and the
// outputs are not written.
TEST_F(ThreadState, FailedRestorePopsTheEntry) {
    for (const char *detail : Details()) {
        SCOPED_TRACE(detail != nullptr ? "with a detail" : "without a detail");
        PushExpecting({kStub, 0}, 0);
        PushExpecting({kStub, 1}, 1);
        Fail("thread_state_restore", detail);
        Device after{INFINI_DEVICE_TYPE_COUNT, -1};
        ExpectStubFailure(Capture(infinirtPopDevice(&after.type, &after.id)), 1, "thread_state_restore", detail);
        EXPECT_EQ(after, (Device{INFINI_DEVICE_TYPE_COUNT, -1}));
        EXPECT_EQ(Current(), (Device{kStub, 0}));
        EXPECT_EQ(Native(), 1);
        // The entry below is next, and gives back the caller's state.
        PopExpecting(before_, kSentinel);
        ExpectEmpty();
    }
}

// Each thread has its own stack and its own native state.
TEST_F(ThreadState, StacksAndNativeStateArePerThread) {
    PushExpecting({kStub, 1}, 1);
    std::thread other([this] {
        EXPECT_EQ(Native(), kCallerOwn);
        EXPECT_EQ(Current(), before_); // the process default, not the main thread's device
        ExpectEmpty();
        PushExpecting({kStub, 0}, 0);
        PushExpecting({kStub, 1}, 1);
        PopExpecting({kStub, 0}, 0);
        PopExpecting(before_, kCallerOwn);
        ExpectEmpty();
    });
    other.join();
    EXPECT_EQ(Native(), 1);
    EXPECT_EQ(Current(), (Device{kStub, 1}));
    PopExpecting(before_, kSentinel);
    ExpectEmpty();
}

// 64 entries; the 65th push is refused and changes nothing; the 64 pops unwind them in order.
TEST_F(ThreadState, HoldsSixtyFourEntries) {
    for (int i = 0; i < kStackDepth; ++i) {
        SCOPED_TRACE("push " + std::to_string(i));
        PushExpecting({kStub, i % 2}, i % 2);
    }
    // The last entry pushed stub:1: a push of stub:0 that touched the native state would show.
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtPushDevice(kStub, 0));
    EXPECT_EQ(Native(), 1);
    EXPECT_EQ(Current(), (Device{kStub, 1}));
    for (int i = kStackDepth - 1; i > 0; --i) {
        SCOPED_TRACE("pop of entry " + std::to_string(i));
        PopExpecting({kStub, (i - 1) % 2}, (i - 1) % 2);
    }
    PopExpecting(before_, kSentinel);
    ExpectEmpty();
}

} // namespace
} // namespace infinirt_loader_test
