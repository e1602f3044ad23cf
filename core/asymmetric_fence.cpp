#include "asymmetric_fence.hpp"

#include <cstdio>
#include <exception>

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace infinicore::detail {

namespace {

#if defined(__linux__)
long membarrier(int cmd) { return syscall(SYS_membarrier, cmd, 0, 0); }

bool registerExpedited() {
    const long supported = membarrier(MEMBARRIER_CMD_QUERY);
    if (supported < 0 || (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0 ||
        (supported & MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0) {
        return false;
    }
    return membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0 &&
           membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0;
}
#else
bool registerExpedited() { return false; }
#endif

} // namespace

// Dynamic initialisation when the library loads; until then (and without membarrier) false, the
// symmetric form, which is correct whichever form the other side uses.
bool g_asymmetric_fences = registerExpedited();

void heavyFence() noexcept {
#if defined(__linux__)
    if (g_asymmetric_fences && membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) {
        // Registered when the library loaded; a refusal now can only be a lost registration.
        if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) != 0 ||
            membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) {
            // The frequent sides rely on this barrier and no other can stand in for it.
            std::fputs("infinicore: membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) failed after registration\n",
                       stderr);
            std::terminate();
        }
    }
#endif
}

} // namespace infinicore::detail
