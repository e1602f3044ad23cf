// ccl_plugin_support.hpp - what every infiniccl plugin shares (header-only, namespace
// infiniccl::common): the loader's services, fail(), the exception guard applied where the table
// is built, and the one entry query.
#pragma once

#include "infiniccl_plugin.h"

#include <cstdarg>
#include <cstdio>
#include <exception>
#include <new>

namespace infiniccl::common {

inline const infinicclPluginHost_t *g_host = nullptr;
inline const char *g_plugin_name = "plugin";

// The latest failure text of this thread (also handed to the loader), so that a plugin's worker
// thread can carry its failure to the thread that reports it.
inline thread_local char t_last_failure[1024];

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
inline infiniStatus_t fail(infiniStatus_t status, const char *fmt, ...) noexcept {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(t_last_failure, sizeof t_last_failure, fmt, ap);
    va_end(ap);
    if (g_host != nullptr && g_host->struct_size >= sizeof(infinicclPluginHost_t) && g_host->set_error != nullptr) {
        g_host->set_error(t_last_failure);
    }
    return status;
}

// No exception crosses the plugin boundary: every table entry is guarded<fn>.
template <typename... Args>
struct Guard {
    template <infiniStatus_t (*Fn)(Args...)>
    static infiniStatus_t call(Args... args) noexcept {
        try {
            return Fn(args...);
        } catch (const std::bad_alloc &) {
            return fail(INFINI_STATUS_OUT_OF_MEMORY, "%s plugin: out of host memory", g_plugin_name);
        } catch (const std::exception &e) {
            return fail(INFINI_STATUS_INTERNAL_ERROR, "%s plugin: unexpected exception: %s", g_plugin_name, e.what());
        } catch (...) {
            return fail(INFINI_STATUS_INTERNAL_ERROR, "%s plugin: unexpected exception", g_plugin_name);
        }
    }
};
template <typename... Args>
constexpr auto guardOf(infiniStatus_t (*)(Args...)) {
    return Guard<Args...>{};
}
#define INFINICCL_GUARDED(fn) (decltype(::infiniccl::common::guardOf(fn))::template call<fn>)

inline infiniStatus_t negotiate(uint32_t loader_version, const infinicclPluginHost_t *host, uint32_t *plugin_version,
                                const infinicclPluginTable_t **table, const infinicclPluginTable_t &mine) noexcept {
    g_host = host;
    g_plugin_name = mine.name;
    if (plugin_version == nullptr || table == nullptr) {
        return fail(INFINI_STATUS_NULL_POINTER, "%s plugin: infinicclPluginQuery needs plugin_version and table",
                    mine.name);
    }
    if (loader_version < 1) {
        return fail(INFINI_STATUS_NOT_IMPLEMENTED, "%s plugin: loader interface version %u, this plugin speaks 1..%u",
                    mine.name, loader_version, INFINICCL_PLUGIN_INTERFACE_VERSION);
    }
    *plugin_version = loader_version < INFINICCL_PLUGIN_INTERFACE_VERSION ? loader_version
                                                                           : INFINICCL_PLUGIN_INTERFACE_VERSION;
    *table = &mine;
    return INFINI_STATUS_SUCCESS;
}

} // namespace infiniccl::common

#define INFINICCL_DEFINE_PLUGIN_ENTRY(table_expr)                                                              \
    extern "C" __attribute__((visibility("default"))) infiniStatus_t infinicclPluginQuery(                     \
        uint32_t loader_version, const infinicclPluginHost_t *host, uint32_t *plugin_version,                  \
        const infinicclPluginTable_t **table) {                                                                \
        return ::infiniccl::common::negotiate(loader_version, host, plugin_version, table, (table_expr));      \
    }

// Declares a backend's entries in the enclosing namespace: every plugin has the same set, and
// INFINICCL_PLUGIN_TABLE builds its table from them.
#define INFINICCL_DECLARE_ENTRIES() \
    infiniStatus_t init(char *reason, size_t reason_size); \
    int supports(infiniDtype_t dtype, int reduction); \
    infiniStatus_t getUniqueId(unsigned char *id); \
    infiniStatus_t commInitAll(infinicclPluginComm_t *comms, int ndevice, const int *device_ids); \
    infiniStatus_t commInitRank(infinicclPluginComm_t *comm, int nranks, const unsigned char *id, int rank, int device_id); \
    infiniStatus_t commDestroy(infinicclPluginComm_t comm); \
    infiniStatus_t groupStart(); \
    infiniStatus_t groupEnd(); \
    infiniStatus_t allReduce(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t count, \
        infiniDtype_t dtype, infinicclReduceOp_t op, infinirtStream_t stream); \
    infiniStatus_t broadcast(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t count, \
        infiniDtype_t dtype, int root, infinirtStream_t stream); \
    infiniStatus_t reduce(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t count, \
        infiniDtype_t dtype, infinicclReduceOp_t op, int root, infinirtStream_t stream); \
    infiniStatus_t allGather(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t send_count, \
        infiniDtype_t dtype, infinirtStream_t stream); \
    infiniStatus_t allGatherV(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, const size_t *recv_counts, \
        infiniDtype_t dtype, infinirtStream_t stream); \
    infiniStatus_t reduceScatter(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, size_t recv_count, \
        infiniDtype_t dtype, infinicclReduceOp_t op, infinirtStream_t stream); \
    infiniStatus_t reduceScatterV(infinicclPluginComm_t comm, const void *sendbuf, void *recvbuf, \
        const size_t *send_counts, infiniDtype_t dtype, infinicclReduceOp_t op, \
        infinirtStream_t stream); \
    infiniStatus_t send(infinicclPluginComm_t comm, const void *sendbuf, size_t count, infiniDtype_t dtype, int peer, \
        infinirtStream_t stream); \
    infiniStatus_t recv(infinicclPluginComm_t comm, void *recvbuf, size_t count, infiniDtype_t dtype, int peer, \
        infinirtStream_t stream); \
    infiniStatus_t commInitRankRendezvous(infinicclPluginComm_t *comm, int nranks, const unsigned char *id, int rank, \
        int device_id, const infinicclPluginRendezvous_t *rendezvous);

// The table of a backend whose entries INFINICCL_DECLARE_ENTRIES declared (in the same namespace).
#define INFINICCL_PLUGIN_TABLE(name_, device_type_)                                                           \
    {                                                                                                          \
        sizeof(infinicclPluginTable_t), INFINICCL_PLUGIN_INTERFACE_VERSION, name_, device_type_,               \
            INFINICCL_GUARDED(init), supports, INFINICCL_GUARDED(getUniqueId), INFINICCL_GUARDED(commInitAll),  \
            INFINICCL_GUARDED(commInitRank), INFINICCL_GUARDED(commDestroy), INFINICCL_GUARDED(groupStart),     \
            INFINICCL_GUARDED(groupEnd), INFINICCL_GUARDED(allReduce), INFINICCL_GUARDED(broadcast),            \
            INFINICCL_GUARDED(reduce), INFINICCL_GUARDED(allGather), INFINICCL_GUARDED(allGatherV),             \
            INFINICCL_GUARDED(reduceScatter), INFINICCL_GUARDED(reduceScatterV), INFINICCL_GUARDED(send),       \
            INFINICCL_GUARDED(recv), INFINICCL_GUARDED(commInitRankRendezvous)                                 \
    }
