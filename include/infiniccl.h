/*
 * infiniccl.h - collective communication over infinirt devices (libinfiniccl.so).
 *
 * Source-compatible with the published InfiniCore infiniccl.h: every name, parameter and value
 * above the "Extensions" line is exactly as published (parameter spellings included). Extensions
 * only append. docs/collectives.md is the guide; this header is the contract.
 *
 * Contract shared by every function:
 *  - Status and detail: every function returns infiniStatus_t and writes its outputs only on
 *    success; the detail of a failure is infinirtGetLastErrorMessage() (libinfiniccl writes it
 *    through infinirtSetLastErrorMessage), prefixed with the backend and device ("nccl:0: ...").
 *  - Backends: one plugin per device type, libinfiniccl-<name>.so, found as infinirt finds its
 *    own and with the same variables (INFINIRT_PLUGIN_PATH then <libdir>/infinirt/, or the files
 *    INFINIRT_PLUGINS names; INFINIRT_BACKENDS allows plugins by name: "cpu", "nccl"): nccl serves INFINI_DEVICE_NVIDIA (NCCL,
 *    dlopen'ed at run time; INFINIRT_NCCL_LIBRARY may name the file), cpu serves INFINI_DEVICE_CPU
 *    (threads of one process and processes of one host, through POSIX shared memory; ranks on
 *    several hosts, made by infinicclCommInitFromEnv, over Gloo's TCP transport). A device
 *    type with no plugin: DEVICE_TYPE_NOT_SUPPORTED; a plugin that cannot run (NCCL missing):
 *    BACKEND_UNAVAILABLE with the reason ("libnccl.so.2 not found").
 *  - Streams: every collective is ordered on `stream`, an infinirt stream of the comm's device:
 *    a stream created on another device, of this type or another, is refused (BAD_PARAM, the
 *    message naming both devices), a destroyed or garbage one too (INVALID_HANDLE). NULL is the
 *    default stream of the calling thread's current device, as everywhere in infinirt, which
 *    must then be the comm's device (else BAD_PARAM). A collective blocks the
 *    calling thread only as NCCL does: nccl enqueues on the stream; cpu waits for the stream's
 *    earlier work, then runs the collective on the calling thread and returns when this rank's
 *    part is done (so later work on the stream follows it).
 *  - Buffers: infinirt allocations of the comm's device, or memory the backend recognises
 *    (cpu: any host memory; nccl: CUDA device memory). A buffer infinirt knows to belong to
 *    another device: BAD_PARAM. Counts are elements; an element count whose byte size overflows
 *    size_t: BAD_PARAM. A count of 0 is a valid no-op (as in NCCL).
 *  - Ranks: every rank of a communicator must call the same collectives in the same order with
 *    matching counts, dtype, op and root (as in NCCL; a mismatch is not detected). Ranks of one
 *    process are driven from one thread per rank, or from one thread between GroupStart/GroupEnd
 *    (the calls then only queue; GroupEnd runs them together).
 *  - Threads: calls on different comms may run concurrently; one comm is used by one thread at a
 *    time. Destroying a comm while another thread may still pass it to a call is not allowed; a
 *    call that starts after the destroy returned gets INVALID_HANDLE.
 */
#ifndef __INFINICCL_API_H__
#define __INFINICCL_API_H__

#include "infinirt.h"

typedef enum {
    INFINICCL_SUM = 0,
    INFINICCL_PROD = 1,
    INFINICCL_MAX = 2,
    INFINICCL_MIN = 3,
    INFINICCL_AVG = 4, /* nccl: NCCL 2.10 or newer, else NOT_IMPLEMENTED; integers: sum / nranks,
                        * rounded toward zero */
} infinicclReduceOp_t;

struct InfinicclComm;

typedef struct InfinicclComm *infinicclComm_t;

#define INFINICCL_UNIQUE_ID_BYTES 128

/* Names one communicator being created: made by infinicclGetUniqueId on one rank, copied to the
 * others by the application (file, socket, MPI, environment), passed to infinicclCommInitRank.
 * Plain bytes: copy it as they are. */
typedef struct {
    char internal[INFINICCL_UNIQUE_ID_BYTES];
} infinicclUniqueId_t;

/* One communicator per device of `device_type`, all in this process: comms[i] is rank i on
 * device device_ids[i] (device_ids NULL: devices 0..ndevice-1). Blocks until all are created.
 * NULL comms -> NULL_POINTER; ndevice < 1, a device id out of range or repeated -> BAD_PARAM or
 * DEVICE_NOT_FOUND; an unknown type -> DEVICE_TYPE_NOT_SUPPORTED. On failure no comm is left. */
