// Suites ErrorChannelFirstCall, ErrorChannelAfterLoad, ErrorChannel: the thread's last-error
// message is written only by a call of that thread that fails, and describes that failure.
//
// INFINIRT_PLUGINS (see CMakeLists.txt) names, in this order: errchan (the working stub of
// stubs/stub_error_channel.c, device type qy), errcount (get_device_count fails, marker 8103),
// the failing-init stub (marker 4711), a file that does not exist (dlopen fails) and errquery
// (its entry query fails, marker 8102) last, so that its detail is the last one a plugin set
// during loading. Each suite runs in a process of its own (one ctest entry each): the first two
// depend on what the process's first call did.
#include "loader_test_util.h"
#include "status_assertions.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace infinirt_loader_test {
namespace {

constexpr infiniDevice_t kErrChan = INFINI_DEVICE_QY;

// Every marker a stub sets through host->set_error, with where it comes from.
const char *const kMarkers[] = {
    "marker 8102", // errquery's entry query (loading)
    "marker 8103", // errcount's get_device_count (loading)
    "marker 4711", // the failing-init stub's init (loading)
    "marker 8201", // errchan's stream_query, answering NOT_READY
    "marker 8202", // errchan's event_query, succeeding
    "marker 8203", // errchan's pointer_get_attributes, probed by infinirtPointerGetAttributes
    "marker 8204", // errchan's event_elapsed_time, failing (start event created BLOCKING_SYNC)
    "marker 8205", // errchan's event_query answering NOT_READY as a status (BLOCKING_SYNC event)
};

// The markers found in `message`, for failure output ("" if none).
std::string MarkersIn(const std::string &message) {
    std::string found;
    for (const char *marker : kMarkers) {
        if (message.find(marker) != std::string::npos) {
            found += found.empty() ? marker : std::string(", ") + marker;
        }
    }
    return found;
}

std::string LastMessage() { return infinirtGetLastErrorMessage(); }

const infinirtBackendInfo_t *ByName(const std::vector<infinirtBackendInfo_t> &backends, const char *name) {
    for (const infinirtBackendInfo_t &b : backends) {
        if (std::strcmp(b.name, name) == 0) {
            return &b;
        }
    }
    return nullptr;
}

// Two recorded events on errchan:0; the stub's elapsed time always answers NOT_READY.
class ElapsedPair {
public:
    explicit ElapsedPair(uint32_t start_flags = INFINIRT_EVENT_DEFAULT) {
        EXPECT_OK(infinirtSetDevice(kErrChan, 0));
        EXPECT_OK(infinirtEventCreateWithFlags(&start_, start_flags));
        EXPECT_OK(infinirtEventCreate(&end_));
        EXPECT_OK(infinirtEventRecord(start_, nullptr));
        EXPECT_OK(infinirtEventRecord(end_, nullptr));
    }
    ~ElapsedPair() {
        EXPECT_OK(infinirtEventDestroy(start_));
        EXPECT_OK(infinirtEventDestroy(end_));
    }
    // Calls infinirtEventElapsedTime, which must fail with NOT_READY; returns its message.
    std::string FailingElapsedTime() const {
        float ms = -1.0f;
        const infiniStatus_t status = infinirtEventElapsedTime(&ms, start_, end_);
        const std::string message = LastMessage();
        EXPECT_EQ(status, INFINI_STATUS_NOT_READY) << infinirtGetErrorName(status);
        EXPECT_EQ(ms, -1.0f) << "output written on failure";
        return message;
    }

private:
    infinirtEvent_t start_ = nullptr;
    infinirtEvent_t end_ = nullptr;
};

// The message of a failed event_elapsed_time that gave no detail: the loader's own text for it.
void ExpectOwnElapsedTimeMessage(const std::string &message) {
    EXPECT_EQ(MarkersIn(message), "") << "a detail set by another plugin call is attached: " << message;
    EXPECT_NE(message.find("event_elapsed_time"), std::string::npos) << message;
    EXPECT_NE(message.find("INFINI_STATUS_NOT_READY"), std::string::npos) << message;
    EXPECT_NE(message.find("errchan"), std::string::npos) << message;
}

// Sets the thread's message to a known loader failure, to see whether later calls write it.
std::string PrimeMessage() {
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtStreamDestroy(nullptr));
    const std::string message = LastMessage();
    EXPECT_NE(message.find("infinirtStreamDestroy"), std::string::npos) << message;
    return message;
}

// ---- the process's first call ------------------------------------------------------------------

