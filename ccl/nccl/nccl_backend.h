// nccl_backend.h - the nccl collective backend: a thin translation of infiniccl calls to NCCL
// (dlopen'ed, nccl_native_api.h) on the native CUstream behind the infinirt stream.
#pragma once

#include "../common/ccl_plugin_support.hpp"
#include "nccl_native_api.h"

namespace infiniccl::nccl {

using common::fail;

struct Comm {
    ncclComm_t native;
    int device;
    int rank;
    int nranks;
};

const Api &api();
// NCCL's failure as a status, with the call, NCCL's error string and its last-error text.
infiniStatus_t ncclFailure(const char *call, ncclResult_t rc, ncclComm_t comm);
bool toNccl(infiniDtype_t dtype, ncclDataType_t *out);
// The native stream of an infinirt stream (NULL: the current device's default stream).
infiniStatus_t nativeStream(infinirtStream_t stream, cudaStream_t *out);

// The entries (nccl_plugin.cpp builds the table from them).
INFINICCL_DECLARE_ENTRIES()

} // namespace infiniccl::nccl
