// Groups are NCCL's own (per thread, nested): the plugin passes them through.
#include "nccl_backend.h"

namespace infiniccl::nccl {

infiniStatus_t groupStart() {
    if (ncclResult_t rc = api().GroupStart()) return ncclFailure("ncclGroupStart", rc, nullptr);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t groupEnd() {
    if (ncclResult_t rc = api().GroupEnd()) return ncclFailure("ncclGroupEnd", rc, nullptr);
    return INFINI_STATUS_SUCCESS;
}

} // namespace infiniccl::nccl
