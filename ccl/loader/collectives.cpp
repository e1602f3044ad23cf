// The collectives and point-to-point calls: validation (comm, dtype, op, counts, roots, buffers,
// stream), then the plugin's entry. Group calls are here too: they are what decides which plugin
// a thread's queued calls belong to.
#include "infinirt_private.h"
#include "internal.h"

#include <cstdint>

namespace infiniccl {

namespace {

thread_local int t_group_depth = 0;
thread_local const Plugin *t_group_plugin = nullptr;

bool mulOverflows(size_t a, size_t b, size_t *out) { return __builtin_mul_overflow(a, b, out); }

// Checks shared by every call; writes the comm and the element size.
infiniStatus_t checkCall(const char *call, infinicclComm_t handle, infiniDtype_t dtype, bool reduction, int op,
                         Comm **out, size_t *esize) {
    infiniStatus_t st = INFINI_STATUS_SUCCESS;
    Comm *c = liveComm(handle, &st, call);
    if (c == nullptr) return st;
    *esize = dtypeSize(dtype);
    if (*esize == 0) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: dtype %d is not an infiniDtype_t", call, static_cast<int>(dtype));
    }
    if (reduction && (op < INFINICCL_SUM || op > INFINICCL_AVG)) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: op %d is not an infinicclReduceOp_t", call, op);
    }
    if (c->plugin->table.supports == nullptr || c->plugin->table.supports(dtype, reduction ? 1 : 0) == 0) {
        return fail(INFINI_STATUS_NOT_IMPLEMENTED, "%s: the %s backend does not %s dtype %s", call,
                    c->plugin->table.name, reduction ? "reduce" : "move", dtypeName(dtype));
    }
    if (t_group_depth > 0) {
        if (t_group_plugin == nullptr) {
            t_group_plugin = c->plugin;
        } else if (t_group_plugin != c->plugin) {
            return fail(INFINI_STATUS_BAD_PARAM, "%s: the open group holds %s calls, this comm is %s", call,
                        t_group_plugin->table.name, c->plugin->table.name);
        }
    }
    *out = c;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t checkBytes(const char *call, size_t count, size_t esize, size_t factor, size_t *bytes) {
    size_t elems = 0;
    if (mulOverflows(count, factor, &elems) || mulOverflows(elems, esize, bytes)) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %zu x %zu elements of %zu bytes overflow size_t", call, count, factor,
                    esize);
    }
    return INFINI_STATUS_SUCCESS;
}

// A buffer infinirt knows must belong to the comm's device (host memory of the same device type
// is accepted) and hold `bytes` from `ptr`.
infiniStatus_t checkBuffer(const char *call, const Comm *c, const void *ptr, size_t bytes, const char *what) {
    if (bytes == 0) return INFINI_STATUS_SUCCESS;
    if (ptr == nullptr) return fail(INFINI_STATUS_NULL_POINTER, "%s: %s is NULL", call, what);
    infinirtPointerAttributes_t a{};
    a.struct_size = sizeof a;
    if (infinirtPointerGetAttributes(&a, ptr) != INFINI_STATUS_SUCCESS || a.kind == INFINIRT_MEMORY_UNKNOWN) {
        return INFINI_STATUS_SUCCESS; // memory the backend may recognise (host memory, foreign allocations)
    }
    if (a.device_type != c->device_type || (a.kind == INFINIRT_MEMORY_DEVICE && a.device_id != c->device_id)) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %s %p is memory of device %d:%d, the comm is on %s:%d (device %d:%d)",
                    call, what, ptr, static_cast<int>(a.device_type), a.device_id, c->plugin->table.name, c->device_id,
                    static_cast<int>(c->device_type), c->device_id);
    }
    if (a.base != nullptr && a.size != 0) {
        const uintptr_t end = reinterpret_cast<uintptr_t>(a.base) + a.size;
        if (reinterpret_cast<uintptr_t>(ptr) + bytes > end) {
            return fail(INFINI_STATUS_BAD_PARAM, "%s: %s %p holds %zu bytes, the call needs %zu", call, what, ptr,
                        static_cast<size_t>(end - reinterpret_cast<uintptr_t>(ptr)), bytes);
        }
    }
    return INFINI_STATUS_SUCCESS;
}

