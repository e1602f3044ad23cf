// Communicators of the cpu backend: CommInitAll (one heap region for the ranks of this process),
// the unique id (16 random bytes naming a shared-memory segment) and CommInitRank (joins it).
#include "cpu_backend.h"

#include <sys/random.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace infiniccl::cpu {

infiniStatus_t init(char *, size_t) { return INFINI_STATUS_SUCCESS; }

int supports(infiniDtype_t dtype, int reduction) { return dtypeSupported(dtype, reduction) ? 1 : 0; }

infiniStatus_t getUniqueId(unsigned char *id) {
    std::memset(id, 0, INFINICCL_PLUGIN_UNIQUE_ID_BYTES);
    std::memcpy(id, "cpu", 4);
    size_t got = 0;
    while (got < 16) {
        const ssize_t n = getrandom(id + 4 + got, 16 - got, 0);
        if (n < 0 && errno != EINTR) {
            return fail(INFINI_STATUS_DRIVER_ERROR, "getrandom for the unique id: %s", std::strerror(errno));
        }
        got += n > 0 ? static_cast<size_t>(n) : 0;
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t commInitAll(infinicclPluginComm_t *comms, int ndevice, const int *device_ids) {
    if (ndevice > kMaxRanks) {
        return fail(INFINI_STATUS_BAD_PARAM, "%d ranks: the cpu backend joins at most %d", ndevice, kMaxRanks);
    }
    std::shared_ptr<Region> region;
    if (infiniStatus_t st = createHeapRegion(ndevice, &region)) return st;
    for (int i = 0; i < ndevice; ++i) {
        auto *c = new Comm;
        c->region = region;
        c->rank = i;
        c->nranks = ndevice;
        c->device = device_ids[i];
        c->layout = Layout(ndevice);
        comms[i] = c;
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t commInitRank(infinicclPluginComm_t *comm, int nranks, const unsigned char *id, int rank,
                            int device_id) {
    std::shared_ptr<Region> region;
    if (infiniStatus_t st = joinSharedRegion(id, nranks, rank, &region)) return st;
    auto *c = new Comm;
    c->region = std::move(region);
    c->rank = rank;
    c->nranks = nranks;
    c->device = device_id;
    c->layout = Layout(nranks);
    c->barriers = 1; // the join was the first barrier
    *comm = c;
    return INFINI_STATUS_SUCCESS;
}

// Ranks that met through the loader's store: all on this host, shared memory as CommInitRank;
// otherwise Gloo over TCP. INFINICCL_CPU_TRANSPORT=gloo or shm chooses instead.
infiniStatus_t commInitRankRendezvous(infinicclPluginComm_t *comm, int nranks, const unsigned char *id, int rank,
                                      int device_id, const infinicclPluginRendezvous_t *rendezvous) {
    const char *forced = std::getenv("INFINICCL_CPU_TRANSPORT");
    const bool want_gloo = forced != nullptr && std::strcmp(forced, "gloo") == 0;
    const bool want_shm = forced != nullptr && std::strcmp(forced, "shm") == 0;
    if (forced != nullptr && *forced != '\0' && !want_gloo && !want_shm) {
        return fail(INFINI_STATUS_BAD_PARAM, "INFINICCL_CPU_TRANSPORT=%s: gloo or shm", forced);
    }
    if (want_shm || (!want_gloo && rendezvous->same_host != 0)) {
        if (rendezvous->same_host == 0) {
            return fail(INFINI_STATUS_BAD_PARAM,
                        "INFINICCL_CPU_TRANSPORT=shm, but the ranks are not all on one host (their INFINICCL_HOSTID, "
                        "or host name, boot id and network namespace, differ)");
        }
        return commInitRank(comm, nranks, id, rank, device_id);
    }
    auto c = std::make_unique<Comm>();
    c->rank = rank;
    c->nranks = nranks;
    c->device = device_id;
    if (infiniStatus_t st = glooCommInit(*c, *rendezvous)) return st;
    *comm = c.release();
    return INFINI_STATUS_SUCCESS;
}

// Every call of this backend completed before it returned: nothing is pending.
infiniStatus_t commDestroy(infinicclPluginComm_t comm) {
    reportStats(*static_cast<Comm *>(comm));
    delete static_cast<Comm *>(comm);
    return INFINI_STATUS_SUCCESS;
}

} // namespace infiniccl::cpu
