// The fixture every per-device conformance test derives from, and helpers they share.
//
// Each test runs once per (device type, device id) found at run time and starts by making that
// device current, so "the current device" in a test body is always the parameter.
//
// A test says which features it needs (capabilities.h): a fixture for all of its tests, through
// DeviceTest's constructor, and a test for itself, with REQUIRE_FEATURES at the top of its body.
// On a backend that does not declare one of them the test is skipped with the written reason,
// after checking that the feature's entries answer NOT_IMPLEMENTED with a message there.
#ifndef INFINIRT_TESTS_DEVICE_TEST_H
#define INFINIRT_TESTS_DEVICE_TEST_H

#include <cstring>

#include "device_params.h"
#include "capabilities.h"
#include "status_assertions.h"

#include <gtest/gtest.h>
#include <infinirt.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <utility>
#include <vector>

namespace infinirt_test {

// Whether the running test must stop because `device`'s backend does not declare one of `needs`.
// For each feature it does not declare, first checks on `device` (made current for the check,
// then the current device is restored) that every entry of the feature answers NOT_IMPLEMENTED
// with a message (ExpectUndeclaredEntries); then skips the test (GTEST_SKIP) with the backend's
// reasons, or, when an entry answered otherwise, fails it fatally. False when every one is
// declared: the test goes on. Use REQUIRE_FEATURES in a test body.
bool SkipUnlessDeclared(const DeviceParam &device, const std::vector<Feature> &needs);

// Checks (EXPECT_*) on the current device, which must be `device`, that every entry of `feature`
// answers INFINI_STATUS_NOT_IMPLEMENTED with a non-empty last-error message and leaves its
// outputs alone. Entries that need another feature the backend does not declare (e.g. the native
// handle of a created stream without streams) are left out.
void ExpectUndeclaredEntries(const DeviceParam &device, Feature feature);

class DeviceTest : public ::testing::TestWithParam<DeviceParam> {
protected:
    DeviceTest() = default;
    // The features every test of the fixture needs.
    explicit DeviceTest(std::initializer_list<Feature> needs) : needs_(needs) {}

    void SetUp() override {
        ASSERT_OK(infinirtSetDevice(GetParam().type, GetParam().id));
        SkipUnlessDeclared(GetParam(), needs_);
    }

    // Whether the backend of the device under test declares `feature`.
    bool Declares(Feature feature) const { return UndeclaredReason(backend(), feature) == nullptr; }

    infiniDevice_t type() const { return GetParam().type; }
    int id() const { return GetParam().id; }
    const std::string &backend() const { return GetParam().backend; }

private:
    std::vector<Feature> needs_;
};

// Runs a cleanup when the scope ends, so a failed ASSERT does not leak handles into later tests.
// Streams, events, buffers, graphs and busy work have owners of their own in resources.h.
class Defer {
public:
    explicit Defer(std::function<void()> fn) : fn_(std::move(fn)) {}
    Defer(const Defer &) = delete;
    Defer &operator=(const Defer &) = delete;
    ~Defer() {
        if (fn_) {
            fn_();
        }
    }
    void Cancel() { fn_ = nullptr; }

private:
    std::function<void()> fn_;
};

// Deterministic bytes that differ per position and per seed, so a stale or shifted copy shows.
std::vector<uint8_t> Pattern(size_t size, uint8_t seed);

// Keeps `stream` busy: a memset then `rounds` device-to-device copies of `size` bytes between two
// scratch buffers on the current device, enqueued asynchronously. The buffers are stored in `work`
// as soon as they exist (even if enqueueing fails); the caller synchronises the stream and then
// releases them with FreeBusyWork.
struct BusyWork {
    void *a = nullptr;
    void *b = nullptr;
};
::testing::AssertionResult EnqueueBusyWork(infinirtStream_t stream, size_t size, int rounds, BusyWork *work);
void FreeBusyWork(const BusyWork &work);

// Polls `query` (a StreamQuery or EventQuery style call returning SUCCESS when done and NOT_READY
// while pending) until it reports completion. Any other status fails. Gives up after a minute so a
// broken backend fails instead of hanging; this bounds a hang, it does not assert on timing.
::testing::AssertionResult PollUntilDone(const std::function<infiniStatus_t()> &query);

// Large enough that a stream running it is still busy while the host enqueues the next calls.
constexpr size_t kBusyBytes = size_t{16} << 20;
constexpr int kBusyRounds = 16;

} // namespace infinirt_test

// At the top of a DeviceTest body: the features this test needs beyond its fixture's. Returns from
// the test (skipped, or failed) unless the backend declares all of them (SkipUnlessDeclared).
#define REQUIRE_FEATURES(...) REQUIRE_FEATURES_OF(GetParam(), __VA_ARGS__)

// The same for the backend of `device` (a DeviceParam), e.g. the partner in a cross-device test.
#define REQUIRE_FEATURES_OF(device, ...)                                                                      \
    do {                                                                                                       \
        if (::infinirt_test::SkipUnlessDeclared((device), {__VA_ARGS__})) {                                    \
            return;                                                                                            \
        }                                                                                                      \
    } while (0)

#define INSTANTIATE_ON_ALL_DEVICES(suite)                                                                      \
    INSTANTIATE_TEST_SUITE_P(Devices, suite, ::testing::ValuesIn(::infinirt_test::AllDevices()),              \
                             [](const ::testing::TestParamInfo<::infinirt_test::DeviceParam> &info) {          \
                                 return ::infinirt_test::InstanceName(info.param);                             \
                             })

// Asserts that `call` (on the device under test) succeeds, except that a backend other than cpu
// and cuda may answer NOT_IMPLEMENTED with a reason: the test is then skipped with it. For the
// extensions cpu and cuda must implement (registration, virtual memory).
#define OK_OR_SKIP_UNLESS_CPU_OR_CUDA(call)                                                                     \
    do {                                                                                                         \
        const infiniStatus_t st_ = (call);                                                                       \
        if (st_ == INFINI_STATUS_NOT_IMPLEMENTED && backend() != "cpu" && backend() != "cuda") {                 \
            const char *why_ = infinirtGetLastErrorMessage();                                                    \
            ASSERT_NE(std::strlen(why_), 0u) << "NOT_IMPLEMENTED must say why";                                  \
            GTEST_SKIP() << why_;                                                                                \
        }                                                                                                        \
        ASSERT_OK(st_);                                                                                          \
    } while (0)

#endif // INFINIRT_TESTS_DEVICE_TEST_H
