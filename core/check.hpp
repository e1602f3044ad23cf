// Turning C ABI statuses into exceptions.
#ifndef INFINICORE_CORE_CHECK_HPP
#define INFINICORE_CORE_CHECK_HPP

#include "infinicore/error.hpp"
#include "infinirt.h"

namespace infinicore::detail {

// Throws Error(status, call, the thread's C ABI message). Kept out of line so that check() stays
// a compare and a rarely taken branch.
[[noreturn]] void throwStatus(infiniStatus_t status, const char *call);

inline void check(infiniStatus_t status, const char *call) {
    if (status != INFINI_STATUS_SUCCESS) {
        throwStatus(status, call);
    }
}

} // namespace infinicore::detail

#endif // INFINICORE_CORE_CHECK_HPP