// Plugins failing to load (dlopen, entry query, init, get_device_count) say so in their backend's
// reason and the log; the successful first call that loaded them leaves no message behind.
TEST(ErrorChannelFirstCall, SuccessfulFirstCallLeavesNoMessage) {
    int count = 0;
    ASSERT_EQ(infinirtGetBackendCount(&count), INFINI_STATUS_SUCCESS);
    EXPECT_STREQ(infinirtGetLastErrorMessage(), "") << "a successful first call left a message behind";
    EXPECT_EQ(count, 5);
    const std::vector<infinirtBackendInfo_t> backends = Backends();
    EXPECT_STREQ(infinirtGetLastErrorMessage(), "");
    const infinirtBackendInfo_t *counted = ByName(backends, "errcount");
    ASSERT_NE(counted, nullptr);
    EXPECT_EQ(counted->state, INFINIRT_BACKEND_FAILED);
    EXPECT_NE(std::strstr(counted->reason, "marker 8103"), nullptr) << counted->reason;
    const infinirtBackendInfo_t *init = ByName(backends, "stubinitfail");
    ASSERT_NE(init, nullptr);
    EXPECT_EQ(init->state, INFINIRT_BACKEND_FAILED);
    EXPECT_NE(std::strstr(init->reason, "marker 4711"), nullptr) << init->reason;
    const infinirtBackendInfo_t *ghost = ByName(backends, "ghost");
    ASSERT_NE(ghost, nullptr);
    EXPECT_EQ(ghost->state, INFINIRT_BACKEND_FAILED);
    EXPECT_NE(std::strstr(ghost->reason, "dlopen failed"), nullptr) << ghost->reason;
}

// ---- a detail set during loading ---------------------------------------------------------------

// The loading thread's first failure carries its own text, never the detail a plugin gave while
// it was being loaded (errquery's failed entry query is the last one set).
TEST(ErrorChannelAfterLoad, LoadingDetailIsNotAttachedToALaterFailure) {
    ASSERT_EQ(infinirtInit(), INFINI_STATUS_SUCCESS);
    EXPECT_STREQ(infinirtGetLastErrorMessage(), "");
    ElapsedPair pair;
    ExpectOwnElapsedTimeMessage(pair.FailingElapsedTime());
}

// ---- details of plugin calls the loader does not report as failures ----------------------------

// A failed entry query: its backend's reason carries the plugin's own text.
TEST(ErrorChannel, FailedEntryQueryReasonCarriesThePluginDetail) {
    const std::vector<infinirtBackendInfo_t> backends = Backends();
    const infinirtBackendInfo_t *b = ByName(backends, "errquery"); // its file name: it never told its own
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->state, INFINIRT_BACKEND_FAILED);
    EXPECT_EQ(b->interface_version, 0u);
    EXPECT_NE(std::strstr(b->reason, "INFINI_STATUS_NOT_IMPLEMENTED"), nullptr) << b->reason;
    EXPECT_NE(std::strstr(b->reason, "entry query refused (marker 8102)"), nullptr) << b->reason;
}

// StreamQuery answering NOT_READY is not a failure: it writes no message, and the detail the
// plugin gave with it is not attached to a later failure.
TEST(ErrorChannel, NotReadyStreamQueryDetailIsNotAttachedToALaterFailure) {
    ElapsedPair pair;
    const std::string primed = PrimeMessage();
    EXPECT_EQ(infinirtStreamQuery(nullptr), INFINI_STATUS_NOT_READY);
    EXPECT_EQ(LastMessage(), primed) << "NOT_READY from StreamQuery wrote the message";
    ExpectOwnElapsedTimeMessage(pair.FailingElapsedTime());
}

