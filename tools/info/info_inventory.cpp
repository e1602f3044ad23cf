// info_inventory.cpp - gathers the backends, devices, peer attributes and default device.
#include "info_inventory.h"

#include <cstdio>

namespace infinirt_info_tool {

namespace {

int fails(const char *what, infiniStatus_t st) {
    std::fprintf(stderr, "infinirt-info: %s failed: %s: %s\n", what, infinirtGetErrorName(st),
                 infinirtGetLastErrorMessage());
    return 1;
}

int gatherBackends(std::vector<infinirtBackendInfo_t> *backends) {
    int nb = 0;
    infiniStatus_t st = infinirtGetBackendCount(&nb);
    if (st != INFINI_STATUS_SUCCESS) {
        return fails("infinirtGetBackendCount", st);
    }
    backends->resize(static_cast<size_t>(nb));
    for (int i = 0; i < nb; ++i) {
        (*backends)[i].struct_size = sizeof(infinirtBackendInfo_t);
        if ((st = infinirtGetBackendInfo(i, &(*backends)[i])) != INFINI_STATUS_SUCCESS) {
            return fails("infinirtGetBackendInfo", st);
        }
    }
    return 0;
}

int gatherDevices(std::vector<Device> *devices) {
    int counts[INFINI_DEVICE_TYPE_COUNT] = {};
    const infiniStatus_t st = infinirtGetAllDeviceCountSized(counts, INFINI_DEVICE_TYPE_COUNT);
    if (st != INFINI_STATUS_SUCCESS) {
        return fails("infinirtGetAllDeviceCount", st);
    }
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        for (int id = 0; id < counts[t]; ++id) {
            Device d{};
            d.type = static_cast<infiniDevice_t>(t);
            d.id = id;
            d.props.struct_size = sizeof d.props;
            d.props_ok = infinirtGetDeviceProperties(d.type, id, &d.props) == INFINI_STATUS_SUCCESS;
            d.mem_ok = infinirtGetMemInfo(d.type, id, &d.free_bytes, &d.total_bytes) == INFINI_STATUS_SUCCESS;
            devices->push_back(d);
        }
    }
    return 0;
}

bool peerAttribute(int *value, infinirtPeerAttribute_t attr, const Device &from, const Device &to) {
    return infinirtDeviceGetPeerAttribute(value, attr, from.type, from.id, to.type, to.id) == INFINI_STATUS_SUCCESS;
}

PeerCell peerCell(const Device &from, const Device &to) {
    PeerCell c;
    c.ok = peerAttribute(&c.access, INFINIRT_PEER_ATTR_ACCESS_SUPPORTED, from, to) &&
           peerAttribute(&c.atomics, INFINIRT_PEER_ATTR_NATIVE_ATOMICS_SUPPORTED, from, to) &&
           peerAttribute(&c.direct, INFINIRT_PEER_ATTR_COPY_WITHOUT_STAGING, from, to) &&
           peerAttribute(&c.rank, INFINIRT_PEER_ATTR_PERFORMANCE_RANK, from, to);
    return c;
}

} // namespace

int gatherInventory(Inventory *inventory) {
    const infiniStatus_t st = infinirtInit();
    if (st != INFINI_STATUS_SUCCESS) {
        return fails("infinirtInit", st);
    }
    if (gatherBackends(&inventory->backends) != 0 || gatherDevices(&inventory->devices) != 0) {
        return 1;
    }
    const std::vector<Device> &devices = inventory->devices;
    const size_t n = devices.size();
    inventory->peers.assign(n * n, PeerCell{});
    for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < n; ++j) {
            if (i != j) {
                inventory->peers[i * n + j] = peerCell(devices[i], devices[j]);
            }
        }
    }
    inventory->has_default =
        infinirtGetDevice(&inventory->default_type, &inventory->default_id) == INFINI_STATUS_SUCCESS;
    return 0;
}

} // namespace infinirt_info_tool
