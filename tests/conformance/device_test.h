// The fixture every per-device conformance test derives from, and helpers they share.
//
// Each test runs once per (device type, device id) found at run time and starts by making that
// device current, so "the current device" in a test body is always the parameter.
#ifndef INFINIRT_TESTS_DEVICE_TEST_H
#define INFINIRT_TESTS_DEVICE_TEST_H

#include "device_params.h"
#include "limitations.h"
#include "status_assertions.h"

#include <gtest/gtest.h>
#include <infinirt.h>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace infinirt_test {

class DeviceTest : public ::testing::TestWithParam<DeviceParam> {
protected:
    void SetUp() override { ASSERT_OK(infinirtSetDevice(GetParam().type, GetParam().id)); }

    infiniDevice_t type() const { return GetParam().type; }
    int id() const { return GetParam().id; }
    const std::string &backend() const { return GetParam().backend; }
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

#define INSTANTIATE_ON_ALL_DEVICES(suite)                                                                      \
    INSTANTIATE_TEST_SUITE_P(Devices, suite, ::testing::ValuesIn(::infinirt_test::AllDevices()),              \
                             [](const ::testing::TestParamInfo<::infinirt_test::DeviceParam> &info) {          \
                                 return ::infinirt_test::InstanceName(info.param);                             \
                             })

#endif // INFINIRT_TESTS_DEVICE_TEST_H
