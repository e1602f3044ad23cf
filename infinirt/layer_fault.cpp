// The fault-injection layer (INFINIRT_FAULT_INJECT=<entry>:<probability>[,<entry>:<p>...][,seed=N]):
// the named plugin entries fail at the given rate without reaching the plugin, with the status a
// plugin gives for that failure (OUT_OF_MEMORY for entries that create, DRIVER_ERROR otherwise) and
// a detail in the backend's own words (its native error name), so that every failure path above the
// plugins — the loader's, the C++ layer's, the caller's — can be exercised on any machine. The
// decision for the n-th call of an entry is a hash of (seed, entry, n): one thread replays exactly.
//
// An injected failure leaves the program in a state a real backend could: the synchronising
// entries (device_synchronize, stream_synchronize, event_synchronize) chosen to fail still make
// the plugin's wait first (layer_table.cpp), since no backend returns from a failed wait while
// the work it waited for still runs on the caller's memory (a caller frees its buffers after a
// synchronous call, failed or not). Every other entry fails before reaching the plugin, so
// nothing it would have queued exists.
#include "layers.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace infinirt {

namespace {

struct Rule {
    uint64_t threshold = 0; // fires when hash < threshold (probability * 2^64)
    bool on = false;
    std::atomic<uint64_t> calls{0};
    std::atomic<uint64_t> fired{0};
};

Rule g_rules[kEntryCount];
uint64_t g_seed = 0x1f2e3d4c5b6a7988ull;

uint64_t mix(uint64_t x) { // splitmix64
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

bool creates(Entry e) {
    switch (e) {
    case Entry::malloc_device: case Entry::malloc_host: case Entry::malloc_async: case Entry::stream_create:
    case Entry::event_create: case Entry::module_load: case Entry::graph_instantiate:
        return true;
    default:
        return false;
    }
}

// The native error the backend serving `type` reports for such a failure (its traits).
const char *nativeName(int type, bool out_of_memory) {
    const infinirtPluginTraits_t &t = g_registry.by_type[type]->traits; // wrapped: it is loaded
    return out_of_memory ? t.native_out_of_memory_error : t.native_failure_error;
}

Entry entryNamed(const std::string &name) {
    for (int i = 0; i < kEntryCount; ++i) {
        if (entryWrapped(static_cast<Entry>(i)) && name == entryField(static_cast<Entry>(i))) {
            return static_cast<Entry>(i);
        }
    }
    return Entry::Count;
}

void report() {
    for (int i = 0; i < kEntryCount; ++i) {
        const Rule &r = g_rules[i];
        if (r.on) {
            logf(INFINIRT_LOG_INFO, "INFINIRT_FAULT_INJECT: %s failed %llu of %llu calls", entryField(static_cast<Entry>(i)),
                 static_cast<unsigned long long>(r.fired.load()), static_cast<unsigned long long>(r.calls.load()));
        }
    }
}

} // namespace

bool faultInit(const char *spec) {
    bool any = false;
    std::string s = spec;
    size_t pos = 0;
    while (pos <= s.size()) {
        const size_t comma = s.find(',', pos);
        const std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        pos = comma == std::string::npos ? s.size() + 1 : comma + 1;
        if (item.empty()) {
            continue;
        }
        char *end = nullptr;
        if (item.compare(0, 5, "seed=") == 0) {
            const unsigned long long seed = std::strtoull(item.c_str() + 5, &end, 10);
            if (end == item.c_str() + 5 || *end != '\0') {
                logf(INFINIRT_LOG_WARN, "INFINIRT_FAULT_INJECT: \"%s\" is not seed=<integer>; ignored", item.c_str());
            } else {
                g_seed = seed;
            }
            continue;
        }
        const size_t colon = item.find(':');
        const Entry e = entryNamed(item.substr(0, colon));
        const double p = colon == std::string::npos ? -1.0 : std::strtod(item.c_str() + colon + 1, &end);
        if (e == Entry::Count || colon == std::string::npos || end == item.c_str() + colon + 1 || *end != '\0' ||
            !(p >= 0.0 && p <= 1.0)) {
            logf(INFINIRT_LOG_WARN,
                 "INFINIRT_FAULT_INJECT: \"%s\" is not <entry>:<probability 0..1> with a plugin table entry name "
                 "(malloc_device, event_record, ...); ignored",
                 item.c_str());
            continue;
        }
        Rule &r = g_rules[static_cast<int>(e)];
        r.on = true;
        r.threshold = p >= 1.0 ? UINT64_MAX : static_cast<uint64_t>(p * 18446744073709551616.0);
        any = true;
    }
    if (any) {
        std::atexit(report);
    }
    return any;
}

uint64_t faultFires(const LayerCall &c) {
    Rule &r = g_rules[static_cast<int>(c.entry)];
    if (!r.on) {
        return 0;
    }
    const uint64_t n = r.calls.fetch_add(1, std::memory_order_relaxed);
    if (mix(g_seed ^ mix(static_cast<uint64_t>(c.entry) * 0x100000001b3ull + n)) >= r.threshold) {
        return 0;
    }
    r.fired.fetch_add(1, std::memory_order_relaxed);
    return n + 1;
}

infiniStatus_t faultFail(const LayerCall &c, uint64_t n) {
    const bool oom = creates(c.entry);
    char text[256];
    std::snprintf(text, sizeof text, "%s: %s (injected by INFINIRT_FAULT_INJECT, call %llu of this entry)",
                  entryField(c.entry), nativeName(c.type, oom), static_cast<unsigned long long>(n));
    pluginHost()->set_error(text);
    return oom ? INFINI_STATUS_OUT_OF_MEMORY : INFINI_STATUS_DRIVER_ERROR;
}

} // namespace infinirt
