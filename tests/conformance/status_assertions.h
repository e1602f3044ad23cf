// Assertions on infinirt status codes, shared by the conformance, loader and stress suites.
//
// A failed infinirt call must return the documented status AND leave a non-empty detail in
// infinirtGetLastErrorMessage(). The message is only valid until the thread's next infinirt call,
// so it is copied right after the call, before anything else (even infinirtGetErrorName) runs.
#ifndef INFINIRT_TESTS_STATUS_ASSERTIONS_H
#define INFINIRT_TESTS_STATUS_ASSERTIONS_H

#include <gtest/gtest.h>
#include <infinirt.h>

#include <string>

namespace infinirt_test {

struct Outcome {
    infiniStatus_t status;
    std::string message;
};

inline Outcome Capture(infiniStatus_t status) {
    const char *message = infinirtGetLastErrorMessage();
    return Outcome{status, message != nullptr ? message : "<NULL message>"};
}

// SUCCESS expected: the call succeeded. An error expected: that exact status and a message.
inline ::testing::AssertionResult Matches(const Outcome &outcome, infiniStatus_t expected, const char *call) {
    if (outcome.status != expected) {
        return ::testing::AssertionFailure()
               << call << " returned " << infinirtGetErrorName(outcome.status) << " (" << outcome.status
               << "), expected " << infinirtGetErrorName(expected) << " (" << expected << "); last error message: \""
               << outcome.message << "\"";
    }
    if (expected != INFINI_STATUS_SUCCESS && outcome.message.empty()) {
        return ::testing::AssertionFailure()
               << call << " returned " << infinirtGetErrorName(expected)
               << " as expected but infinirtGetLastErrorMessage() is empty";
    }
    return ::testing::AssertionSuccess();
}

// Any failure is acceptable (the header does not pin the code), but it must fail and explain why.
inline ::testing::AssertionResult FailsWithMessage(const Outcome &outcome, const char *call) {
    if (outcome.status == INFINI_STATUS_SUCCESS) {
        return ::testing::AssertionFailure() << call << " succeeded; it must be refused";
    }
    if (outcome.message.empty()) {
        return ::testing::AssertionFailure() << call << " failed with " << infinirtGetErrorName(outcome.status)
                                             << " but infinirtGetLastErrorMessage() is empty";
    }
    return ::testing::AssertionSuccess();
}

} // namespace infinirt_test

// The call is evaluated before its message is copied (Capture's argument). Each macro is a single
// gtest assertion, so a failure message can be streamed onto it: EXPECT_OK(call) << "context".
#define INFINIRT_CHECK_STATUS_(assertion, expected, expr)                                                       \
    assertion(::infinirt_test::Matches(::infinirt_test::Capture((expr)), (expected), #expr))

#define ASSERT_OK(expr) INFINIRT_CHECK_STATUS_(ASSERT_TRUE, INFINI_STATUS_SUCCESS, expr)
#define EXPECT_OK(expr) INFINIRT_CHECK_STATUS_(EXPECT_TRUE, INFINI_STATUS_SUCCESS, expr)
#define ASSERT_STATUS(expected, expr) INFINIRT_CHECK_STATUS_(ASSERT_TRUE, expected, expr)
#define EXPECT_STATUS(expected, expr) INFINIRT_CHECK_STATUS_(EXPECT_TRUE, expected, expr)
#define EXPECT_REFUSED(expr) EXPECT_TRUE(::infinirt_test::FailsWithMessage(::infinirt_test::Capture((expr)), #expr))

#endif // INFINIRT_TESTS_STATUS_ASSERTIONS_H
