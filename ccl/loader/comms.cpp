// Communicator handles and their life: CommInitAll, GetUniqueId, CommInitRank, CommDestroy and
// the queries. Handles are checked against a live set, and a Comm is never freed, so that a
// destroyed or foreign handle is refused without being dereferenced.
#include "internal.h"

#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <unordered_set>
#include <vector>

namespace infiniccl {

namespace {

// Never destroyed (no teardown at exit); destroyed comms stay listed in g_retired, so they are
// neither reused nor reported as leaks.
std::shared_mutex &g_live_lock = *new std::shared_mutex;
std::unordered_set<const Comm *> &g_live = *new std::unordered_set<const Comm *>;
std::vector<const Comm *> &g_retired = *new std::vector<const Comm *>;

constexpr unsigned char kIdMagic[4] = {'I', 'C', 'C', 'L'};

} // namespace

Comm *newComm(const Plugin *plugin, infinicclPluginComm_t impl, infiniDevice_t type, int device, int rank,
              int nranks) {
    auto *c = new Comm{plugin, impl, type, device, rank, nranks};
    std::unique_lock<std::shared_mutex> lock(g_live_lock);
    g_live.insert(c);
    return c;
}

Comm *liveComm(infinicclComm_t handle, infiniStatus_t *status, const char *call) {
    if (handle == nullptr) {
        *status = fail(INFINI_STATUS_NULL_POINTER, "%s: comm is NULL", call);
        return nullptr;
    }
    auto *c = reinterpret_cast<Comm *>(handle);
    {
        std::shared_lock<std::shared_mutex> lock(g_live_lock);
        if (g_live.count(c) != 0) return c;
    }
    *status = fail(INFINI_STATUS_INVALID_HANDLE, "%s: comm %p is destroyed or was never created", call,
                   static_cast<void *>(handle));
    return nullptr;
}

bool retireComm(Comm *comm) {
    std::unique_lock<std::shared_mutex> lock(g_live_lock);
    if (g_live.erase(comm) == 0) return false;
    g_retired.push_back(comm);
    return true;
}

// An int field of a live comm written to `out` (the handle checked first, then the output).
infiniStatus_t commField(infinicclComm_t comm, int *out, int Comm::*field, const char *call, const char *name) {
    infiniStatus_t st = INFINI_STATUS_SUCCESS;
    Comm *c = liveComm(comm, &st, call);
    if (c == nullptr) return st;
    if (out == nullptr) return fail(INFINI_STATUS_NULL_POINTER, "%s: %s is NULL", call, name);
    *out = c->*field;
    return INFINI_STATUS_SUCCESS;
}

} // namespace infiniccl

using namespace infiniccl;

