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

infiniStatus_t init(char *reason, size_t reason_size);
int supports(infiniDtype_t dtype, int reduction);
infiniStatus_t getUniqueId(unsigned char *id);
infiniStatus_t commInitAll(infinicclPluginComm_t *comms, int ndevice, const int *device_ids);
infiniStatus_t commInitRank(infinicclPluginComm_t *comm, int nranks, const unsigned char *id, int rank, int device_id);
infiniStatus_t commDestroy(infinicclPluginComm_t comm);
infiniStatus_t groupStart();
infiniStatus_t groupEnd();
infiniStatus_t allReduce(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t count,
                         infiniDtype_t dtype, infinicclReduceOp_t op, infinirtStream_t stream);
infiniStatus_t broadcast(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t count,
                         infiniDtype_t dtype, int root, infinirtStream_t stream);
infiniStatus_t reduce(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t count,
                      infiniDtype_t dtype, infinicclReduceOp_t op, int root, infinirtStream_t stream);
infiniStatus_t allGather(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t send_count,
                         infiniDtype_t dtype, infinirtStream_t stream);
infiniStatus_t allGatherV(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, const size_t *recv_counts,
                          infiniDtype_t dtype, infinirtStream_t stream);
infiniStatus_t reduceScatter(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t recv_count,
                             infiniDtype_t dtype, infinicclReduceOp_t op, infinirtStream_t stream);
infiniStatus_t reduceScatterV(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf,
                              const size_t *send_counts, infiniDtype_t dtype, infinicclReduceOp_t op,
                              infinirtStream_t stream);
infiniStatus_t send(infinicclPluginComm_t comm, const void *sendbuf, size_t count, infiniDtype_t dtype, int peer,
                    infinirtStream_t stream);
infiniStatus_t recv(infinicclPluginComm_t comm, void *recvbuf, size_t count, infiniDtype_t dtype, int peer,
                    infinirtStream_t stream);

} // namespace infiniccl::nccl
