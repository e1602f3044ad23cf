// The calls: dtype, op and stream translated, then one NCCL call (the V variants: a group of
// broadcasts or reduces, one per rank, as NCCL has no V form). The loader validated the rest.
#include "nccl_backend.h"

namespace infiniccl::nccl {

bool avgSupported();

namespace {

// Shared translation; writes the NCCL dtype, op and stream.
infiniStatus_t prepare(Comm *c, infiniDtype_t dtype, int op, infinirtStream_t stream, ncclDataType_t *t,
                       ncclRedOp_t *o, cudaStream_t *s) {
    if (!toNccl(dtype, t)) return fail(INFINI_STATUS_NOT_IMPLEMENTED, "NCCL %d has no dtype %d", api().version, dtype);
    if (o != nullptr) {
        if (op == INFINICCL_AVG && !avgSupported()) {
            return fail(INFINI_STATUS_NOT_IMPLEMENTED, "INFINICCL_AVG needs NCCL 2.10 or newer, this is %d", api().version);
        }
        *o = static_cast<ncclRedOp_t>(op); // infinicclReduceOp_t and ncclRedOp_t share their values
    }
    (void)c;
    return nativeStream(stream, s);
}

size_t bytesOf(infiniDtype_t dtype) {
    switch (dtype) {
    case INFINI_DTYPE_F16: case INFINI_DTYPE_BF16: case INFINI_DTYPE_I16: case INFINI_DTYPE_U16: return 2;
    case INFINI_DTYPE_I32: case INFINI_DTYPE_U32: case INFINI_DTYPE_F32: return 4;
    case INFINI_DTYPE_I64: case INFINI_DTYPE_U64: case INFINI_DTYPE_F64: return 8;
    default: return 1;
    }
}

#define NCCL_CALL(name, comm, ...)                                                                             \
    do {                                                                                                       \
        if (ncclResult_t rc_ = api().name(__VA_ARGS__)) return ncclFailure("nccl" #name, rc_, (comm));         \
    } while (0)

} // namespace

infiniStatus_t allReduce(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t count,
                         infiniDtype_t dtype, infinicclReduceOp_t op, infinirtStream_t stream) {
    auto *c = static_cast<Comm *>(comm);
    ncclDataType_t t{};
    ncclRedOp_t o{};
    cudaStream_t s = nullptr;
    if (infiniStatus_t st = prepare(c, dtype, op, stream, &t, &o, &s)) return st;
    NCCL_CALL(AllReduce, c->native, sendbuf, recvbuf, count, t, o, c->native, s);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t broadcast(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t count,
                         infiniDtype_t dtype, int root, infinirtStream_t stream) {
    auto *c = static_cast<Comm *>(comm);
    ncclDataType_t t{};
    cudaStream_t s = nullptr;
    if (infiniStatus_t st = prepare(c, dtype, 0, stream, &t, nullptr, &s)) return st;
    NCCL_CALL(Broadcast, c->native, sendbuf, recvbuf, count, t, root, c->native, s);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t reduce(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t count,
                      infiniDtype_t dtype, infinicclReduceOp_t op, int root, infinirtStream_t stream) {
    auto *c = static_cast<Comm *>(comm);
    ncclDataType_t t{};
    ncclRedOp_t o{};
    cudaStream_t s = nullptr;
    if (infiniStatus_t st = prepare(c, dtype, op, stream, &t, &o, &s)) return st;
    NCCL_CALL(Reduce, c->native, sendbuf, recvbuf, count, t, o, root, c->native, s);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t allGather(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t send_count,
                         infiniDtype_t dtype, infinirtStream_t stream) {
    auto *c = static_cast<Comm *>(comm);
    ncclDataType_t t{};
    cudaStream_t s = nullptr;
    if (infiniStatus_t st = prepare(c, dtype, 0, stream, &t, nullptr, &s)) return st;
    NCCL_CALL(AllGather, c->native, sendbuf, recvbuf, send_count, t, c->native, s);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t allGatherV(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, const size_t *recv_counts,
                          infiniDtype_t dtype, infinirtStream_t stream) {
    auto *c = static_cast<Comm *>(comm);
    ncclDataType_t t{};
    cudaStream_t s = nullptr;
    if (infiniStatus_t st = prepare(c, dtype, 0, stream, &t, nullptr, &s)) return st;
    const size_t es = bytesOf(dtype);
    NCCL_CALL(GroupStart, c->native);
    size_t displ = 0;
    ncclResult_t first = ncclSuccess;
    for (int r = 0; r < c->nranks; ++r) {
        const ncclResult_t rc = api().Broadcast(r == c->rank ? sendbuf : nullptr, static_cast<char *>(recvbuf) + displ * es,
                                                recv_counts[r], t, r, c->native, s);
        if (first == ncclSuccess) first = rc;
        displ += recv_counts[r];
    }
    const ncclResult_t end = api().GroupEnd();
    if (first != ncclSuccess) return ncclFailure("ncclBroadcast", first, c->native);
    if (end != ncclSuccess) return ncclFailure("ncclGroupEnd", end, c->native);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t reduceScatter(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t recv_count,
                             infiniDtype_t dtype, infinicclReduceOp_t op, infinirtStream_t stream) {
    auto *c = static_cast<Comm *>(comm);
    ncclDataType_t t{};
    ncclRedOp_t o{};
    cudaStream_t s = nullptr;
    if (infiniStatus_t st = prepare(c, dtype, op, stream, &t, &o, &s)) return st;
    NCCL_CALL(ReduceScatter, c->native, sendbuf, recvbuf, recv_count, t, o, c->native, s);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t reduceScatterV(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf,
                              const size_t *send_counts, infiniDtype_t dtype, infinicclReduceOp_t op,
                              infinirtStream_t stream) {
    auto *c = static_cast<Comm *>(comm);
    ncclDataType_t t{};
    ncclRedOp_t o{};
    cudaStream_t s = nullptr;
    if (infiniStatus_t st = prepare(c, dtype, op, stream, &t, &o, &s)) return st;
    const size_t es = bytesOf(dtype);
    NCCL_CALL(GroupStart, c->native);
    size_t displ = 0;
    ncclResult_t first = ncclSuccess;
    for (int r = 0; r < c->nranks; ++r) {
        const ncclResult_t rc = api().Reduce(static_cast<const char *>(sendbuf) + displ * es, r == c->rank ? recvbuf : nullptr,
                                             send_counts[r], t, o, r, c->native, s);
        if (first == ncclSuccess) first = rc;
        displ += send_counts[r];
    }
    const ncclResult_t end = api().GroupEnd();
    if (first != ncclSuccess) return ncclFailure("ncclReduce", first, c->native);
    if (end != ncclSuccess) return ncclFailure("ncclGroupEnd", end, c->native);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t send(infinicclPluginComm_t comm, const void *sendbuf, size_t count, infiniDtype_t dtype, int peer,
                    infinirtStream_t stream) {
    auto *c = static_cast<Comm *>(comm);
    ncclDataType_t t{};
    cudaStream_t s = nullptr;
    if (infiniStatus_t st = prepare(c, dtype, 0, stream, &t, nullptr, &s)) return st;
    NCCL_CALL(Send, c->native, sendbuf, count, t, peer, c->native, s);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t recv(infinicclPluginComm_t comm, void *recvbuf, size_t count, infiniDtype_t dtype, int peer,
                    infinirtStream_t stream) {
    auto *c = static_cast<Comm *>(comm);
    ncclDataType_t t{};
    cudaStream_t s = nullptr;
    if (infiniStatus_t st = prepare(c, dtype, 0, stream, &t, nullptr, &s)) return st;
    NCCL_CALL(Recv, c->native, recvbuf, count, t, peer, c->native, s);
    return INFINI_STATUS_SUCCESS;
}

} // namespace infiniccl::nccl
