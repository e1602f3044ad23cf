// The capability table is well formed, and what a backend does not declare really is missing:
// every entry of every undeclared feature answers NOT_IMPLEMENTED with a message.
#include "device_test.h"

#include <cstring>
#include <set>

namespace infinirt_test {
namespace {

class UndeclaredFeatures : public DeviceTest {};

// E.g. on the skeleton: Malloc, MallocHost, GetMemInfo, Memcpy, Memset, StreamCreate,
// StreamSynchronize, DeviceSynchronize, the async copies, EventCreate, StreamQuery, MallocAsync,
// the native handles and the resource snapshot; on cpu: the native handles.
TEST_P(UndeclaredFeatures, EveryEntryAnswersNotImplemented) {
    std::string walked;
    for (Feature f : AllFeatures()) {
        if (UndeclaredReason(backend(), f) != nullptr) {
            ExpectUndeclaredEntries(GetParam(), f);
            walked += std::string(walked.empty() ? "" : ", ") + FeatureName(f);
        }
    }
    if (walked.empty()) {
        GTEST_SKIP() << "backend \"" << backend() << "\" declares every feature";
    }
    RecordProperty("undeclared", walked);
}

INSTANTIATE_ON_ALL_DEVICES(UndeclaredFeatures);

// Every enrolled backend accounts for every feature exactly once: declared, or with a reason.
TEST(Capabilities, EveryEnrolmentAccountsForEveryFeature) {
    std::set<std::string> backends;
    for (const Enrolment &e : Enrolments()) {
        SCOPED_TRACE(e.backend);
        EXPECT_TRUE(backends.insert(e.backend).second) << "enrolled twice";
        for (Feature f : AllFeatures()) {
            int declared = 0;
            int undeclared = 0;
            for (Feature d : e.declared) {
                declared += d == f;
            }
            for (const Undeclared &u : e.undeclared) {
                if (u.feature == f) {
                    ++undeclared;
                    EXPECT_GT(std::strlen(u.reason), 20u) << FeatureName(f) << ": write down why";
                }
            }
            EXPECT_EQ(declared + undeclared, 1) << FeatureName(f) << " must be declared or have a reason, once";
        }
    }
}

TEST(Capabilities, FeatureVariableNamesKnownFeatures) {
    EXPECT_EQ(FeatureVariableProblems(), "");
}

} // namespace
} // namespace infinirt_test
