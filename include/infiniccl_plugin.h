/*
 * infiniccl_plugin.h - the interface between libinfiniccl and its backend plugins (C, versioned).
 *
 * A plugin is libinfiniccl-<name>.so in infinirt's plugin folders (INFINIRT_PLUGIN_PATH, then
 * <libdir>/infinirt/ beside libinfinirt; or a file INFINIRT_PLUGINS names), allowed by
 * INFINIRT_BACKENDS by its <name>, and exports one symbol, infinicclPluginQuery. It serves
 * one device type, uses infinirt's public C ABI for streams and memory, and may dlopen its vendor
 * library (the nccl plugin does). Rules, as for infinirt's plugins (infinirt_plugin.h):
 *  - The loader validates everything it can before an entry runs: the comm is live, counts and
 *    byte sizes do not overflow, dtype and op are in range and accepted by `supports`, roots and
 *    peers are ranks, buffers are not infinirt memory of another device, streams (NULL: the
 *    current device's default stream) belong to the comm's device. Entries only translate and run.
 *  - An entry returns a status; on failure it may give the detail through host->set_error (the
 *    loader prefixes "<name>:<device>: " and writes it as infinirt's last-error message).
 *  - Only C types cross; plugins catch every exception; no exit/abort; the loader never
 *    dlcloses a plugin.
 *  - Tables only grow: fields are appended, and a loader treats entries beyond a plugin's
 *    struct_size as missing (NOT_IMPLEMENTED).
 */
#ifndef INFINICCL_PLUGIN_H
#define INFINICCL_PLUGIN_H

#include "infiniccl.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define INFINICCL_PLUGIN_INTERFACE_VERSION 1u
/* The bytes of infinicclUniqueId_t a plugin may use: the loader keeps the first 8 (a magic and the
 * device type), so that an id is checked against the backend that reads it. */
#define INFINICCL_PLUGIN_UNIQUE_ID_BYTES (INFINICCL_UNIQUE_ID_BYTES - 8)

/* Services of the loader. Check struct_size before using a field appended later. */
typedef struct {
    size_t struct_size;
    uint32_t version;
    /* Records the detail of the failure the current entry is about to return. */
    void (*set_error)(const char *message);
} infinicclPluginHost_t;

/* How the ranks of a comm made by infinicclCommInitFromEnv met: the loader's rendezvous store (a
 * small TCP key-value store that rank 0 serves at MASTER_ADDR:MASTER_PORT, ccl/common/tcp_store.hpp)
 * and what the ranks told each other there. A plugin may use the store for its own rendezvous,
 * under keys beginning with `scope`. Check struct_size before using a field appended later. */
typedef struct {
    size_t struct_size;
    const char *store_host; /* MASTER_ADDR */
    int store_port;         /* MASTER_PORT */
    const char *scope;      /* this comm's key prefix; the loader's connection of each rank says
                             * hello under it, so the store knows a rank that went */
    int same_host;          /* 1: every rank runs on this host (INFINICCL_HOSTID, else the host name,
                             * boot id and network namespace); 0: some do not */
    double timeout_s;       /* INFINICCL_TIMEOUT_S: the bound of every wait */
} infinicclPluginRendezvous_t;

/* A plugin's communicator: opaque to the loader. */
typedef void *infinicclPluginComm_t;

typedef struct {
    size_t struct_size; /* sizeof(infinicclPluginTable_t) of the plugin's header */
    uint32_t version;   /* the interface version the plugin uses */
    const char *name;   /* "nccl", "cpu": the <name> of libinfiniccl-<name>.so */
    infiniDevice_t device_type;

    /* Once, at load. SUCCESS: usable. Anything else: the plugin stays loaded but refuses every
     * comm with BACKEND_UNAVAILABLE; `reason` (NUL-terminated, at most reason_size bytes) says why
     * ("libnccl.so.2 not found"). */
    infiniStatus_t (*init)(char *reason, size_t reason_size);
    /* 1 if the plugin takes `dtype` (reduction: in a collective that reduces), else 0. */
    int (*supports)(infiniDtype_t dtype, int reduction);

    infiniStatus_t (*get_unique_id)(unsigned char id[INFINICCL_PLUGIN_UNIQUE_ID_BYTES]);
    /* comms[i]: rank i on device_ids[i] (never NULL here: the loader fills 0..n-1). */
    infiniStatus_t (*comm_init_all)(infinicclPluginComm_t *comms, int ndevice, const int *device_ids);
    infiniStatus_t (*comm_init_rank)(infinicclPluginComm_t *comm, int nranks,
                                     const unsigned char id[INFINICCL_PLUGIN_UNIQUE_ID_BYTES], int rank,
                                     int device_id);
    infiniStatus_t (*comm_destroy)(infinicclPluginComm_t comm);
    infiniStatus_t (*group_start)(void);
    infiniStatus_t (*group_end)(void);

    infiniStatus_t (*all_reduce)(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t count,
                                 infiniDtype_t dtype, infinicclReduceOp_t op, infinirtStream_t stream);
    infiniStatus_t (*broadcast)(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t count,
                                infiniDtype_t dtype, int root, infinirtStream_t stream);
    infiniStatus_t (*reduce)(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t count,
                             infiniDtype_t dtype, infinicclReduceOp_t op, int root, infinirtStream_t stream);
    infiniStatus_t (*all_gather)(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t send_count,
                                 infiniDtype_t dtype, infinirtStream_t stream);
    /* counts: one per rank (the comm's size, checked by the loader). */
    infiniStatus_t (*all_gather_v)(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf,
                                   const size_t *recv_counts, infiniDtype_t dtype, infinirtStream_t stream);
    infiniStatus_t (*reduce_scatter)(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf,
                                     size_t recv_count, infiniDtype_t dtype, infinicclReduceOp_t op,
                                     infinirtStream_t stream);
    infiniStatus_t (*reduce_scatter_v)(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf,
                                       const size_t *send_counts, infiniDtype_t dtype, infinicclReduceOp_t op,
                                       infinirtStream_t stream);
    infiniStatus_t (*send)(infinicclPluginComm_t comm, const void *sendbuf, size_t count, infiniDtype_t dtype,
                           int peer, infinirtStream_t stream);
    infiniStatus_t (*recv)(infinicclPluginComm_t comm, void *recvbuf, size_t count, infiniDtype_t dtype, int peer,
                           infinirtStream_t stream);
    /* Appended: comm_init_rank for a comm whose ranks met through the loader's store
     * (infinicclCommInitFromEnv): `id` is rank 0's get_unique_id, passed to every rank through the
     * store. Missing (NULL, or beyond struct_size): the loader calls comm_init_rank. */
    infiniStatus_t (*comm_init_rank_rendezvous)(infinicclPluginComm_t *comm, int nranks,
                                                const unsigned char id[INFINICCL_PLUGIN_UNIQUE_ID_BYTES], int rank,
                                                int device_id, const infinicclPluginRendezvous_t *rendezvous);
} infinicclPluginTable_t;

/* The one exported symbol. The loader passes the newest interface version it speaks; the plugin
 * answers the version it uses (at most the loader's) and its table (static storage). */
typedef infiniStatus_t (*infinicclPluginQueryFn)(uint32_t loader_version, const infinicclPluginHost_t *host,
                                                 uint32_t *plugin_version, const infinicclPluginTable_t **table);
#define INFINICCL_PLUGIN_QUERY_SYMBOL "infinicclPluginQuery"

#ifdef __cplusplus
}
#endif

#endif
