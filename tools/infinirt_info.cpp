// infinirt-info: lists the backend plugins (loaded or not, and why) and every device with its
// properties (kind, clocks, cache, launch limits, graphs native or emulated). `--json` prints the
// same as one JSON document (schema in README.md, "schema_version" 1): a property the backend
// does not know is left out, never given a placeholder. `--version` prints the version.
#include "infinirt.h"
#include "json_text.h"

#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

namespace {

const char *stateName(infinirtBackendState_t s) {
    switch (s) {
    case INFINIRT_BACKEND_LOADED: return "loaded";
    case INFINIRT_BACKEND_UNAVAILABLE: return "unavailable";
    case INFINIRT_BACKEND_FAILED: return "failed";
    case INFINIRT_BACKEND_SHADOWED: return "shadowed";
    }
    return "unknown";
}

std::string json(const char *s) { return infinirt_tools::jsonText(s); }

std::string uuidText(const infinirtDeviceProperties_t &p) {
    if (!p.has_uuid) {
        return "";
    }
    std::string s;
    for (int i = 0; i < 16; ++i) {
        char b[4];
        std::snprintf(b, sizeof b, "%02x", p.uuid[i]);
        s += b;
        if (i == 3 || i == 5 || i == 7 || i == 9) {
            s += '-';
        }
    }
    return s;
}

#ifndef INFINIRT_INFO_VERSION
#error "tools/CMakeLists.txt defines INFINIRT_INFO_VERSION"
#endif
// The layout of --json: raised when a field changes meaning or goes away (not when one is added).
constexpr int kJsonSchemaVersion = 1;

const char *kindName(infinirtDeviceKind_t k) {
    switch (k) {
    case INFINIRT_DEVICE_KIND_CPU: return "cpu";
    case INFINIRT_DEVICE_KIND_GPU: return "gpu";
    case INFINIRT_DEVICE_KIND_ACCELERATOR: return "accelerator";
    case INFINIRT_DEVICE_KIND_UNKNOWN: break;
    }
    return nullptr;
}

// ", \"key\": value" for a known (non-zero) figure; "" when unknown.
std::string jsonNumber(const char *key, unsigned long long value) {
    return value == 0 ? std::string() : std::string(", \"") + key + "\": " + std::to_string(value);
}

std::string jsonString(const char *key, const char *value) {
    return value == nullptr || *value == '\0' ? std::string() : std::string(", \"") + key + "\": " + json(value);
}

// [x, y, z], or "" when any is unknown.
std::string jsonTriple(const char *key, const int v[3]) {
    if (v[0] <= 0 || v[1] <= 0 || v[2] <= 0) {
        return std::string();
    }
    return std::string(", \"") + key + "\": [" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " +
           std::to_string(v[2]) + "]";
}

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

struct Device {
    infiniDevice_t type;
    int id;
    infinirtDeviceProperties_t props;
    size_t free_bytes;
    size_t total_bytes;
    bool props_ok;
    bool mem_ok;
};

const char *typeLabel(infiniDevice_t t) {
    static const char *names[] = {"cpu",    "nvidia", "cambricon", "ascend", "metax", "moore", "iluvatar",
                                  "kunlun", "hygon",  "qy",        "ali",    "amd",   "opencl"};
    return t >= 0 && t < INFINI_DEVICE_TYPE_COUNT ? names[t] : "unknown";
}

// What infinirtDeviceGetPeerAttribute says of one ordered pair of devices; ok is false when a
// query failed (a backend without the entries answers them itself, so this is rare).
struct PeerCell {
    bool ok = false;
    int access = 0;
    int atomics = 0;
    int direct = 0;
    int rank = 0;
};

PeerCell peerCell(const Device &from, const Device &to) {
    PeerCell c;
    c.ok = infinirtDeviceGetPeerAttribute(&c.access, INFINIRT_PEER_ATTR_ACCESS_SUPPORTED, from.type, from.id, to.type,
                                          to.id) == INFINI_STATUS_SUCCESS &&
           infinirtDeviceGetPeerAttribute(&c.atomics, INFINIRT_PEER_ATTR_NATIVE_ATOMICS_SUPPORTED, from.type, from.id,
                                          to.type, to.id) == INFINI_STATUS_SUCCESS &&
           infinirtDeviceGetPeerAttribute(&c.direct, INFINIRT_PEER_ATTR_COPY_WITHOUT_STAGING, from.type, from.id,
                                          to.type, to.id) == INFINI_STATUS_SUCCESS &&
           infinirtDeviceGetPeerAttribute(&c.rank, INFINIRT_PEER_ATTR_PERFORMANCE_RANK, from.type, from.id, to.type,
                                          to.id) == INFINI_STATUS_SUCCESS;
    return c;
}

int fails(const char *what, infiniStatus_t st) {
    std::fprintf(stderr, "infinirt-info: %s failed: %s: %s\n", what, infinirtGetErrorName(st),
                 infinirtGetLastErrorMessage());
    return 1;
}

} // namespace

