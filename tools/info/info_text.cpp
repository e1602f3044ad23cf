// info_text.cpp - the text report.
#include "info_text.h"

#include "info_labels.h"

#include <cstdio>
#include <string>

namespace infinirt_info_tool {

namespace {

std::string bytesText(size_t bytes) {
    char b[32];
    if (bytes >= (size_t{1} << 20) && bytes % (size_t{1} << 20) == 0) {
        std::snprintf(b, sizeof b, "%zu MiB", bytes >> 20);
    } else if (bytes >= 1024 && bytes % 1024 == 0) {
        std::snprintf(b, sizeof b, "%zu KiB", bytes >> 10);
    } else {
        std::snprintf(b, sizeof b, "%zu bytes", bytes);
    }
    return b;
}

// Appends `part` to a comma-separated list.
void append(std::string &list, const std::string &part) { list += (list.empty() ? "" : ", ") + part; }

std::string dims(const int v[3]) {
    return std::to_string(v[0]) + " x " + std::to_string(v[1]) + " x " + std::to_string(v[2]);
}

// "core N MHz, memory N MHz, N-bit bus", each part only when known; "" when none is.
std::string clocksText(const infinirtDeviceProperties_t &p) {
    std::string clocks;
    if (p.clock_rate_khz > 0) {
        append(clocks, "core " + std::to_string(p.clock_rate_khz / 1000) + " MHz");
    }
    if (p.memory_clock_rate_khz > 0) {
        append(clocks, "memory " + std::to_string(p.memory_clock_rate_khz / 1000) + " MHz");
    }
    if (p.memory_bus_width_bits > 0) {
        append(clocks, std::to_string(p.memory_bus_width_bits) + "-bit bus");
    }
    return clocks;
}

// Threads per block, block and grid dimensions, shared memory per block, each only when known.
std::string limitsText(const infinirtDeviceProperties_t &p) {
    std::string limits;
    if (p.max_threads_per_block > 0) {
        append(limits, "max " + std::to_string(p.max_threads_per_block) + " threads per block");
    }
    if (p.max_block_dim[0] > 0) {
        append(limits, "block " + dims(p.max_block_dim));
    }
    if (p.max_grid_dim[0] > 0) {
        append(limits, "grid " + dims(p.max_grid_dim));
    }
    if (p.shared_memory_per_block > 0) {
        append(limits, bytesText(p.shared_memory_per_block) + " shared per block");
    }
    return limits;
}

void printBackends(const std::vector<infinirtBackendInfo_t> &backends) {
    std::printf("Backends (%d plugins; unavailable: no usable device here, the reason says why):\n",
                static_cast<int>(backends.size()));
    for (const infinirtBackendInfo_t &b : backends) {
        std::printf("  %-10s %-11s %d device(s)  %s\n", b.name, stateName(b.state), b.device_count, b.path);
        if (b.reason[0] != '\0') {
            std::printf("             reason: %s\n", b.reason);
        }
    }
}

void printProperties(infiniDevice_t type, const infinirtDeviceProperties_t &p) {
    std::string line = std::string("vendor ") + p.vendor;
    if (p.platform[0]) {
        append(line, std::string("platform ") + p.platform);
    }
    if (p.architecture[0]) { // left out where the backend does not know it
        append(line, std::string("architecture ") + p.architecture);
    }
    if (p.multiprocessor_count > 0) {
        append(line, std::to_string(p.multiprocessor_count) +
                         (type == INFINI_DEVICE_CPU ? " cores" : " compute units (SMs, CUs or cores)"));
    }
    std::printf("      %s\n", line.c_str());
    const char *kind = kindName(p.device_kind);
    // memory_is_host: another backend's device copies straight to and from it (D in the peer matrix).
    std::printf("      kind %s, graphs %s, memory %s\n", kind ? kind : "unknown",
                p.graphs_native ? "native" : "recorded and replayed by infinirt",
                p.memory_is_host ? "host memory (other backends' devices copy to and from it directly)"
                                 : "device memory");
    if (p.compute_capability_major >= 0) {
        std::printf("      compute capability %d.%d\n", p.compute_capability_major, p.compute_capability_minor);
    }
    const std::string clocks = clocksText(p);
    if (!clocks.empty()) {
        std::printf("      clocks: %s\n", clocks.c_str());
    }
    if (p.cache_bytes > 0) {
        std::printf("      cache %s\n", bytesText(p.cache_bytes).c_str());
    }
    const std::string limits = limitsText(p);
    if (!limits.empty()) {
        std::printf("      launch: %s\n", limits.c_str());
    }
    if (p.has_uuid || p.pci_bus_id[0]) {
        std::printf("      uuid %s  pci %s\n", uuidText(p).c_str(), p.pci_bus_id);
    }
    if (p.driver_version[0]) {
        // The cpu backend has no driver: it reports the operating system's kernel release.
        std::printf(type == INFINI_DEVICE_CPU ? "      OS kernel %s\n" : "      driver %s\n", p.driver_version);
    }
}

void printDevices(const Inventory &inv) {
    std::printf("Devices (%zu):\n", inv.devices.size());
    for (const Device &d : inv.devices) {
        const bool is_default = inv.has_default && d.type == inv.default_type && d.id == inv.default_id;
        std::printf("  %s:%d%s  %s\n", typeLabel(d.type), d.id, is_default ? " (default)" : "",
                    d.props_ok ? d.props.name : "(properties unavailable)");
        if (d.props_ok) {
            printProperties(d.type, d.props);
        }
        if (d.mem_ok) {
            std::printf("      memory %.1f GiB total, %.1f GiB free\n", d.total_bytes / 1073741824.0,
                        d.free_bytes / 1073741824.0);
        }
    }
    if (inv.devices.empty()) {
        std::printf("  (none)\n");
    }
}

std::string deviceLabel(const Device &d) { return std::string(typeLabel(d.type)) + ":" + std::to_string(d.id); }

// A: access supported, D or S: direct or staged copy, +atomics, r<rank>; "?" when a query failed.
std::string peerText(const PeerCell &c) {
    if (!c.ok) {
        return "?";
    }
    std::string cell = std::string(c.access ? "A" : "") + (c.direct ? "D" : "S");
    if (c.atomics) {
        cell += "+atomics";
    }
    if (c.rank > 0) {
        cell += " r" + std::to_string(c.rank);
    }
    return cell;
}

void printPeers(const Inventory &inv) {
    std::printf("Peers (row to column; A: access supported (infinirtDeviceEnablePeerAccess), D: direct copy,\n"
                "       S: copy staged through host memory; +atomics; r<rank> where the driver ranks the link):\n");
    std::printf("  %-12s", "");
    for (const Device &d : inv.devices) {
        std::printf(" %-12s", deviceLabel(d).c_str());
    }
    std::printf("\n");
    for (size_t i = 0; i < inv.devices.size(); ++i) {
        std::printf("  %-12s", deviceLabel(inv.devices[i]).c_str());
        for (size_t j = 0; j < inv.devices.size(); ++j) {
            std::printf(" %-12s", i == j ? "-" : peerText(inv.peer(i, j)).c_str());
        }
        std::printf("\n");
    }
}

} // namespace

void printText(const Inventory &inventory) {
    printBackends(inventory.backends);
    printDevices(inventory);
    if (inventory.devices.size() > 1) {
        printPeers(inventory);
    }
}

} // namespace infinirt_info_tool
