// The calls: dtype, op and stream translated once (prepare), then one NCCL call (the V variants: a
// group of broadcasts or reduces, one per rank, as NCCL has no V form). The loader validated the
// rest.
#include "nccl_backend.h"

namespace infiniccl::nccl {

bool avgSupported();

namespace {

// What every call hands NCCL besides its buffers and counts.
struct Call {
    Comm *comm = nullptr;
    ncclDataType_t dtype{};
    ncclRedOp_t op{}; // calls that reduce
    cudaStream_t stream = nullptr;
};

constexpr int kNoReduction = -1;

// Translates the comm, dtype, op (kNoReduction: the call does not reduce) and stream.
infiniStatus_t prepare(infinicclPluginComm_t comm, infiniDtype_t dtype, int op, infinirtStream_t stream, Call *out) {
    out->comm = static_cast<Comm *>(comm);
    if (!toNccl(dtype, &out->dtype)) {
        return fail(INFINI_STATUS_NOT_IMPLEMENTED, "NCCL %d has no dtype %d", api().version, dtype);
    }
    if (op != kNoReduction) {
        if (op == INFINICCL_AVG && !avgSupported()) {
            return fail(INFINI_STATUS_NOT_IMPLEMENTED, "INFINICCL_AVG needs NCCL 2.10 or newer, this is %d",
                        api().version);
        }
        out->op = static_cast<ncclRedOp_t>(op); // infinicclReduceOp_t and ncclRedOp_t share their values
    }
    return nativeStream(stream, &out->stream);
}

size_t bytesOf(infiniDtype_t dtype) {
    switch (dtype) {
    case INFINI_DTYPE_F16:
    case INFINI_DTYPE_BF16:
    case INFINI_DTYPE_I16:
    case INFINI_DTYPE_U16: return 2;
    case INFINI_DTYPE_I32:
    case INFINI_DTYPE_U32:
    case INFINI_DTYPE_F32: return 4;
    case INFINI_DTYPE_I64:
    case INFINI_DTYPE_U64:
    case INFINI_DTYPE_F64: return 8;
    default: return 1;
    }
}

// The V variants: `one(r, displ)` makes rank r's NCCL call (its block starts displ elements in),
// all ranks' calls in one NCCL group; `what` names that call in a failure.
template <typename OneRank> infiniStatus_t perRank(const Call &k, const size_t *counts, const char *what, OneRank one) {
    if (ncclResult_t rc = api().GroupStart())
        return ncclFailure("ncclGroupStart", rc, k.comm->native);
    size_t displ = 0;
    ncclResult_t first = ncclSuccess;
    for (int r = 0; r < k.comm->nranks; ++r) {
        const ncclResult_t rc = one(r, displ);
        if (first == ncclSuccess)
            first = rc;
        displ += counts[r];
    }
    const ncclResult_t end = api().GroupEnd();
    if (first != ncclSuccess)
        return ncclFailure(what, first, k.comm->native);
    if (end != ncclSuccess)
        return ncclFailure("ncclGroupEnd", end, k.comm->native);
    return INFINI_STATUS_SUCCESS;
}

// A call's NCCL result as a status, NCCL's text in the failure.
infiniStatus_t result(const Call &k, const char *call, ncclResult_t rc) {
    return rc == ncclSuccess ? INFINI_STATUS_SUCCESS : ncclFailure(call, rc, k.comm->native);
}

} // namespace

infiniStatus_t allReduce(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t count,
                         infiniDtype_t dtype, infinicclReduceOp_t op, infinirtStream_t stream) {
    Call k;
    if (infiniStatus_t st = prepare(comm, dtype, op, stream, &k))
        return st;
    return result(k, "ncclAllReduce",
                  api().AllReduce(sendbuf, recvbuf, count, k.dtype, k.op, k.comm->native, k.stream));
}

infiniStatus_t broadcast(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t count,
                         infiniDtype_t dtype, int root, infinirtStream_t stream) {
    Call k;
    if (infiniStatus_t st = prepare(comm, dtype, kNoReduction, stream, &k))
        return st;
    return result(k, "ncclBroadcast",
                  api().Broadcast(sendbuf, recvbuf, count, k.dtype, root, k.comm->native, k.stream));
}

infiniStatus_t reduce(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t count, infiniDtype_t dtype,
                      infinicclReduceOp_t op, int root, infinirtStream_t stream) {
    Call k;
    if (infiniStatus_t st = prepare(comm, dtype, op, stream, &k))
        return st;
    return result(k, "ncclReduce",
                  api().Reduce(sendbuf, recvbuf, count, k.dtype, k.op, root, k.comm->native, k.stream));
}

infiniStatus_t allGather(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t send_count,
                         infiniDtype_t dtype, infinirtStream_t stream) {
    Call k;
    if (infiniStatus_t st = prepare(comm, dtype, kNoReduction, stream, &k))
        return st;
    return result(k, "ncclAllGather", api().AllGather(sendbuf, recvbuf, send_count, k.dtype, k.comm->native, k.stream));
}

infiniStatus_t allGatherV(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, const size_t *recv_counts,
                          infiniDtype_t dtype, infinirtStream_t stream) {
    Call k;
    if (infiniStatus_t st = prepare(comm, dtype, kNoReduction, stream, &k))
        return st;
    const size_t es = bytesOf(dtype);
    return perRank(k, recv_counts, "ncclBroadcast", [&](int r, size_t displ) {
        return api().Broadcast(r == k.comm->rank ? sendbuf : nullptr, static_cast<char *>(recvbuf) + displ * es,
                               recv_counts[r], k.dtype, r, k.comm->native, k.stream);
    });
}

infiniStatus_t reduceScatter(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t recv_count,
                             infiniDtype_t dtype, infinicclReduceOp_t op, infinirtStream_t stream) {
    Call k;
    if (infiniStatus_t st = prepare(comm, dtype, op, stream, &k))
        return st;
    return result(k, "ncclReduceScatter",
                  api().ReduceScatter(sendbuf, recvbuf, recv_count, k.dtype, k.op, k.comm->native, k.stream));
}

infiniStatus_t reduceScatterV(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, const size_t *send_counts,
                              infiniDtype_t dtype, infinicclReduceOp_t op, infinirtStream_t stream) {
    Call k;
    if (infiniStatus_t st = prepare(comm, dtype, op, stream, &k))
        return st;
    const size_t es = bytesOf(dtype);
    return perRank(k, send_counts, "ncclReduce", [&](int r, size_t displ) {
        return api().Reduce(static_cast<const char *>(sendbuf) + displ * es, r == k.comm->rank ? recvbuf : nullptr,
                            send_counts[r], k.dtype, k.op, r, k.comm->native, k.stream);
    });
}

infiniStatus_t send(infinicclPluginComm_t comm, const void *sendbuf, size_t count, infiniDtype_t dtype, int peer,
                    infinirtStream_t stream) {
    Call k;
    if (infiniStatus_t st = prepare(comm, dtype, kNoReduction, stream, &k))
        return st;
    return result(k, "ncclSend", api().Send(sendbuf, count, k.dtype, peer, k.comm->native, k.stream));
}

infiniStatus_t recv(infinicclPluginComm_t comm, void *recvbuf, size_t count, infiniDtype_t dtype, int peer,
                    infinirtStream_t stream) {
    Call k;
    if (infiniStatus_t st = prepare(comm, dtype, kNoReduction, stream, &k))
        return st;
    return result(k, "ncclRecv", api().Recv(recvbuf, count, k.dtype, peer, k.comm->native, k.stream));
}

} // namespace infiniccl::nccl