__INFINI_C __export infiniStatus_t infinicclCommInitAll(
    infiniDevice_t device_type,
    infinicclComm_t *comms,
    int ndevice,
    const int *device_ids);

/* A new unique id for the calling thread's current device type (infinirtGetDevice): cpu names a
 * shared-memory segment; nccl is ncclGetUniqueId (it starts NCCL's bootstrap listener). NULL
 * unique_id -> NULL_POINTER. */
__INFINI_C __export infiniStatus_t infinicclGetUniqueId(
    infinicclUniqueId_t *unique_id);

/* Rank `rank` of `nranks` on the calling thread's current device, joining the ranks that pass
 * the same id (other threads, processes or, with nccl, nodes). Blocks until all nranks ranks
 * have joined (cpu: at most INFINICCL_CPU_TIMEOUT seconds, default 120, then DRIVER_ERROR).
 * NULL comm -> NULL_POINTER; nranks < 1, rank outside [0, nranks), an id that was not made by
 * infinicclGetUniqueId for this device type, a rank joined twice or a different nranks ->
 * BAD_PARAM. */
__INFINI_C __export infiniStatus_t infinicclCommInitRank(
    infinicclComm_t *comm,
    int nranks,
    infinicclUniqueId_t comm_id,
    int rank);

/* Releases the comm (its work queued on streams completes first, as with ncclCommDestroy).
 * NULL -> SUCCESS (as published); destroyed or never created -> INVALID_HANDLE. */
__INFINI_C __export infiniStatus_t infinicclCommDestroy(infinicclComm_t comm);

/* Group calls of the calling thread (nested calls count; the outermost GroupEnd runs them): the
 * collectives and Send/Recv made in between are queued and launched together at GroupEnd, which
 * is how one thread drives several ranks of one process, and how a Send and a Recv between two
 * ranks pair up. The comm names the backend (NULL -> NULL_POINTER); all comms used inside one
 * group must be of one backend (else BAD_PARAM at the call). An error of a queued call is
 * reported by GroupEnd. GroupEnd without GroupStart -> BAD_PARAM. */
__INFINI_C __export infiniStatus_t infinicclGroupStart(infinicclComm_t comm);

__INFINI_C __export infiniStatus_t infinicclGroupEnd(infinicclComm_t comm);

/* recvbuf[i] = op over ranks of sendbuf[i], i < count, on every rank. In place when
 * sendbuf == recvbuf. */
__INFINI_C __export infiniStatus_t infinicclAllReduce(
    void *sendbuf,
    void *recvbuf,
    size_t count,
    infiniDtype_t dataype,
    infinicclReduceOp_t op,
    infinicclComm_t comm,
    infinirtStream_t stream);

/* recvbuf = root's sendbuf (count elements) on every rank; sendbuf is read on root only.
 * root outside [0, nranks) -> BAD_PARAM. */
__INFINI_C __export infiniStatus_t infinicclBroadcast(
    const void *sendbuf,
    void *recvbuf,
    size_t count,
    infiniDtype_t datatype,
    int root,
    infinicclComm_t comm,
    infinirtStream_t stream);

/* Point to point: count elements to / from rank `peer` (not the caller's own rank: BAD_PARAM).
 * A Send and the peer's Recv must match in count and dtype; messages between two ranks arrive
 * in order. Two ranks exchanging (each sends and receives) put both calls in one group. */
__INFINI_C __export infiniStatus_t infinicclSend(
    const void *sendbuf,
    size_t count,
    infiniDtype_t datatype,
    int peer,
    infinicclComm_t comm,
    infinirtStream_t stream);

__INFINI_C __export infiniStatus_t infinicclRecv(
    void *recvbuf,
    size_t count,
    infiniDtype_t datatype,
    int peer,
    infinicclComm_t comm,
    infinirtStream_t stream);

/* recvbuf[r * send_count + i] = sendbuf of rank r [i]. In place when
 * sendbuf == recvbuf + rank * send_count (elements). */
__INFINI_C __export infiniStatus_t infinicclAllGather(
    void *sendbuf,
    void *recvbuf,
    size_t send_count,
    infiniDtype_t dataype,
    infinicclComm_t comm,
    infinirtStream_t stream);

/* Rank r contributes recv_counts[r] elements; recvbuf holds them in rank order (offsets are the
 * prefix sums). nranks must be the comm's size, else BAD_PARAM; NULL recv_counts -> NULL_POINTER. */
__INFINI_C __export infiniStatus_t infinicclAllGatherV(
    void *sendbuf,
    void *recvbuf,
    const size_t *recv_counts,
    int nranks,
    infiniDtype_t dataype,
    infinicclComm_t comm,
    infinirtStream_t stream);

