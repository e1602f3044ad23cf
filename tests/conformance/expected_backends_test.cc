// The backends a run expects (INFINIRT_EXPECT_BACKENDS=cpu,opencl) are loaded with a device, so
// that a backend that silently finds nothing fails the run instead of passing it with fewer tests.
#include "status_assertions.h"

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace infinirt_test {
namespace {

const char *StateName(infinirtBackendState_t state) {
    switch (state) {
    case INFINIRT_BACKEND_LOADED: return "LOADED";
    case INFINIRT_BACKEND_UNAVAILABLE: return "UNAVAILABLE";
    case INFINIRT_BACKEND_FAILED: return "FAILED";
    case INFINIRT_BACKEND_SHADOWED: return "SHADOWED";
    }
    return "an unknown state";
}

std::string Describe(const infinirtBackendInfo_t &info) {
    std::ostringstream out;
    out << StateName(info.state) << " with " << info.device_count << " device(s), reason \"" << info.reason
        << "\", from " << info.path;
    return out.str();
}

TEST(ExpectedBackends, AreLoadedWithDevices) {
    const char *expected = std::getenv("INFINIRT_EXPECT_BACKENDS");
    if (expected == nullptr || *expected == '\0') {
        GTEST_SKIP() << "INFINIRT_EXPECT_BACKENDS not set: which backends must serve a device is not checked";
    }
    int count = 0;
    ASSERT_OK(infinirtGetBackendCount(&count));
    std::vector<infinirtBackendInfo_t> backends(static_cast<size_t>(count));
    std::string listed;
    for (int i = 0; i < count; ++i) {
        backends[i].struct_size = sizeof(infinirtBackendInfo_t);
        ASSERT_OK(infinirtGetBackendInfo(i, &backends[i]));
        listed += std::string(listed.empty() ? "" : "; ") + backends[i].name + ": " + Describe(backends[i]);
    }
    std::stringstream names(expected);
    std::string name;
    int checked = 0;
    while (std::getline(names, name, ',')) {
        if (name.empty()) {
            continue;
        }
        ++checked;
        const infinirtBackendInfo_t *found = nullptr;
        for (const infinirtBackendInfo_t &b : backends) {
            // The LOADED one if the name is listed more than once (a shadowed copy).
            if (name == b.name && (found == nullptr || b.state == INFINIRT_BACKEND_LOADED)) {
                found = &b;
            }
        }
        if (found == nullptr) {
            ADD_FAILURE() << "backend \"" << name << "\" is expected (INFINIRT_EXPECT_BACKENDS=" << expected
                          << ") but no plugin of that name was found; listed: " << (listed.empty() ? "none" : listed);
        } else if (found->state != INFINIRT_BACKEND_LOADED || found->device_count < 1) {
            ADD_FAILURE() << "backend \"" << name << "\" is expected (INFINIRT_EXPECT_BACKENDS=" << expected
                          << ") to serve at least one device, but it is " << Describe(*found);
        }
    }
    EXPECT_GT(checked, 0) << "INFINIRT_EXPECT_BACKENDS=\"" << expected << "\" names no backend";
}

} // namespace
} // namespace infinirt_test