// The stream must be of the comm's device: a created stream by the device it was created on, NULL
// as the current device's default stream (infinirt resolves both, infinirt_private.h).
infiniStatus_t checkStream(const char *call, const Comm *c, infinirtStream_t stream) {
    infiniDevice_t type{};
    int device = 0;
    if (infiniStatus_t st = infinirtPrivateStreamDevice(stream, &type, &device)) {
        return fail(st, "%s: stream: %s", call, infinirtGetLastErrorMessage());
    }
    if (type == c->device_type && device == c->device_id) return INFINI_STATUS_SUCCESS;
    if (stream == nullptr) {
        return fail(INFINI_STATUS_BAD_PARAM,
                    "%s: stream NULL is the default stream of the current device %d:%d, the comm is on %d:%d", call,
                    static_cast<int>(type), device, static_cast<int>(c->device_type), c->device_id);
    }
    return fail(INFINI_STATUS_BAD_PARAM, "%s: stream %p is a stream of device %d:%d, the comm is on %d:%d", call,
                stream, static_cast<int>(type), device, static_cast<int>(c->device_type), c->device_id);
}

// The data of one call: `send_bytes` read from sendbuf and `recv_bytes` written to recvbuf (0: that
// buffer is not used on this rank, and not checked), ordered on `stream`.
infiniStatus_t checkData(const char *call, const Comm *c, const void *sendbuf, size_t send_bytes, const void *recvbuf,
                         size_t recv_bytes, infinirtStream_t stream) {
    if (infiniStatus_t st = checkBuffer(call, c, sendbuf, send_bytes, "sendbuf")) return st;
    if (infiniStatus_t st = checkBuffer(call, c, recvbuf, recv_bytes, "recvbuf")) return st;
    return checkStream(call, c, stream);
}

infiniStatus_t checkRank(const char *call, const Comm *c, int rank, const char *what) {
    if (rank < 0 || rank >= c->nranks) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %s %d is not a rank of this comm (%d ranks)", call, what, rank,
                    c->nranks);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t sumCounts(const char *call, const Comm *c, const size_t *counts, int nranks, size_t *total) {
    if (counts == nullptr) return fail(INFINI_STATUS_NULL_POINTER, "%s: the counts are NULL", call);
    if (nranks != c->nranks) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: nranks is %d, the comm has %d ranks", call, nranks, c->nranks);
    }
    *total = 0;
    for (int r = 0; r < nranks; ++r) {
        if (__builtin_add_overflow(*total, counts[r], total)) {
            return fail(INFINI_STATUS_BAD_PARAM, "%s: the counts' sum overflows size_t", call);
        }
    }
    return INFINI_STATUS_SUCCESS;
}

// Send and Recv: a peer that is a rank of the comm and not the caller's own.
infiniStatus_t checkPeer(const char *call, const Comm *c, int peer) {
    if (infiniStatus_t st = checkRank(call, c, peer, "peer")) return st;
    if (peer == c->rank) return fail(INFINI_STATUS_BAD_PARAM, "%s: peer %d is the caller's own rank", call, peer);
    return INFINI_STATUS_SUCCESS;
}

// The V variants: one count per rank; writes the bytes of all ranks' blocks and of this rank's.
infiniStatus_t checkCounts(const char *call, const Comm *c, const size_t *counts, int nranks, size_t esize,
                           size_t *total_bytes, size_t *own_bytes) {
    size_t sum = 0;
    if (infiniStatus_t st = sumCounts(call, c, counts, nranks, &sum)) return st;
    if (infiniStatus_t st = checkBytes(call, sum, esize, 1, total_bytes)) return st;
    return checkBytes(call, counts[c->rank], esize, 1, own_bytes);
}

} // namespace

} // namespace infiniccl

using namespace infiniccl;

#define CCL_TRY(expr)                                                                                          \
    do {                                                                                                       \
        if (infiniStatus_t st_try_ = (expr)) return st_try_;                                                   \
    } while (0)