// A detail given by a plugin call that succeeds dies with that call.
TEST(ErrorChannel, SucceedingCallDetailIsNotAttachedToALaterFailure) {
    ElapsedPair pair;
    infinirtEvent_t event = nullptr;
    ASSERT_OK(infinirtEventCreate(&event));
    const std::string primed = PrimeMessage();
    infinirtEventStatus_t status = INFINIRT_EVENT_COMPLETE;
    EXPECT_EQ(infinirtEventQuery(event, &status), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(status, INFINIRT_EVENT_NOT_READY);
    EXPECT_EQ(LastMessage(), primed) << "a successful EventQuery wrote the message";
    ExpectOwnElapsedTimeMessage(pair.FailingElapsedTime());
    EXPECT_OK(infinirtEventDestroy(event));
}

// A plugin whose event_query answers NOT_READY as a status gave an answer, not a failure:
// EventQuery succeeds with INFINIRT_EVENT_NOT_READY, writes no message, and the detail is dropped.
TEST(ErrorChannel, NotReadyEventQueryStatusIsAnAnswer) {
    ElapsedPair pair;
    infinirtEvent_t event = nullptr;
    ASSERT_OK(infinirtEventCreateWithFlags(&event, INFINIRT_EVENT_BLOCKING_SYNC));
    const std::string primed = PrimeMessage();
    infinirtEventStatus_t status = INFINIRT_EVENT_COMPLETE;
    EXPECT_EQ(infinirtEventQuery(event, &status), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(status, INFINIRT_EVENT_NOT_READY);
    EXPECT_EQ(LastMessage(), primed) << "NOT_READY from the plugin's event_query wrote the message";
    ExpectOwnElapsedTimeMessage(pair.FailingElapsedTime());
    EXPECT_OK(infinirtEventDestroy(event));
}

// The fast paths of EventQuery and StreamQuery make their plugin call without dropping a pending
// detail first; a failure is asked again, after dropping it, and the second answer is the call's.
// A detail left by an earlier call (the plain event's query, which succeeds with one) is never
// attached: a query failing without a detail gets the loader's own text.
TEST(ErrorChannel, FailingQueryCarriesNoEarlierDetail) {
    infinirtEvent_t plain = nullptr;
    infinirtEvent_t failing = nullptr;
    ASSERT_OK(infinirtEventCreate(&plain));
    ASSERT_OK(infinirtEventCreateWithFlags(&failing, INFINIRT_EVENT_DISABLE_TIMING));
    infinirtStream_t stream = nullptr;
    ASSERT_OK(infinirtStreamCreate(&stream));
    infinirtEventStatus_t status = INFINIRT_EVENT_COMPLETE;
    EXPECT_EQ(infinirtEventQuery(plain, &status), INFINI_STATUS_SUCCESS); // leaves marker 8202 behind
    status = INFINIRT_EVENT_COMPLETE;
    EXPECT_EQ(infinirtEventQuery(failing, &status), INFINI_STATUS_DRIVER_ERROR);
    EXPECT_EQ(status, INFINIRT_EVENT_COMPLETE) << "a failed query wrote its output";
    EXPECT_EQ(LastMessage(), "errchan:0: event_query failed: INFINI_STATUS_DRIVER_ERROR");

    EXPECT_EQ(infinirtEventQuery(plain, &status), INFINI_STATUS_SUCCESS); // marker 8202 again
    ASSERT_EQ(setenv("STUB_ERRCHAN_STREAM_QUERY", "fail", 1), 0);
    EXPECT_EQ(infinirtStreamQuery(stream), INFINI_STATUS_DRIVER_ERROR);
    ASSERT_EQ(unsetenv("STUB_ERRCHAN_STREAM_QUERY"), 0);
    EXPECT_EQ(LastMessage(), "errchan:0: stream_query failed: INFINI_STATUS_DRIVER_ERROR");
    EXPECT_EQ(infinirtStreamQuery(stream), INFINI_STATUS_NOT_READY);

    EXPECT_OK(infinirtStreamDestroy(stream));
    EXPECT_OK(infinirtEventDestroy(failing));
    EXPECT_OK(infinirtEventDestroy(plain));
}

// A query failing once and answering when asked again gives that answer, and writes no message:
// the failure's detail goes with it.
TEST(ErrorChannel, QueryFailingOnceAnswersTheSecondTime) {
    infinirtEvent_t event = nullptr;
    ASSERT_OK(infinirtEventCreateWithFlags(&event, INFINIRT_EVENT_DISABLE_TIMING | INFINIRT_EVENT_BLOCKING_SYNC));
    const std::string primed = PrimeMessage();
    infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
    EXPECT_EQ(infinirtEventQuery(event, &status), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(status, INFINIRT_EVENT_COMPLETE);
    EXPECT_EQ(LastMessage(), primed) << "an answered query wrote the message";
    EXPECT_OK(infinirtEventDestroy(event));
}

// infinirtPointerGetAttributes probes the plugins for a pointer infinirt did not allocate; a
// probe answering "not mine" is no failure of the call, and its detail is dropped.
TEST(ErrorChannel, PointerProbeDetailIsNotAttachedToALaterFailure) {
    ElapsedPair pair;
    const std::string primed = PrimeMessage();
    int local = 0;
    infinirtPointerAttributes_t attributes{};
    attributes.struct_size = sizeof attributes;
    EXPECT_EQ(infinirtPointerGetAttributes(&attributes, &local), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(attributes.kind, INFINIRT_MEMORY_UNKNOWN);
    EXPECT_EQ(LastMessage(), primed) << "a successful PointerGetAttributes wrote the message";
    ExpectOwnElapsedTimeMessage(pair.FailingElapsedTime());
}

// NOT_READY from EventElapsedTime is a failure of that call: it writes its own message, with the
// detail the plugin gave during that very call.
TEST(ErrorChannel, FailingCallCarriesItsOwnDetail) {
    ElapsedPair pair(INFINIRT_EVENT_BLOCKING_SYNC);
    EXPECT_EQ(infinirtStreamQuery(nullptr), INFINI_STATUS_NOT_READY); // leaves marker 8201 behind
    const std::string message = pair.FailingElapsedTime();
    EXPECT_EQ(MarkersIn(message), "marker 8204") << message;
    EXPECT_NE(message.find("errchan:0: "), std::string::npos) << "the loader prefixes backend:device: " << message;
}

} // namespace
} // namespace infinirt_loader_test
