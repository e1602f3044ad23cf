// What a backend declares it cannot do, with the reason written down.
//
// The conformance suite skips (GTEST_SKIP with the reason) only the features listed here for a
// backend; everything else must pass on every backend. Adding an entry is a design decision:
// the reason must say why the native API cannot give the semantics, not that a test failed.
#ifndef INFINIRT_TESTS_LIMITATIONS_H
#define INFINIRT_TESTS_LIMITATIONS_H

#include <string>

namespace infinirt_test {

enum class Feature {
    kEventTiming,           // infinirtEventElapsedTime
    kStreamCapture,         // BeginCapture/EndCapture/Instantiate/Launch
    kStreamOrderedAlloc,    // MallocAsync/FreeAsync
    kPinnedHost,            // MallocHost/FreeHost returning page-locked memory
    kCrossDeviceHandles,    // handles of one device used while another device is current
    kResourceSnapshot,      // infinirtGetDeviceResourceSnapshot memory fields
};

// The reason `backend` gives for not supporting `feature`, or nullptr if it must support it.
const char *LimitationReason(const std::string &backend, Feature feature);

} // namespace infinirt_test

#define SKIP_IF_BACKEND_LACKS(backend, feature)                                                              \
    do {                                                                                                     \
        if (const char *infinirt_reason_ = ::infinirt_test::LimitationReason((backend), (feature))) {        \
            GTEST_SKIP() << "backend \"" << (backend) << "\" declares: " << infinirt_reason_;                \
        }                                                                                                    \
    } while (0)

#endif // INFINIRT_TESTS_LIMITATIONS_H