extern "C" {

__export infiniStatus_t infinicclGroupStart(infinicclComm_t comm) {
    infiniStatus_t st = INFINI_STATUS_SUCCESS;
    Comm *c = liveComm(comm, &st, "infinicclGroupStart");
    if (c == nullptr) return st;
    if (t_group_depth > 0 && t_group_plugin != nullptr && t_group_plugin != c->plugin) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinicclGroupStart: the open group holds %s calls, this comm is %s",
                    t_group_plugin->table.name, c->plugin->table.name);
    }
    INFINICCL_PLUGIN_CALL(c->plugin, c->device_id, group_start);
    if (t_group_depth++ == 0) t_group_plugin = c->plugin;
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinicclGroupEnd(infinicclComm_t comm) {
    infiniStatus_t st = INFINI_STATUS_SUCCESS;
    Comm *c = liveComm(comm, &st, "infinicclGroupEnd");
    if (c == nullptr) return st;
    if (t_group_depth == 0) return fail(INFINI_STATUS_BAD_PARAM, "infinicclGroupEnd: no group is open on this thread");
    const Plugin *plugin = t_group_plugin != nullptr ? t_group_plugin : c->plugin;
    if (--t_group_depth == 0) t_group_plugin = nullptr;
    INFINICCL_PLUGIN_CALL(plugin, c->device_id, group_end);
    return INFINI_STATUS_SUCCESS;
}

