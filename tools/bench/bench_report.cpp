// bench_report.cpp - the text tables and the JSON document of infinirt-bench.
#include "bench_report.h"

#include "json_text.h"

#include <cmath>

namespace infinirt_bench_tool {
namespace {

std::string sizeText(size_t bytes) {
    char b[32];
    if (bytes >= (size_t{1} << 30) && bytes % (size_t{1} << 30) == 0) {
        std::snprintf(b, sizeof b, "%zu GiB", bytes >> 30);
    } else if (bytes >= (size_t{1} << 20) && bytes % (size_t{1} << 20) == 0) {
        std::snprintf(b, sizeof b, "%zu MiB", bytes >> 20);
    } else if (bytes >= 1024 && bytes % 1024 == 0) {
        std::snprintf(b, sizeof b, "%zu KiB", bytes >> 10);
    } else {
        std::snprintf(b, sizeof b, "%zu B", bytes);
    }
    return b;
}

std::string jsonString(const std::string &s) { return infinirt_tools::jsonText(s); }

std::string jsonNumber(double v) {
    if (!std::isfinite(v)) {
        return "null";
    }
    char b[40];
    std::snprintf(b, sizeof b, "%.6g", v);
    return b;
}

// "ours": x, "native": y|null, "ratio": x/y|null, with the unit in the keys.
std::string figureJson(const Figure &f, const char *unit) {
    std::string s = std::string("\"infinirt_") + unit + "\": " + jsonNumber(f.ours) + ", \"native_" + unit + "\": ";
    if (f.has_native && f.native > 0) {
        s += jsonNumber(f.native) + ", \"ratio\": " + jsonNumber(f.ours / f.native);
    } else {
        s += "null, \"ratio\": null";
    }
    return s;
}

void printRatio(std::FILE *out, const Figure &f, const char *format) {
    if (f.has_native && f.native > 0) {
        std::fprintf(out, format, f.native);
        std::fprintf(out, " %8.3f\n", f.ours / f.native);
    } else {
        std::fprintf(out, "%14s %8s\n", "-", "-");
    }
}

} // namespace

void printText(const Results &r, std::FILE *out) {
    std::fprintf(out, "infinirt-bench %s on %s:%d (%s), backend %s\n", r.version.c_str(), r.device_type.c_str(),
                 r.device_id, r.device_name.c_str(), r.backend.c_str());
    if (r.anchor.empty()) {
        std::fprintf(out, "native anchor: none (%s)\n", r.anchor_calls.c_str());
    } else {
        std::fprintf(out, "native anchor: %s: %s\n", r.anchor.c_str(), r.anchor_calls.c_str());
    }
    for (const std::string &note : r.notes) {
        std::fprintf(out, "note: %s\n", note.c_str());
    }
    std::fprintf(out, "each figure: median over %d round(s) of batches, infinirt and native alternating (ABBA; a "
                      "bandwidth batch starts after one untimed copy); ratio = infinirt / native\n",
                 r.rounds);
    for (const Sweep &s : r.bandwidth) {
        std::fprintf(out, "\nbandwidth, %s (GB/s = 10^9 bytes/s; ratio > 1: infinirt faster)\n", s.title.c_str());
        std::fprintf(out, "%10s %14s %14s %8s\n", "size", "infinirt", "native", "ratio");
        for (size_t i = 0; i < s.sizes.size(); ++i) {
            std::fprintf(out, "%10s %14.2f ", sizeText(s.sizes[i]).c_str(), s.gbps[i].ours);
            printRatio(out, s.gbps[i], "%14.2f");
        }
    }
    std::fprintf(out, "\nlatency (ns per call; ratio > 1: infinirt slower)\n");
    std::fprintf(out, "%-48s %14s %14s %8s\n", "what", "infinirt", "native", "ratio");
    for (const Latency &l : r.latency) {
        std::fprintf(out, "%-48s %14.1f ", l.what.c_str(), l.ns.ours);
        printRatio(out, l.ns, "%14.1f");
    }
    for (const auto &skip : r.skipped) {
        std::fprintf(out, "not measured: %s: %s\n", skip.first.c_str(), skip.second.c_str());
    }
}

std::string toJson(const Results &r) {
    std::string j = "{\n  \"schema_version\": " + std::to_string(kJsonSchemaVersion) +
                    ",\n  \"tool\": \"infinirt-bench\",\n  \"infinirt_version\": " + jsonString(r.version);
    j += ",\n  \"device\": {\"type\": " + jsonString(r.device_type) + ", \"id\": " + std::to_string(r.device_id) +
         ", \"name\": " + jsonString(r.device_name) + ", \"backend\": " + jsonString(r.backend) + "}";
    j += ",\n  \"native\": " + (r.anchor.empty() ? std::string("null") : jsonString(r.anchor));
    j += ",\n  \"native_calls\": " + jsonString(r.anchor_calls);
    j += ",\n  \"settings\": {\"quick\": " + std::string(r.quick ? "true" : "false") +
         ", \"max_size\": " + std::to_string(r.max_size) + ", \"rounds\": " + std::to_string(r.rounds) + "}";
    j += ",\n  \"notes\": [";
    for (size_t i = 0; i < r.notes.size(); ++i) {
        j += (i ? ", " : "") + jsonString(r.notes[i]);
    }
    j += "],\n  \"bandwidth\": {";
    for (size_t k = 0; k < r.bandwidth.size(); ++k) {
        const Sweep &s = r.bandwidth[k];
        j += std::string(k ? "," : "") + "\n    " + jsonString(s.key) + ": [";
        for (size_t i = 0; i < s.sizes.size(); ++i) {
            j += std::string(i ? "," : "") + "\n      {\"size\": " + std::to_string(s.sizes[i]) + ", " +
                 figureJson(s.gbps[i], "gbps") + "}";
        }
        j += "\n    ]";
    }
    j += "\n  },\n  \"latency\": {";
    for (size_t k = 0; k < r.latency.size(); ++k) {
        const Latency &l = r.latency[k];
        j += std::string(k ? "," : "") + "\n    " + jsonString(l.key) + ": {\"what\": " + jsonString(l.what) + ", " +
             figureJson(l.ns, "ns") + "}";
    }
    j += "\n  },\n  \"skipped\": {";
    for (size_t k = 0; k < r.skipped.size(); ++k) {
        j += std::string(k ? "," : "") + "\n    " + jsonString(r.skipped[k].first) + ": " +
             jsonString(r.skipped[k].second);
    }
    j += "\n  }\n}\n";
    return j;
}

} // namespace infinirt_bench_tool