int main(int argc, char **argv) {
    bool as_json = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--json") == 0) {
            as_json = true;
        } else if (std::strcmp(argv[i], "--version") == 0) {
            std::printf("infinirt-info %s\n", INFINIRT_INFO_VERSION);
            return 0;
        } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
            std::printf("usage: infinirt-info [--json] [--version]\n"
                        "Lists infinirt backend plugins (and why any did not load) and all devices with their\n"
                        "kind, memory, clocks, cache and launch limits. --json: one JSON document (README.md).\n");
            return 0;
        } else {
            std::fprintf(stderr, "infinirt-info: unknown argument %s (try --help)\n", argv[i]);
            return 2;
        }
    }
    infiniStatus_t st = infinirtInit();
    if (st != INFINI_STATUS_SUCCESS) {
        return fails("infinirtInit", st);
    }
    int nb = 0;
    if ((st = infinirtGetBackendCount(&nb)) != INFINI_STATUS_SUCCESS) {
        return fails("infinirtGetBackendCount", st);
    }
    std::vector<infinirtBackendInfo_t> backends(static_cast<size_t>(nb));
    for (int i = 0; i < nb; ++i) {
        backends[i].struct_size = sizeof(infinirtBackendInfo_t);
        if ((st = infinirtGetBackendInfo(i, &backends[i])) != INFINI_STATUS_SUCCESS) {
            return fails("infinirtGetBackendInfo", st);
        }
    }
    int counts[INFINI_DEVICE_TYPE_COUNT] = {};
    if ((st = infinirtGetAllDeviceCountSized(counts, INFINI_DEVICE_TYPE_COUNT)) != INFINI_STATUS_SUCCESS) {
        return fails("infinirtGetAllDeviceCount", st);
    }
    std::vector<Device> devices;
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        for (int id = 0; id < counts[t]; ++id) {
            Device d{};
            d.type = static_cast<infiniDevice_t>(t);
            d.id = id;
            d.props.struct_size = sizeof d.props;
            d.props_ok = infinirtGetDeviceProperties(d.type, id, &d.props) == INFINI_STATUS_SUCCESS;
            d.mem_ok = infinirtGetMemInfo(d.type, id, &d.free_bytes, &d.total_bytes) == INFINI_STATUS_SUCCESS;
            devices.push_back(d);
        }
    }
    // The peer matrix: peers[i * n + j] describes devices[i] -> devices[j] (i != j).
    const size_t n = devices.size();
    std::vector<PeerCell> peers(n * n);
    for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < n; ++j) {
            if (i != j) {
                peers[i * n + j] = peerCell(devices[i], devices[j]);
            }
        }
    }
    infiniDevice_t cur_type = INFINI_DEVICE_CPU;
    int cur_id = -1;
    const bool has_default = infinirtGetDevice(&cur_type, &cur_id) == INFINI_STATUS_SUCCESS;

    if (as_json) {
        std::printf("{\n  \"schema_version\": %d,\n  \"infinirt_version\": %s,\n  \"backends\": [",
                    kJsonSchemaVersion, json(INFINIRT_INFO_VERSION).c_str());
        for (int i = 0; i < nb; ++i) {
            const infinirtBackendInfo_t &b = backends[i];
            std::printf("%s\n    {\"name\": %s, \"device_type\": %s, \"path\": %s, \"interface_version\": %u, "
                        "\"device_count\": %d, \"state\": \"%s\", \"reason\": %s}",
                        i ? "," : "", json(b.name).c_str(), json(typeLabel(b.device_type)).c_str(),
                        json(b.path).c_str(), b.interface_version, b.device_count, stateName(b.state),
                        json(b.reason).c_str());
        }
        std::printf("\n  ],\n  \"default_device\": ");
        if (has_default) {
            std::printf("{\"type\": \"%s\", \"id\": %d}", typeLabel(cur_type), cur_id);
        } else {
            std::printf("null");
        }
        std::printf(",\n  \"devices\": [");
        for (size_t i = 0; i < devices.size(); ++i) {
            const Device &d = devices[i];
            const infinirtDeviceProperties_t &p = d.props;
            std::printf("%s\n    {\"type\": \"%s\", \"id\": %d", i ? "," : "", typeLabel(d.type), d.id);
            if (d.props_ok) {
                std::string fields = ", \"name\": " + json(p.name);
                fields += jsonString("vendor", p.vendor);
                fields += jsonString("platform", p.platform);
                fields += jsonString("driver_version", p.driver_version);
                const char *kind = kindName(p.device_kind);
                fields += kind ? std::string(", \"kind\": \"") + kind + "\"" : std::string();
                fields += jsonNumber("total_memory", p.total_memory);
                if (p.compute_capability_major >= 0 && p.compute_capability_minor >= 0) {
                    fields += ", \"compute_capability\": \"" + std::to_string(p.compute_capability_major) + "." +
                              std::to_string(p.compute_capability_minor) + "\"";
                }
                fields += jsonString("architecture", p.architecture);
                fields += jsonNumber("multiprocessors", static_cast<unsigned long long>(p.multiprocessor_count > 0
                                                                                           ? p.multiprocessor_count
                                                                                           : 0));
                fields += jsonString("uuid", uuidText(p).c_str());
                fields += jsonString("pci_bus_id", p.pci_bus_id);
                for (const auto &[key, value] : {std::pair<const char *, int>{"clock_rate_khz", p.clock_rate_khz},
                                                 {"memory_clock_rate_khz", p.memory_clock_rate_khz},
                                                 {"memory_bus_width_bits", p.memory_bus_width_bits},
                                                 {"max_threads_per_block", p.max_threads_per_block}}) {
                    fields += jsonNumber(key, static_cast<unsigned long long>(value > 0 ? value : 0));
                }
                fields += jsonNumber("cache_bytes", p.cache_bytes);
                fields += jsonTriple("max_block_dim", p.max_block_dim);
                fields += jsonTriple("max_grid_dim", p.max_grid_dim);
                fields += jsonNumber("shared_memory_per_block", p.shared_memory_per_block);
                fields += std::string(", \"graphs\": \"") + (p.graphs_native ? "native" : "emulated") + "\"";
                std::printf("%s", fields.c_str());
            }
            if (d.mem_ok) {
                std::printf(", \"free_memory\": %zu", d.free_bytes);
            }
            std::printf("}");
        }
        std::printf("\n  ],\n  \"peers\": [");
        bool first = true;
        for (size_t i = 0; i < n; ++i) {
            for (size_t j = 0; j < n; ++j) {
                const PeerCell &c = peers[i * n + j];
                if (i == j || !c.ok) {
                    continue;
                }
                std::printf("%s\n    {\"from\": {\"type\": \"%s\", \"id\": %d}, \"to\": {\"type\": \"%s\", \"id\": %d}, "
                            "\"access_supported\": %d, \"native_atomics\": %d, \"copy_without_staging\": %d, "
                            "\"performance_rank\": %d}",
                            first ? "" : ",", typeLabel(devices[i].type), devices[i].id, typeLabel(devices[j].type),
                            devices[j].id, c.access, c.atomics, c.direct, c.rank);
                first = false;
            }
        }
        std::printf("\n  ]\n}\n");
        return 0;
    }

    std::printf("Backends (%d):\n", nb);
    for (const infinirtBackendInfo_t &b : backends) {
        std::printf("  %-10s %-11s %d device(s)  v%u  %s\n", b.name, stateName(b.state), b.device_count,
                    b.interface_version, b.path);
        if (b.reason[0] != '\0') {
            std::printf("             reason: %s\n", b.reason);
        }
    }
    std::printf("Devices (%zu):\n", devices.size());
    for (const Device &d : devices) {
        const infinirtDeviceProperties_t &p = d.props;
        const bool is_default = has_default && d.type == cur_type && d.id == cur_id;
        std::printf("  %s:%d%s  %s\n", typeLabel(d.type), d.id, is_default ? " (default)" : "",
                    d.props_ok ? p.name : "(properties unavailable)");
        if (d.props_ok) {
            std::printf("      vendor %s%s%s, architecture %s, %d multiprocessors/cores\n", p.vendor,
                        p.platform[0] ? ", platform " : "", p.platform, p.architecture[0] ? p.architecture : "-",
                        p.multiprocessor_count);
            const char *kind = kindName(p.device_kind);
            std::printf("      kind %s, graphs %s\n", kind ? kind : "unknown",
                        p.graphs_native ? "native" : "emulated (the loader's record/replay)");
            if (p.compute_capability_major >= 0) {
                std::printf("      compute capability %d.%d\n", p.compute_capability_major, p.compute_capability_minor);
            }
            std::string clocks;
            if (p.clock_rate_khz > 0) {
                clocks += "core " + std::to_string(p.clock_rate_khz / 1000) + " MHz";
            }
            if (p.memory_clock_rate_khz > 0) {
                clocks += (clocks.empty() ? "" : ", ") + std::string("memory ") +
                          std::to_string(p.memory_clock_rate_khz / 1000) + " MHz";
            }
            if (p.memory_bus_width_bits > 0) {
                clocks += (clocks.empty() ? "" : ", ") + std::to_string(p.memory_bus_width_bits) + "-bit bus";
            }
            if (!clocks.empty()) {
                std::printf("      clocks: %s\n", clocks.c_str());
            }
            if (p.cache_bytes > 0) {
                std::printf("      cache %s\n", bytesText(p.cache_bytes).c_str());
            }
            std::string limits;
            if (p.max_threads_per_block > 0) {
                limits += "max " + std::to_string(p.max_threads_per_block) + " threads per block";
            }
            if (p.max_block_dim[0] > 0) {
                limits += (limits.empty() ? "" : ", ") + std::string("block ") + std::to_string(p.max_block_dim[0]) +
                          " x " + std::to_string(p.max_block_dim[1]) + " x " + std::to_string(p.max_block_dim[2]);
            }
            if (p.max_grid_dim[0] > 0) {
                limits += (limits.empty() ? "" : ", ") + std::string("grid ") + std::to_string(p.max_grid_dim[0]) +
                          " x " + std::to_string(p.max_grid_dim[1]) + " x " + std::to_string(p.max_grid_dim[2]);
            }
            if (p.shared_memory_per_block > 0) {
                limits += (limits.empty() ? "" : ", ") + bytesText(p.shared_memory_per_block) + " shared per block";
            }
            if (!limits.empty()) {
                std::printf("      launch: %s\n", limits.c_str());
            }
            if (p.has_uuid || p.pci_bus_id[0]) {
                std::printf("      uuid %s  pci %s\n", uuidText(p).c_str(), p.pci_bus_id);
            }
            if (p.driver_version[0]) {
                std::printf("      driver %s\n", p.driver_version);
            }
        }
        if (d.mem_ok) {
            std::printf("      memory %.1f GiB total, %.1f GiB free\n", d.total_bytes / 1073741824.0,
                        d.free_bytes / 1073741824.0);
        }
    }
    if (devices.empty()) {
        std::printf("  (none)\n");
    }
    if (n > 1) {
        std::printf("Peers (row to column; A: access supported (infinirtDeviceEnablePeerAccess), D: direct copy,\n"
                    "       S: copy staged through host memory; +atomics; r<rank> where the driver ranks the link):\n");
        std::printf("  %-12s", "");
        for (const Device &d : devices) {
            std::printf(" %-12s", (std::string(typeLabel(d.type)) + ":" + std::to_string(d.id)).c_str());
        }
        std::printf("\n");
        for (size_t i = 0; i < n; ++i) {
            std::printf("  %-12s", (std::string(typeLabel(devices[i].type)) + ":" + std::to_string(devices[i].id)).c_str());
            for (size_t j = 0; j < n; ++j) {
                const PeerCell &c = peers[i * n + j];
                std::string cell = i == j ? "-" : !c.ok ? "?" : std::string(c.access ? "A" : "") + (c.direct ? "D" : "S");
                if (i != j && c.ok && c.atomics) {
                    cell += "+atomics";
                }
                if (i != j && c.ok && c.rank > 0) {
                    cell += " r" + std::to_string(c.rank);
                }
                std::printf(" %-12s", cell.c_str());
            }
            std::printf("\n");
        }
    }
    return 0;
}
