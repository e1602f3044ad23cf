// The nccl backend's table and entry query.
#include "nccl_backend.h"

namespace infiniccl::nccl {

namespace {

const infinicclPluginTable_t kTable = INFINICCL_PLUGIN_TABLE("nccl", INFINI_DEVICE_NVIDIA);

} // namespace

} // namespace infiniccl::nccl

INFINICCL_DEFINE_PLUGIN_ENTRY(infiniccl::nccl::kTable)