extern "C" {

__export infiniStatus_t infinicclCommInitAll(infiniDevice_t device_type, infinicclComm_t *comms, int ndevice,
                                             const int *device_ids) {
    if (comms == nullptr) return fail(INFINI_STATUS_NULL_POINTER, "infinicclCommInitAll: comms is NULL");
    if (ndevice < 1) return fail(INFINI_STATUS_BAD_PARAM, "infinicclCommInitAll: ndevice is %d, must be >= 1", ndevice);
    const Plugin *plugin = nullptr;
    if (infiniStatus_t st = pluginFor(device_type, &plugin)) return st;
    int count = 0;
    if (infiniStatus_t st = infinirtGetDeviceCount(device_type, &count)) return st;
    std::vector<int> ids(static_cast<size_t>(ndevice));
    for (int i = 0; i < ndevice; ++i) {
        ids[i] = device_ids != nullptr ? device_ids[i] : i;
        if (ids[i] < 0 || ids[i] >= count) {
            return fail(INFINI_STATUS_DEVICE_NOT_FOUND, "infinicclCommInitAll: device id %d (rank %d) is not one of the %d %s devices",
                        ids[i], i, count, plugin->table.name);
        }
        for (int j = 0; j < i; ++j) {
            if (ids[j] == ids[i]) {
                return fail(INFINI_STATUS_BAD_PARAM, "infinicclCommInitAll: device %d is given twice (ranks %d and %d)",
                            ids[i], j, i);
            }
        }
    }
    std::vector<infinicclPluginComm_t> impl(static_cast<size_t>(ndevice), nullptr);
    INFINICCL_PLUGIN_CALL(plugin, ids[0], comm_init_all, impl.data(), ndevice, ids.data());
    for (int i = 0; i < ndevice; ++i) {
        comms[i] = reinterpret_cast<infinicclComm_t>(newComm(plugin, impl[i], device_type, ids[i], i, ndevice));
    }
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinicclGetUniqueId(infinicclUniqueId_t *unique_id) {
    if (unique_id == nullptr) return fail(INFINI_STATUS_NULL_POINTER, "infinicclGetUniqueId: unique_id is NULL");
    infiniDevice_t type{};
    int device = 0;
    if (infiniStatus_t st = infinirtGetDevice(&type, &device)) return st;
    const Plugin *plugin = nullptr;
    if (infiniStatus_t st = pluginFor(type, &plugin)) return st;
    infinicclUniqueId_t id;
    std::memset(&id, 0, sizeof id);
    std::memcpy(id.internal, kIdMagic, sizeof kIdMagic);
    id.internal[4] = static_cast<char>(type);
    INFINICCL_PLUGIN_CALL(plugin, device, get_unique_id, reinterpret_cast<unsigned char *>(id.internal) + 8);
    *unique_id = id;
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinicclCommInitRank(infinicclComm_t *comm, int nranks, infinicclUniqueId_t comm_id,
                                              int rank) {
    if (comm == nullptr) return fail(INFINI_STATUS_NULL_POINTER, "infinicclCommInitRank: comm is NULL");
    if (nranks < 1 || rank < 0 || rank >= nranks) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinicclCommInitRank: rank %d of %d ranks", rank, nranks);
    }
    infiniDevice_t type{};
    int device = 0;
    if (infiniStatus_t st = infinirtGetDevice(&type, &device)) return st;
    if (std::memcmp(comm_id.internal, kIdMagic, sizeof kIdMagic) != 0) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinicclCommInitRank: the unique id was not made by infinicclGetUniqueId");
    }
    if (static_cast<int>(static_cast<unsigned char>(comm_id.internal[4])) != static_cast<int>(type)) {
        return fail(INFINI_STATUS_BAD_PARAM,
                    "infinicclCommInitRank: the unique id is for device type %d, the current device is of type %d",
                    static_cast<unsigned char>(comm_id.internal[4]), static_cast<int>(type));
    }
    const Plugin *plugin = nullptr;
    if (infiniStatus_t st = pluginFor(type, &plugin)) return st;
    infinicclPluginComm_t impl = nullptr;
    INFINICCL_PLUGIN_CALL(plugin, device, comm_init_rank, &impl, nranks,
                          reinterpret_cast<const unsigned char *>(comm_id.internal) + 8, rank, device);
    *comm = reinterpret_cast<infinicclComm_t>(newComm(plugin, impl, type, device, rank, nranks));
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinicclCommDestroy(infinicclComm_t comm) {
    if (comm == nullptr) return INFINI_STATUS_SUCCESS; // as published
    infiniStatus_t st = INFINI_STATUS_SUCCESS;
    Comm *c = liveComm(comm, &st, "infinicclCommDestroy");
    if (c == nullptr || !retireComm(c)) {
        return c == nullptr ? st
                            : fail(INFINI_STATUS_INVALID_HANDLE, "infinicclCommDestroy: comm %p was destroyed by another thread",
                                   static_cast<void *>(comm));
    }
    releaseRendezvous(c);
    INFINICCL_PLUGIN_CALL(c->plugin, c->device_id, comm_destroy, c->impl);
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinicclCommGetDevice(infinicclComm_t comm, infiniDevice_t *device_type, int *device_id) {
    infiniStatus_t st = INFINI_STATUS_SUCCESS;
    Comm *c = liveComm(comm, &st, "infinicclCommGetDevice");
    if (c == nullptr) return st;
    if (device_type == nullptr || device_id == nullptr) {
        return fail(INFINI_STATUS_NULL_POINTER, "infinicclCommGetDevice: device_type and device_id must not be NULL");
    }
    *device_type = c->device_type;
    *device_id = c->device_id;
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinicclCommGetRank(infinicclComm_t comm, int *rank) {
    return commField(comm, rank, &Comm::rank, "infinicclCommGetRank", "rank");
}

__export infiniStatus_t infinicclCommGetSize(infinicclComm_t comm, int *nranks) {
    return commField(comm, nranks, &Comm::nranks, "infinicclCommGetSize", "nranks");
}

} // extern "C"
