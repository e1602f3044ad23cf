// Host registration: every cpu device works on host memory as it is, so there is nothing to pin;
// the loader's record of the range (kind HOST) is the whole of it.
#include "cpu_backend.h"

namespace infinirt::cpu {

infiniStatus_t hostRegister(int, void *, size_t, uint32_t) { return INFINI_STATUS_SUCCESS; }

infiniStatus_t hostUnregister(int, void *) { return INFINI_STATUS_SUCCESS; }

} // namespace infinirt::cpu
