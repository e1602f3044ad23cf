// info_inventory.h - what infinirt-info reports, gathered once before anything is printed: every
// backend plugin (loaded or not), every device with its properties and memory, the peer
// attributes of each ordered pair of devices, and the calling thread's default device.
#pragma once

#include "infinirt.h"

#include <cstddef>
#include <vector>

namespace infinirt_info_tool {

struct Device {
    infiniDevice_t type;
    int id;
    infinirtDeviceProperties_t props;
    size_t free_bytes;
    size_t total_bytes;
    bool props_ok; // infinirtGetDeviceProperties succeeded (else props is not to be read)
    bool mem_ok;   // infinirtGetMemInfo succeeded
};

// What infinirtDeviceGetPeerAttribute says of one ordered pair of devices; ok is false when a
// query failed (a backend without the entries answers them itself, so this is rare).
struct PeerCell {
    bool ok = false;
    int access = 0;
    int atomics = 0;
    int direct = 0;
    int rank = 0;
};

struct Inventory {
    std::vector<infinirtBackendInfo_t> backends;
    std::vector<Device> devices; // in infiniDevice_t order, then by index
    std::vector<PeerCell> peers; // devices.size() squared; the diagonal is left empty
    bool has_default = false;    // infinirtGetDevice succeeded
    infiniDevice_t default_type = INFINI_DEVICE_CPU;
    int default_id = -1;

    // devices[from] -> devices[to], from != to.
    const PeerCell &peer(size_t from, size_t to) const { return peers[from * devices.size() + to]; }
};

// Initialises infinirt and fills *inventory. Returns 0, or 1 after printing the call that failed
// with infinirt's message on stderr. A device whose properties or memory cannot be read is kept,
// with props_ok / mem_ok false.
int gatherInventory(Inventory *inventory);

} // namespace infinirt_info_tool
