// The nccl backend's table and entry query.
#include "nccl_backend.h"

namespace infiniccl::nccl {

namespace {

const infinicclPluginTable_t kTable = {
    sizeof(infinicclPluginTable_t),
    INFINICCL_PLUGIN_INTERFACE_VERSION,
    "nccl",
    INFINI_DEVICE_NVIDIA,
    INFINICCL_GUARDED(init),
    supports,
    INFINICCL_GUARDED(getUniqueId),
    INFINICCL_GUARDED(commInitAll),
    INFINICCL_GUARDED(commInitRank),
    INFINICCL_GUARDED(commDestroy),
    INFINICCL_GUARDED(groupStart),
    INFINICCL_GUARDED(groupEnd),
    INFINICCL_GUARDED(allReduce),
    INFINICCL_GUARDED(broadcast),
    INFINICCL_GUARDED(reduce),
    INFINICCL_GUARDED(allGather),
    INFINICCL_GUARDED(allGatherV),
    INFINICCL_GUARDED(reduceScatter),
    INFINICCL_GUARDED(reduceScatterV),
    INFINICCL_GUARDED(send),
    INFINICCL_GUARDED(recv),
};

} // namespace

} // namespace infiniccl::nccl

INFINICCL_DEFINE_PLUGIN_ENTRY(infiniccl::nccl::kTable)
