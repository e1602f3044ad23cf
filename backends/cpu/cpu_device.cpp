// Devices: how many cpu devices there are (INFINIRT_CPU_DEVICE_COUNT), what they look like, how
// much memory they have (INFINIRT_CPU_MEMORY_LIMIT or the system's), and device-wide sync.
#include "cpu_stream.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

namespace infinirt_cpu {

namespace {

struct State {
    Config config;
    Device devices[kMaxDevices];
};

// Created once by init_devices() and never deleted (see cpu_backend.h).
std::atomic<State *> g_state{nullptr};
std::once_flag g_init_once;

// "key\t: value" lines of /proc/cpuinfo; the first match wins ("" if none).
std::string cpuinfo_field(const std::string &text, const char *key) {
    size_t key_len = std::strlen(key);
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string::npos) {
            end = text.size();
        }
        if (text.compare(pos, key_len, key) == 0) {
            size_t colon = text.find(':', pos);
            if (colon != std::string::npos && colon < end) {
                size_t value = text.find_first_not_of(" \t", colon + 1);
                if (value != std::string::npos && value < end) {
                    return text.substr(value, end - value);
                }
            }
        }
        pos = end + 1;
    }
    return std::string();
}

// A positive decimal integer filling the whole string, else false.
bool parse_count(const char *text, unsigned long long *value) {
    if (text == nullptr || *text < '0' || *text > '9') {
        return false;
    }
    errno = 0;
    char *end = nullptr;
    unsigned long long parsed = std::strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || parsed == 0) {
        return false;
    }
    *value = parsed;
    return true;
}

void read_environment(Config &cfg) {
    const char *count = std::getenv("INFINIRT_CPU_DEVICE_COUNT");
    unsigned long long value = 0;
    if (count != nullptr) {
        if (parse_count(count, &value) && value <= static_cast<unsigned long long>(kMaxDevices)) {
            cfg.device_count = static_cast<int>(value);
        } else {
            log_message(INFINIRT_LOG_WARN, "INFINIRT_CPU_DEVICE_COUNT=\"%s\" ignored: expected 1..%d; using 1 device",
                        count, kMaxDevices);
        }
    }
    const char *limit = std::getenv("INFINIRT_CPU_MEMORY_LIMIT");
    if (limit != nullptr) {
        if (parse_count(limit, &value) && value <= SIZE_MAX) {
            cfg.memory_limit = static_cast<size_t>(value);
        } else {
            log_message(INFINIRT_LOG_WARN,
                        "INFINIRT_CPU_MEMORY_LIMIT=\"%s\" ignored: expected a positive number of bytes", limit);
        }
    }
}

void read_system(Config &cfg) {
    struct sysinfo info;
    if (sysinfo(&info) == 0) {
        cfg.system_memory = static_cast<size_t>(info.totalram) * info.mem_unit;
    }
    std::ifstream file("/proc/cpuinfo");
    std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    cfg.model_name = cpuinfo_field(text, "model name");
    if (cfg.model_name.empty()) {
        cfg.model_name = "cpu";
    }
    cfg.vendor = cpuinfo_field(text, "vendor_id");
    struct utsname names;
    if (uname(&names) == 0) {
        cfg.architecture = names.machine;
        cfg.kernel_release = names.release;
    }
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    cfg.hardware_threads = threads > 0 ? static_cast<int>(threads) : 0;
}

void copy_string(char *dst, size_t dst_size, const std::string &src) {
    std::snprintf(dst, dst_size, "%s", src.c_str());
}

} // namespace

infiniStatus_t init_devices() noexcept {
    return guarded("init", [] {
        std::call_once(g_init_once, [] {
            State *state = new State();
            read_environment(state->config);
            read_system(state->config);
            for (int i = 0; i < kMaxDevices; ++i) {
                state->devices[i].index = i;
            }
            g_state.store(state, std::memory_order_release);
        });
        return INFINI_STATUS_SUCCESS;
    });
}

const Config &config() noexcept {
    return g_state.load(std::memory_order_acquire)->config;
}

Device &device_state(int device) noexcept {
    return g_state.load(std::memory_order_acquire)->devices[device];
}

size_t system_available_memory() noexcept {
    FILE *file = std::fopen("/proc/meminfo", "r");
    if (file != nullptr) {
        char line[256];
        unsigned long long kib = 0;
        bool found = false;
        while (!found && std::fgets(line, sizeof line, file) != nullptr) {
            found = std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
        }
        std::fclose(file);
        if (found) {
            return static_cast<size_t>(kib) * 1024;
        }
    }
    struct sysinfo info;
    return sysinfo(&info) == 0 ? static_cast<size_t>(info.freeram) * info.mem_unit : 0;
}

// ---- entries -----------------------------------------------------------------------------

infiniStatus_t get_device_count(int *count, char *reason, size_t reason_size) {
    *count = config().device_count;
    if (reason != nullptr && reason_size > 0) {
        reason[0] = '\0';
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t get_device_properties(int, infinirtDeviceProperties_t *props) {
    if (props->struct_size < sizeof(infinirtDeviceProperties_t)) {
        report("get_device_properties: struct_size %zu is smaller than the %zu this backend was built with",
               props->struct_size, sizeof(infinirtDeviceProperties_t));
        return INFINI_STATUS_BAD_PARAM;
    }
    const Config &cfg = config();
    copy_string(props->name, sizeof props->name, cfg.model_name);
    copy_string(props->vendor, sizeof props->vendor, cfg.vendor);
    copy_string(props->platform, sizeof props->platform, "host");
    copy_string(props->driver_version, sizeof props->driver_version, cfg.kernel_release);
    props->total_memory = cfg.memory_limit != 0 ? cfg.memory_limit : cfg.system_memory;
    props->compute_capability_major = -1;
    props->compute_capability_minor = -1;
    copy_string(props->architecture, sizeof props->architecture, cfg.architecture);
    props->multiprocessor_count = cfg.hardware_threads;
    std::memset(props->uuid, 0, sizeof props->uuid);
    props->has_uuid = 0;
    props->pci_bus_id[0] = '\0';
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t set_device(int) {
    // No per-thread native state to follow.
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t device_synchronize(int device) {
    return guarded("device_synchronize", [&] {
        Device &dev = device_state(device);
        // Only busy streams are copied out, so the common idle case (every free_device and
        // free_host goes through here) allocates nothing.
        std::vector<std::shared_ptr<Stream>> busy;
        {
            std::lock_guard<std::mutex> lock(dev.streams_mutex);
            for (const std::shared_ptr<Stream> &stream : dev.streams) {
                if (!stream->idle()) {
                    busy.push_back(stream);
                }
            }
        }
        for (const std::shared_ptr<Stream> &stream : busy) {
            stream->synchronize();
        }
        return INFINI_STATUS_SUCCESS;
    });
}

infiniStatus_t get_mem_info(int device, size_t *free_bytes, size_t *total_bytes) {
    const Config &cfg = config();
    if (cfg.memory_limit != 0) {
        size_t live = device_state(device).live_bytes.load(std::memory_order_relaxed);
        *free_bytes = live < cfg.memory_limit ? cfg.memory_limit - live : 0;
        *total_bytes = cfg.memory_limit;
    } else {
        *free_bytes = system_available_memory();
        *total_bytes = cfg.system_memory;
    }
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt_cpu
