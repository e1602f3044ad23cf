// The cpu backend's table and entry query; the collective entries turn their arguments into an
// Op and submit it (cpu_group.cpp).
#include "cpu_backend.h"

namespace infiniccl::cpu {

namespace {

Op makeOp(OpKind kind, infinicclPluginComm_t comm, const void *send, void *recv, size_t count, infiniDtype_t dtype,
          infinicclReduceOp_t op, int root, infinirtStream_t stream) {
    return Op{kind, static_cast<Comm *>(comm), send, recv, count, {}, dtype, op, root, stream};
}

std::vector<size_t> countsOf(const Comm *c, const size_t *counts) {
    return std::vector<size_t>(counts, counts + c->nranks);
}

} // namespace

infiniStatus_t allReduce(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t count,
                         infiniDtype_t dtype, infinicclReduceOp_t op, infinirtStream_t stream) {
    return submit(makeOp(OpKind::AllReduce, comm, sendbuf, recvbuf, count, dtype, op, -1, stream));
}
infiniStatus_t broadcast(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t count,
                         infiniDtype_t dtype, int root, infinirtStream_t stream) {
    return submit(makeOp(OpKind::Broadcast, comm, sendbuf, recvbuf, count, dtype, INFINICCL_SUM, root, stream));
}
infiniStatus_t reduce(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t count,
                      infiniDtype_t dtype, infinicclReduceOp_t op, int root, infinirtStream_t stream) {
    return submit(makeOp(OpKind::Reduce, comm, sendbuf, recvbuf, count, dtype, op, root, stream));
}
infiniStatus_t allGather(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t send_count,
                         infiniDtype_t dtype, infinirtStream_t stream) {
    return submit(makeOp(OpKind::AllGather, comm, sendbuf, recvbuf, send_count, dtype, INFINICCL_SUM, -1, stream));
}
infiniStatus_t allGatherV(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, const size_t *recv_counts,
                          infiniDtype_t dtype, infinirtStream_t stream) {
    Op op = makeOp(OpKind::AllGatherV, comm, sendbuf, recvbuf, 0, dtype, INFINICCL_SUM, -1, stream);
    op.counts = countsOf(op.comm, recv_counts);
    return submit(std::move(op));
}
infiniStatus_t reduceScatter(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t recv_count,
                             infiniDtype_t dtype, infinicclReduceOp_t op, infinirtStream_t stream) {
    return submit(makeOp(OpKind::ReduceScatter, comm, sendbuf, recvbuf, recv_count, dtype, op, -1, stream));
}
infiniStatus_t reduceScatterV(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf,
                              const size_t *send_counts, infiniDtype_t dtype, infinicclReduceOp_t op,
                              infinirtStream_t stream) {
    Op o = makeOp(OpKind::ReduceScatterV, comm, sendbuf, recvbuf, 0, dtype, op, -1, stream);
    o.counts = countsOf(o.comm, send_counts);
    return submit(std::move(o));
}
infiniStatus_t send(infinicclPluginComm_t comm, const void *sendbuf, size_t count, infiniDtype_t dtype, int peer,
                    infinirtStream_t stream) {
    return submit(makeOp(OpKind::Send, comm, sendbuf, nullptr, count, dtype, INFINICCL_SUM, peer, stream));
}
infiniStatus_t recv(infinicclPluginComm_t comm, void *recvbuf, size_t count, infiniDtype_t dtype, int peer,
                    infinirtStream_t stream) {
    return submit(makeOp(OpKind::Recv, comm, nullptr, recvbuf, count, dtype, INFINICCL_SUM, peer, stream));
}

namespace {

const infinicclPluginTable_t kTable = INFINICCL_PLUGIN_TABLE("cpu", INFINI_DEVICE_CPU);

} // namespace

} // namespace infiniccl::cpu

INFINICCL_DEFINE_PLUGIN_ENTRY(infiniccl::cpu::kTable)
