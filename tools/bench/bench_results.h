// bench_results.h - what infinirt-bench measured, as the report (text and JSON) and the plot read it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace infinirt_bench_tool {

// One figure: ours (through infinirt) and the native anchor's in the same run; has_native false
// when the backend has no native counterpart (then native is 0 and no ratio is given).
struct Figure {
    double ours = 0.0;
    double native = 0.0;
    bool has_native = false;
};

// Bandwidth of one direction (and host memory kind) at each size, in GB/s (10^9 bytes/s).
struct Sweep {
    std::string key;   // JSON key: h2d_pinned, h2d_pageable, d2h_pinned, d2h_pageable, d2d
    std::string title; // "host to device, pinned host memory"
    std::vector<size_t> sizes;
    std::vector<Figure> gbps;
};

// One latency, in ns per call.
struct Latency {
    std::string key;  // JSON key: event_record, event_query, stream_sync, copy_h2d_small, ...
    std::string what; // what one call is
    Figure ns;
};

struct Results {
    std::string version;       // infinirt's
    std::string device_type;   // "nvidia"
    int device_id = 0;
    std::string device_name;
    std::string backend;       // the plugin's name
    std::string anchor;        // the native anchor's name, or "" when there is none
    std::string anchor_calls;  // the native calls it makes, or why there is no anchor
    bool quick = false;
    size_t max_size = 0;
    int rounds = 0;
    std::vector<std::string> notes; // e.g. max_size reduced for the memory there is
    std::vector<Sweep> bandwidth;
    std::vector<Latency> latency;
    std::vector<std::pair<std::string, std::string>> skipped; // key -> why it was not measured
};

} // namespace infinirt_bench_tool
