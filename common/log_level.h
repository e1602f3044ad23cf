// INFINIRT_LOG, read once per library: what infinirt and infiniccl show on stderr. Unset or any
// other value: warn; "error", "info" or "debug" as named. Shared so that both libraries' warnings
// follow the same variable the same way.
#pragma once

#include "infinirt_plugin.h"

#include <cstdlib>
#include <cstring>

namespace infinirt {

inline int logLevelFromEnvironment() {
    const char *v = std::getenv("INFINIRT_LOG");
    if (v == nullptr) {
        return static_cast<int>(INFINIRT_LOG_WARN);
    }
    if (std::strcmp(v, "error") == 0) return static_cast<int>(INFINIRT_LOG_ERROR);
    if (std::strcmp(v, "info") == 0) return static_cast<int>(INFINIRT_LOG_INFO);
    if (std::strcmp(v, "debug") == 0) return static_cast<int>(INFINIRT_LOG_DEBUG);
    return static_cast<int>(INFINIRT_LOG_WARN);
}

} // namespace infinirt
