// info_json.cpp - the --json document.
#include "info_json.h"

#include "info_labels.h"
#include "json_text.h"

#include <cstdio>
#include <initializer_list>
#include <string>
#include <utility>

namespace infinirt_info_tool {

namespace {

std::string json(const char *s) { return infinirt_tools::jsonText(s); }

const char *boolText(int flag) { return flag != 0 ? "true" : "false"; }

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

void printBackends(const std::vector<infinirtBackendInfo_t> &backends) {
    for (size_t i = 0; i < backends.size(); ++i) {
        const infinirtBackendInfo_t &b = backends[i];
        std::printf("%s\n    {\"name\": %s, \"device_type\": %s, \"path\": %s, \"interface_version\": %u, "
                    "\"device_count\": %d, \"state\": \"%s\", \"reason\": %s}",
                    i ? "," : "", json(b.name).c_str(), json(typeLabel(b.device_type)).c_str(), json(b.path).c_str(),
                    b.interface_version, b.device_count, stateName(b.state), json(b.reason).c_str());
    }
}

// The fields of infinirtDeviceProperties_t that the backend knows, each as ", \"key\": value".
std::string propertyFields(const infinirtDeviceProperties_t &p) {
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
    fields += jsonNumber("multiprocessors",
                         static_cast<unsigned long long>(p.multiprocessor_count > 0 ? p.multiprocessor_count : 0));
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
    fields += std::string(", \"memory\": \"") + (p.memory_is_host ? "host" : "device") + "\"";
    return fields;
}

void printDevices(const std::vector<Device> &devices) {
    for (size_t i = 0; i < devices.size(); ++i) {
        const Device &d = devices[i];
        std::printf("%s\n    {\"type\": \"%s\", \"id\": %d", i ? "," : "", typeLabel(d.type), d.id);
        if (d.props_ok) {
            std::printf("%s", propertyFields(d.props).c_str());
        }
        if (d.mem_ok) {
            std::printf(", \"free_memory\": %zu", d.free_bytes);
        }
        std::printf("}");
    }
}

// One entry per ordered pair whose attributes were all read.
void printPeers(const Inventory &inv) {
    const std::vector<Device> &devices = inv.devices;
    bool first = true;
    for (size_t i = 0; i < devices.size(); ++i) {
        for (size_t j = 0; j < devices.size(); ++j) {
            if (i == j || !inv.peer(i, j).ok) {
                continue;
            }
            const PeerCell &c = inv.peer(i, j);
            std::printf("%s\n    {\"from\": {\"type\": \"%s\", \"id\": %d}, \"to\": {\"type\": \"%s\", \"id\": %d}, "
                        "\"access_supported\": %s, \"native_atomics\": %s, \"copy_without_staging\": %s, "
                        "\"performance_rank\": %d}",
                        first ? "" : ",", typeLabel(devices[i].type), devices[i].id, typeLabel(devices[j].type),
                        devices[j].id, boolText(c.access), boolText(c.atomics), boolText(c.direct), c.rank);
            first = false;
        }
    }
}

} // namespace

void printJson(const Inventory &inventory, const char *version) {
    std::printf("{\n  \"schema_version\": %d,\n  \"infinirt_version\": %s,\n  \"backends\": [", kJsonSchemaVersion,
                json(version).c_str());
    printBackends(inventory.backends);
    std::printf("\n  ],\n  \"default_device\": ");
    if (inventory.has_default) {
        std::printf("{\"type\": \"%s\", \"id\": %d}", typeLabel(inventory.default_type), inventory.default_id);
    } else {
        std::printf("null");
    }
    std::printf(",\n  \"devices\": [");
    printDevices(inventory.devices);
    std::printf("\n  ],\n  \"peers\": [");
    printPeers(inventory);
    std::printf("\n  ]\n}\n");
}

} // namespace infinirt_info_tool