/* sendbuf holds nranks * recv_count elements; rank r receives op over ranks of the block
 * [r * recv_count, (r + 1) * recv_count). In place when recvbuf == sendbuf + rank * recv_count. */
__INFINI_C __export infiniStatus_t infinicclReduceScatter(
    void *sendbuf,
    void *recvbuf,
    size_t recv_count,
    infiniDtype_t dataype,
    infinicclReduceOp_t op,
    infinicclComm_t comm,
    infinirtStream_t stream);

/* As ReduceScatter with block r of send_counts[r] elements (offsets: prefix sums); rank r receives
 * send_counts[r] elements. nranks must be the comm's size, else BAD_PARAM. */
__INFINI_C __export infiniStatus_t infinicclReduceScatterV(
    void *sendbuf,
    void *recvbuf,
    const size_t *send_counts,
    int nranks,
    infiniDtype_t dataype,
    infinicclReduceOp_t op,
    infinicclComm_t comm,
    infinirtStream_t stream);

/* ---- Extensions ------------------------------------------------------------------------- */

/* recvbuf (read on root only) = op over ranks of sendbuf, count elements. root outside
 * [0, nranks) -> BAD_PARAM. recvbuf may be NULL on the other ranks. */
__INFINI_C __export infiniStatus_t infinicclReduce(
    const void *sendbuf,
    void *recvbuf,
    size_t count,
    infiniDtype_t datatype,
    infinicclReduceOp_t op,
    int root,
    infinicclComm_t comm,
    infinirtStream_t stream);

/* The comm's device, rank and number of ranks. NULL outputs -> NULL_POINTER; a destroyed comm ->
 * INVALID_HANDLE. Never block. */
__INFINI_C __export infiniStatus_t infinicclCommGetDevice(infinicclComm_t comm, infiniDevice_t *device_type,
                                                          int *device_id);
__INFINI_C __export infiniStatus_t infinicclCommGetRank(infinicclComm_t comm, int *rank);
__INFINI_C __export infiniStatus_t infinicclCommGetSize(infinicclComm_t comm, int *nranks);

/* A comm made from the variables a launcher sets, with no unique id moved by hand: rank and size
 * from RANK and WORLD_SIZE (torchrun), else OMPI_COMM_WORLD_RANK/SIZE (Open MPI), PMI_RANK/PMI_SIZE
 * (MPICH), SLURM_PROCID/SLURM_NTASKS (Slurm); the local rank (LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK,
 * MPI_LOCALRANKID, SLURM_LOCALID; default 0) modulo the number of devices of `device_type` picks the
 * device, which becomes the calling thread's current device. With more than one rank, rank 0
 * serves a small TCP rendezvous store on MASTER_PORT (every local address), every rank connects to
 * MASTER_ADDR:MASTER_PORT, rank 0 publishes its unique id there, and every rank waits until all
 * have come, then joins as infinicclCommInitRank would. nccl: NCCL's own bootstrap and transports
 * follow. cpu: ranks all on this host meet in shared memory; otherwise (or with
 * INFINICCL_CPU_TRANSPORT=gloo) they talk over Gloo's TCP transport. Every wait is bounded by
 * INFINICCL_TIMEOUT_S seconds (default 120). docs/collectives.md, "Several hosts", is the guide.
 * NULL comm -> NULL_POINTER; no launcher's variables, a rank outside [0, size), MASTER_ADDR or
 * MASTER_PORT missing with more than one rank -> BAD_PARAM; MASTER_PORT in use on rank 0, no store
 * at MASTER_ADDR:MASTER_PORT, a rank that never comes within the bound -> DRIVER_ERROR, the message
 * naming the variable or the missing ranks. Later, a cpu collective whose peer rank died fails
 * (DRIVER_ERROR) on every other rank with a message naming the rank that went, and the comm can no
 * longer be used. Blocks the calling thread until every rank has come or the bound has passed. A
 * launcher's ranks are processes: one call per process at a time (each call is one rendezvous;
 * rank 0's store holds one port); calls on other comms may run concurrently. */
__INFINI_C __export infiniStatus_t infinicclCommInitFromEnv(infinicclComm_t *comm, infiniDevice_t device_type);

/* Dtypes: nccl takes I8, U8, I32, U32, I64, U64, F16, F32, F64 and BF16 (NCCL 2.10+); cpu the same
 * plus I16 and U16; both move BYTE and BOOL in Broadcast, AllGather(V) and Send/Recv (no
 * reduction). A valid dtype the backend cannot do -> NOT_IMPLEMENTED, the message naming the dtype
 * and the backend; a value outside infiniDtype_t, or an op outside infinicclReduceOp_t ->
 * BAD_PARAM. */

#endif