// Each collective: the comm, dtype and op (checkCall), its roots or peer, the byte sizes of its
// buffers, then the buffers and the stream (checkData), then the plugin's entry.
__export infiniStatus_t infinicclAllReduce(void *sendbuf, void *recvbuf, size_t count, infiniDtype_t dataype,
                                           infinicclReduceOp_t op, infinicclComm_t comm, infinirtStream_t stream) {
    static const char *const kCall = "infinicclAllReduce";
    Comm *c = nullptr;
    size_t esize = 0, bytes = 0;
    CCL_TRY(checkCall(kCall, comm, dataype, true, op, &c, &esize));
    CCL_TRY(checkBytes(kCall, count, esize, 1, &bytes));
    CCL_TRY(checkData(kCall, c, sendbuf, bytes, recvbuf, bytes, stream));
    INFINICCL_PLUGIN_CALL(c->plugin, c->device_id, all_reduce, c->impl, sendbuf, recvbuf, count, dataype, op, stream);
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinicclReduce(const void *sendbuf, void *recvbuf, size_t count, infiniDtype_t datatype,
                                        infinicclReduceOp_t op, int root, infinicclComm_t comm,
                                        infinirtStream_t stream) {
    static const char *const kCall = "infinicclReduce";
    Comm *c = nullptr;
    size_t esize = 0, bytes = 0;
    CCL_TRY(checkCall(kCall, comm, datatype, true, op, &c, &esize));
    CCL_TRY(checkRank(kCall, c, root, "root"));
    CCL_TRY(checkBytes(kCall, count, esize, 1, &bytes));
    CCL_TRY(checkData(kCall, c, sendbuf, bytes, recvbuf, c->rank == root ? bytes : 0, stream));
    INFINICCL_PLUGIN_CALL(c->plugin, c->device_id, reduce, c->impl, sendbuf, recvbuf, count, datatype, op, root,
                          stream);
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinicclBroadcast(const void *sendbuf, void *recvbuf, size_t count, infiniDtype_t datatype,
                                           int root, infinicclComm_t comm, infinirtStream_t stream) {
    static const char *const kCall = "infinicclBroadcast";
    Comm *c = nullptr;
    size_t esize = 0, bytes = 0;
    CCL_TRY(checkCall(kCall, comm, datatype, false, 0, &c, &esize));
    CCL_TRY(checkRank(kCall, c, root, "root"));
    CCL_TRY(checkBytes(kCall, count, esize, 1, &bytes));
    CCL_TRY(checkData(kCall, c, sendbuf, c->rank == root ? bytes : 0, recvbuf, bytes, stream));
    INFINICCL_PLUGIN_CALL(c->plugin, c->device_id, broadcast, c->impl, sendbuf, recvbuf, count, datatype, root, stream);
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinicclSend(const void *sendbuf, size_t count, infiniDtype_t datatype, int peer,
                                      infinicclComm_t comm, infinirtStream_t stream) {
    static const char *const kCall = "infinicclSend";
    Comm *c = nullptr;
    size_t esize = 0, bytes = 0;
    CCL_TRY(checkCall(kCall, comm, datatype, false, 0, &c, &esize));
    CCL_TRY(checkPeer(kCall, c, peer));
    CCL_TRY(checkBytes(kCall, count, esize, 1, &bytes));
    CCL_TRY(checkData(kCall, c, sendbuf, bytes, nullptr, 0, stream));
    INFINICCL_PLUGIN_CALL(c->plugin, c->device_id, send, c->impl, sendbuf, count, datatype, peer, stream);
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinicclRecv(void *recvbuf, size_t count, infiniDtype_t datatype, int peer,
                                      infinicclComm_t comm, infinirtStream_t stream) {
    static const char *const kCall = "infinicclRecv";
    Comm *c = nullptr;
    size_t esize = 0, bytes = 0;
    CCL_TRY(checkCall(kCall, comm, datatype, false, 0, &c, &esize));
    CCL_TRY(checkPeer(kCall, c, peer));
    CCL_TRY(checkBytes(kCall, count, esize, 1, &bytes));
    CCL_TRY(checkData(kCall, c, nullptr, 0, recvbuf, bytes, stream));
    INFINICCL_PLUGIN_CALL(c->plugin, c->device_id, recv, c->impl, recvbuf, count, datatype, peer, stream);
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinicclAllGather(void *sendbuf, void *recvbuf, size_t send_count, infiniDtype_t dataype,
                                           infinicclComm_t comm, infinirtStream_t stream) {
    static const char *const kCall = "infinicclAllGather";
    Comm *c = nullptr;
    size_t esize = 0, bytes = 0, total = 0;
    CCL_TRY(checkCall(kCall, comm, dataype, false, 0, &c, &esize));
    CCL_TRY(checkBytes(kCall, send_count, esize, 1, &bytes));
    CCL_TRY(checkBytes(kCall, send_count, esize, static_cast<size_t>(c->nranks), &total));
    CCL_TRY(checkData(kCall, c, sendbuf, bytes, recvbuf, total, stream));
    INFINICCL_PLUGIN_CALL(c->plugin, c->device_id, all_gather, c->impl, sendbuf, recvbuf, send_count, dataype, stream);
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinicclAllGatherV(void *sendbuf, void *recvbuf, const size_t *recv_counts, int nranks,
                                            infiniDtype_t dataype, infinicclComm_t comm, infinirtStream_t stream) {
    static const char *const kCall = "infinicclAllGatherV";
    Comm *c = nullptr;
    size_t esize = 0, bytes = 0, total = 0;
    CCL_TRY(checkCall(kCall, comm, dataype, false, 0, &c, &esize));
    CCL_TRY(checkCounts(kCall, c, recv_counts, nranks, esize, &total, &bytes));
    CCL_TRY(checkData(kCall, c, sendbuf, bytes, recvbuf, total, stream));
    INFINICCL_PLUGIN_CALL(c->plugin, c->device_id, all_gather_v, c->impl, sendbuf, recvbuf, recv_counts, dataype,
                          stream);
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinicclReduceScatter(void *sendbuf, void *recvbuf, size_t recv_count, infiniDtype_t dataype,
                                               infinicclReduceOp_t op, infinicclComm_t comm, infinirtStream_t stream) {
    static const char *const kCall = "infinicclReduceScatter";
    Comm *c = nullptr;
    size_t esize = 0, bytes = 0, total = 0;
    CCL_TRY(checkCall(kCall, comm, dataype, true, op, &c, &esize));
    CCL_TRY(checkBytes(kCall, recv_count, esize, 1, &bytes));
    CCL_TRY(checkBytes(kCall, recv_count, esize, static_cast<size_t>(c->nranks), &total));
    CCL_TRY(checkData(kCall, c, sendbuf, total, recvbuf, bytes, stream));
    INFINICCL_PLUGIN_CALL(c->plugin, c->device_id, reduce_scatter, c->impl, sendbuf, recvbuf, recv_count, dataype, op,
                          stream);
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinicclReduceScatterV(void *sendbuf, void *recvbuf, const size_t *send_counts, int nranks,
                                                infiniDtype_t dataype, infinicclReduceOp_t op, infinicclComm_t comm,
                                                infinirtStream_t stream) {
    static const char *const kCall = "infinicclReduceScatterV";
    Comm *c = nullptr;
    size_t esize = 0, bytes = 0, total = 0;
    CCL_TRY(checkCall(kCall, comm, dataype, true, op, &c, &esize));
    CCL_TRY(checkCounts(kCall, c, send_counts, nranks, esize, &total, &bytes));
    CCL_TRY(checkData(kCall, c, sendbuf, total, recvbuf, bytes, stream));
    INFINICCL_PLUGIN_CALL(c->plugin, c->device_id, reduce_scatter_v, c->impl, sendbuf, recvbuf, send_counts, dataype,
                          op, stream);
    return INFINI_STATUS_SUCCESS;
}

} // extern "C"
