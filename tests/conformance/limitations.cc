#include "limitations.h"

#include <vector>

namespace infinirt_test {

namespace {

struct Limitation {
    const char *backend;
    Feature feature;
    const char *reason;
};

// Keep sorted by backend. Every entry needs a reason a vendor engineer would accept.
const std::vector<Limitation> &Limitations() {
    static const std::vector<Limitation> kLimitations = {};
    return kLimitations;
}

} // namespace

const char *LimitationReason(const std::string &backend, Feature feature) {
    for (const Limitation &l : Limitations()) {
        if (backend == l.backend && feature == l.feature) {
            return l.reason;
        }
    }
    return nullptr;
}

} // namespace infinirt_test
