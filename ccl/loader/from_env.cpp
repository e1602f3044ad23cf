// infinicclCommInitFromEnv: a comm from the variables a launcher sets (torchrun, mpirun, Slurm),
// through a rendezvous store that rank 0 serves at MASTER_ADDR:MASTER_PORT (ccl/common/tcp_store.hpp):
// every rank says which host it runs on, rank 0 publishes its unique id, every rank waits (bounded
// by INFINICCL_TIMEOUT_S) until all have come, then joins through its plugin. The connection of each
// rank stays open with the comm, so that the store knows a rank that went without destroying it.
#include "internal.h"
#include "tcp_store.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>

namespace infiniccl {

namespace {

// The connections of the comms made here (liveness), released by CommDestroy.
std::mutex &g_rendezvous_lock = *new std::mutex;
std::map<const Comm *, std::unique_ptr<store::Client>> &g_rendezvous =
    *new std::map<const Comm *, std::unique_ptr<store::Client>>;
// Comms made from the environment by this process, so far: each gets its own keys on the store.
std::atomic<int> g_generation{0};

// The value of `name` as an integer in [lo, hi]: 1 found, 0 unset, -1 not such an integer.
int envInt(const char *name, long lo, long hi, long *out) {
    const char *v = std::getenv(name);
    if (v == nullptr || *v == '\0') return 0;
    char *end = nullptr;
    errno = 0;
    const long x = std::strtol(v, &end, 10);
    if (errno != 0 || *end != '\0' || x < lo || x > hi) return -1;
    *out = x;
    return 1;
}

struct Launcher {
    const char *rank;
    const char *size;
    const char *local_rank;
    const char *who;
};
constexpr Launcher kLaunchers[] = {
    {"RANK", "WORLD_SIZE", "LOCAL_RANK", "torchrun"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "Open MPI's mpirun"},
    {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPICH's mpiexec"},
    {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "Slurm"},
};

// Which host this rank runs on: INFINICCL_HOSTID, else the host name, the boot id and the network
// namespace (ranks in different network namespaces of one machine count as different hosts).
std::string hostId() {
    if (const char *v = std::getenv("INFINICCL_HOSTID"); v != nullptr && *v != '\0') return v;
    char name[256] = "";
    gethostname(name, sizeof name - 1);
    std::string boot;
    std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
    char ns[128] = "";
    const ssize_t n = readlink("/proc/self/ns/net", ns, sizeof ns - 1);
    if (n > 0) ns[n] = '\0';
    return std::string(name) + "/" + boot + "/" + ns;
}

std::string rankList(const std::vector<int> &ranks) {
    std::string s;
    for (size_t i = 0; i < ranks.size(); ++i) s += (i == 0 ? "" : ", ") + std::to_string(ranks[i]);
    return s;
}

} // namespace

void releaseRendezvous(const Comm *comm) {
    std::unique_ptr<store::Client> client;
    {
        std::lock_guard<std::mutex> guard(g_rendezvous_lock);
        auto it = g_rendezvous.find(comm);
        if (it == g_rendezvous.end()) return;
        client = std::move(it->second);
        g_rendezvous.erase(it);
    }
    std::string ignored;
    client->bye(&ignored);
}

} // namespace infiniccl

using namespace infiniccl;

extern "C" __export infiniStatus_t infinicclCommInitFromEnv(infinicclComm_t *comm, infiniDevice_t device_type) {
    static const char *const kCall = "infinicclCommInitFromEnv";
    if (comm == nullptr) return fail(INFINI_STATUS_NULL_POINTER, "%s: comm is NULL", kCall);
    // The launcher: the first whose rank and size are both set.
    long rank = -1, nranks = 0, local = 0;
    const Launcher *launcher = nullptr;
    for (const Launcher &l : kLaunchers) {
        const int r = envInt(l.rank, 0, INT_MAX, &rank), s = envInt(l.size, 1, INT_MAX, &nranks);
        if (r == 0 && s == 0) continue;
        if (r != 1 || s != 1 || rank >= nranks) {
            return fail(INFINI_STATUS_BAD_PARAM, "%s: %s=%s and %s=%s (%s) must be a rank in [0, size) and a size >= 1",
                        kCall, l.rank, std::getenv(l.rank) ? std::getenv(l.rank) : "(unset)", l.size,
                        std::getenv(l.size) ? std::getenv(l.size) : "(unset)", l.who);
        }
        if (envInt(l.local_rank, 0, INT_MAX, &local) < 0) {
            return fail(INFINI_STATUS_BAD_PARAM, "%s: %s=%s is not a local rank", kCall, l.local_rank,
                        std::getenv(l.local_rank));
        }
        launcher = &l;
        break;
    }
    if (launcher == nullptr) {
        return fail(INFINI_STATUS_BAD_PARAM,
                    "%s: no launcher's variables: set RANK and WORLD_SIZE (torchrun), or run under mpirun "
                    "(OMPI_COMM_WORLD_RANK/SIZE) or Slurm (SLURM_PROCID/SLURM_NTASKS)",
                    kCall);
    }
    const Plugin *plugin = nullptr;
    if (infiniStatus_t st = pluginFor(device_type, &plugin)) return st;
    int count = 0;
    if (infiniStatus_t st = infinirtGetDeviceCount(device_type, &count)) return st;
    if (count < 1) {
        return fail(INFINI_STATUS_DEVICE_NOT_FOUND, "%s: this host has no %s device", kCall, plugin->table.name);
    }
    const int device = static_cast<int>(local % count);
    if (infiniStatus_t st = infinirtSetDevice(device_type, device)) return st;
    const int me = static_cast<int>(rank), n = static_cast<int>(nranks);
    if (n == 1) {
        infinicclUniqueId_t id;
        if (infiniStatus_t st = infinicclGetUniqueId(&id)) return st;
        return infinicclCommInitRank(comm, 1, id, 0);
    }

    const char *addr = std::getenv("MASTER_ADDR");
    long port = 0;
    if (addr == nullptr || *addr == '\0' || envInt("MASTER_PORT", 1, 65535, &port) != 1) {
        return fail(INFINI_STATUS_BAD_PARAM,
                    "%s: rank %d of %d (%s): MASTER_ADDR and MASTER_PORT must name rank 0's host and a free TCP port "
                    "there (MASTER_ADDR=%s, MASTER_PORT=%s)",
                    kCall, me, n, launcher->who, addr ? addr : "(unset)",
                    std::getenv("MASTER_PORT") ? std::getenv("MASTER_PORT") : "(unset)");
    }
    const double timeout = store::timeoutSeconds();
    const auto deadline = store::Clock::now() + std::chrono::milliseconds(static_cast<long long>(timeout * 1000));
    std::string error;
    if (me == 0 && store::Server::serve(static_cast<int>(port), &error) == nullptr) {
        return fail(INFINI_STATUS_DRIVER_ERROR, "%s: rank 0 cannot serve the rendezvous store on MASTER_PORT=%ld: %s",
                    kCall, port, error.c_str());
    }
    std::unique_ptr<store::Client> client = store::Client::connect(addr, static_cast<int>(port), deadline, &error);
    if (client == nullptr) {
        return fail(INFINI_STATUS_DRIVER_ERROR,
                    "%s: rank %d of %d: no rendezvous store at MASTER_ADDR=%s MASTER_PORT=%ld within %.0f s "
                    "(INFINICCL_TIMEOUT_S): %s. Rank 0 serves it: is rank 0 running, is MASTER_ADDR its address, "
                    "and is the port open?",
                    kCall, me, n, addr, port, timeout, error.c_str());
    }
    const std::string scope = "c" + std::to_string(g_generation++) + "/";
    const std::string host = hostId();
    infinicclUniqueId_t id;
    if (me == 0) {
        if (infiniStatus_t st = infinicclGetUniqueId(&id)) return st;
    }
    if (!client->hello(scope, me, &error) || !client->set(scope + "host/" + std::to_string(me), host, &error) ||
        (me == 0 && !client->set(scope + "id", std::string(id.internal, sizeof id.internal), &error))) {
        return fail(INFINI_STATUS_DRIVER_ERROR, "%s: rank %d of %d: %s", kCall, me, n, error.c_str());
    }
    bool same_host = true;
    for (int r = 0; r < n; ++r) {
        std::string theirs;
        bool timed_out = false;
        if (!client->get(scope + "host/" + std::to_string(r), deadline, &theirs, &error, &timed_out)) {
            if (!timed_out) {
                // Rank 0 gave up first (its bound started earlier) and its store went with it: the rank
                // waited for is the one that did not come.
                return fail(INFINI_STATUS_DRIVER_ERROR,
                            "%s: rank %d of %d: rank %d never came to the rendezvous at %s:%ld: rank 0's store "
                            "closed while this rank waited for it (%s; bound %.0f s, INFINICCL_TIMEOUT_S)",
                            kCall, me, n, r, addr, port, error.c_str(), timeout);
            }
            std::vector<int> missing;
            for (int q = r; q < n; ++q) {
                if (!client->get(scope + "host/" + std::to_string(q), store::Clock::now(), &theirs, &error)) {
                    missing.push_back(q);
                }
            }
            return fail(INFINI_STATUS_DRIVER_ERROR,
                        "%s: rank %d of %d: rank%s %s never came to the rendezvous at %s:%ld within %.0f s "
                        "(INFINICCL_TIMEOUT_S)",
                        kCall, me, n, missing.size() > 1 ? "s" : "", rankList(missing).c_str(), addr, port, timeout);
        }
        same_host = same_host && theirs == host;
    }
    if (me != 0) {
        std::string bytes;
        if (!client->get(scope + "id", deadline, &bytes, &error) || bytes.size() != sizeof id.internal) {
            return fail(INFINI_STATUS_DRIVER_ERROR, "%s: rank %d of %d: rank 0's unique id: %s", kCall, me, n,
                        error.c_str());
        }
        std::memcpy(id.internal, bytes.data(), sizeof id.internal);
    }
    const infinicclPluginRendezvous_t rendezvous = {sizeof(infinicclPluginRendezvous_t),
                                                    addr,
                                                    static_cast<int>(port),
                                                    scope.c_str(),
                                                    same_host ? 1 : 0,
                                                    timeout};
    infinicclPluginComm_t impl = nullptr;
    const unsigned char *bytes = reinterpret_cast<const unsigned char *>(id.internal) + 8;
    if (plugin->table.comm_init_rank_rendezvous != nullptr) {
        INFINICCL_PLUGIN_CALL(plugin, device, comm_init_rank_rendezvous, &impl, n, bytes, me, device, &rendezvous);
    } else {
        INFINICCL_PLUGIN_CALL(plugin, device, comm_init_rank, &impl, n, bytes, me, device);
    }
    Comm *c = newComm(plugin, impl, device_type, device, me, n);
    {
        std::lock_guard<std::mutex> guard(g_rendezvous_lock);
        g_rendezvous[c] = std::move(client);
    }
    *comm = reinterpret_cast<infinicclComm_t>(c);
    return INFINI_STATUS_SUCCESS;
}
