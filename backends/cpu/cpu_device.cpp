// Devices: how many cpu devices there are (INFINIRT_CPU_DEVICE_COUNT), what they look like, how
// much memory they have (INFINIRT_CPU_MEMORY_LIMIT or the system's), and device-wide sync.
#include "cpu_backend.h"
#include "cpu_device.h"
#include "cpu_module.h"
#include "cpu_stream.h"

#include "common/host_services.hpp"
#include "common/text.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sched.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

namespace infinirt::cpu {

namespace {

struct State {
    Config config;
    Device devices[kMaxDevices];
};

// Created once by init() and never deleted (see cpu_backend.h).
std::atomic<State *> g_state{nullptr};
std::once_flag g_init_once;

// "key\t: value" lines of /proc/cpuinfo; the first match wins ("" if none).
std::string cpuinfoField(const std::string &text, const char *key) {
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

using common::parseCount;

void readEnvironment(Config &cfg) {
    const char *count = std::getenv("INFINIRT_CPU_DEVICE_COUNT");
    unsigned long long value = 0;
    if (count != nullptr) {
        if (parseCount(count, &value) && value <= static_cast<unsigned long long>(kMaxDevices)) {
            cfg.device_count = static_cast<int>(value);
        } else {
            common::logMessage(INFINIRT_LOG_WARN, "INFINIRT_CPU_DEVICE_COUNT=\"%s\" ignored: expected 1..%d; using 1 device",
                        count, kMaxDevices);
        }
    }
    const char *workers = std::getenv("INFINIRT_CPU_WORKERS");
    if (workers != nullptr) {
        if (parseCount(workers, &value) && value <= static_cast<unsigned long long>(kMaxWorkers)) {
            cfg.workers = static_cast<int>(value);
        } else {
            common::logMessage(INFINIRT_LOG_WARN, "INFINIRT_CPU_WORKERS=\"%s\" ignored: expected 1..%d; using %d",
                               workers, kMaxWorkers, cfg.workers);
        }
    }
    const char *threads = std::getenv("INFINIRT_CPU_MAX_THREADS_PER_BLOCK");
    if (threads != nullptr) {
        if (parseCount(threads, &value) && value <= (1ull << 30)) {
            cfg.max_threads_per_block = static_cast<int64_t>(value);
        } else {
            common::logMessage(INFINIRT_LOG_WARN,
                               "INFINIRT_CPU_MAX_THREADS_PER_BLOCK=\"%s\" ignored: expected 1..%llu; using %lld",
                               threads, 1ull << 30, static_cast<long long>(cfg.max_threads_per_block));
        }
    }
    const char *limit = std::getenv("INFINIRT_CPU_MEMORY_LIMIT");
    if (limit != nullptr) {
        if (parseCount(limit, &value) && value <= SIZE_MAX) {
            cfg.memory_limit = static_cast<size_t>(value);
        } else {
            common::logMessage(INFINIRT_LOG_WARN,
                        "INFINIRT_CPU_MEMORY_LIMIT=\"%s\" ignored: expected a positive number of bytes", limit);
        }
    }
}

// The first line of a sysfs file ("" if it cannot be read).
std::string sysfsLine(const std::string &path) {
    std::ifstream file(path);
    std::string line;
    std::getline(file, line);
    return line;
}

// The largest data or unified cache of cpu0, from /sys/devices/system/cpu/cpu0/cache/index*/
// ("32K", "1024K", "32768K"), else from sysconf; 0 if neither knows.
size_t largestCacheBytes() {
    size_t largest = 0;
    for (int index = 0; index < 16; ++index) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
        const std::string type = sysfsLine(dir + "type");
        if (type.empty()) {
            break;
        }
        if (type == "Instruction") {
            continue;
        }
        const std::string size = sysfsLine(dir + "size");
        char unit = '\0';
        unsigned long long value = 0;
        const int parsed = std::sscanf(size.c_str(), "%llu%c", &value, &unit);
        if (parsed < 1) {
            continue;
        }
        const size_t bytes = static_cast<size_t>(value) * (parsed == 2 && unit == 'K'   ? 1024
                                                           : parsed == 2 && unit == 'M' ? 1024 * 1024
                                                                                        : 1);
        largest = std::max(largest, bytes);
    }
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
    // No sysfs cache folders (containers, some VMs): glibc's answer (cpuid on x86; 0 if unknown).
    if (largest == 0) {
        for (int name : {_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE}) {
            const long bytes = sysconf(name);
            largest = bytes > 0 ? std::max(largest, static_cast<size_t>(bytes)) : largest;
        }
    }
#endif
    return largest;
}

void readSystem(Config &cfg) {
    struct sysinfo info;
    if (sysinfo(&info) == 0) {
        cfg.system_memory = static_cast<size_t>(info.totalram) * info.mem_unit;
    }
    std::ifstream file("/proc/cpuinfo");
    std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    cfg.model_name = cpuinfoField(text, "model name");
    if (cfg.model_name.empty()) {
        cfg.model_name = "cpu";
    }
    cfg.vendor = cpuinfoField(text, "vendor_id");
    struct utsname names;
    if (uname(&names) == 0) {
        cfg.architecture = names.machine;
        cfg.kernel_release = names.release;
    }
    unsigned long long khz = 0;
    if (parseCount(sysfsLine("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq").c_str(), &khz) &&
        khz <= static_cast<unsigned long long>(INT_MAX)) {
        cfg.max_clock_khz = static_cast<int>(khz);
    }
    cfg.largest_cache_bytes = largestCacheBytes();
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    cfg.hardware_threads = threads > 0 ? static_cast<int>(threads) : 0;
    // Kernel workers by default: the CPUs this process may run on (as OpenMP counts them).
    cpu_set_t allowed;
    const int usable = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : cfg.hardware_threads;
    cfg.workers = std::min(std::max(usable, 1), kMaxWorkers);
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    cfg.simd_lanes = __builtin_cpu_supports("avx512f") ? 16 : __builtin_cpu_supports("avx") ? 8 : 4;
#elif defined(__aarch64__)
    cfg.simd_lanes = 4; // NEON: 128 bits
#endif
}

} // namespace

infiniStatus_t init() {
    // An exception (std::bad_alloc) leaves the flag unset, so a later init tries again.
    std::call_once(g_init_once, [] {
        State *state = new State();
        readSystem(state->config);
        readEnvironment(state->config);
        for (int i = 0; i < kMaxDevices; ++i) {
            state->devices[i].index = i;
        }
        g_state.store(state, std::memory_order_release);
    });
    return INFINI_STATUS_SUCCESS;
}

const Config &config() noexcept {
    return g_state.load(std::memory_order_acquire)->config;
}

Device &deviceState(int device) noexcept {
    return g_state.load(std::memory_order_acquire)->devices[device];
}

size_t budgetLeft(int device) noexcept {
    const size_t limit = config().memory_limit;
    const size_t live = deviceState(device).live_bytes.load(std::memory_order_relaxed);
    return live < limit ? limit - live : 0;
}

size_t systemAvailableMemory() noexcept {
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

void drainDevice(int device) {
    Device &dev = deviceState(device);
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
}

// ---- entries -----------------------------------------------------------------------------

infiniStatus_t getDeviceCount(int *count, char *reason, size_t reason_size) {
    *count = config().device_count;
    if (reason != nullptr && reason_size > 0) {
        reason[0] = '\0';
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t getDeviceProperties(int, infinirtDeviceProperties_t *props) {
    if (props->struct_size < sizeof(infinirtDeviceProperties_t)) {
        return common::fail(INFINI_STATUS_BAD_PARAM,
                            "get_device_properties: struct_size %zu is smaller than the %zu this backend was built with",
                            props->struct_size, sizeof(infinirtDeviceProperties_t));
    }
    const Config &cfg = config();
    common::copyString(props->name, sizeof props->name, cfg.model_name);
    common::copyString(props->vendor, sizeof props->vendor, cfg.vendor);
    common::copyString(props->platform, sizeof props->platform, "host");
    common::copyString(props->driver_version, sizeof props->driver_version, cfg.kernel_release);
    props->total_memory = cfg.memory_limit != 0 ? cfg.memory_limit : cfg.system_memory;
    props->compute_capability_major = -1;
    props->compute_capability_minor = -1;
    common::copyString(props->architecture, sizeof props->architecture, cfg.architecture);
    props->multiprocessor_count = cfg.hardware_threads;
    std::memset(props->uuid, 0, sizeof props->uuid);
    props->has_uuid = 0;
    props->pci_bus_id[0] = '\0';
    props->device_kind = INFINIRT_DEVICE_KIND_CPU;
    props->clock_rate_khz = cfg.max_clock_khz;
    props->cache_bytes = cfg.largest_cache_bytes;
    // A block runs its threads' work in one kernel call; the limit is the configured
    // MAX_THREADS_PER_BLOCK, in any one dimension as in the product. The grid has no limit of its
    // own below the launch config's 32-bit fields (max_grid_dim stays 0).
    const int max_threads = static_cast<int>(cfg.max_threads_per_block);
    props->max_threads_per_block = max_threads;
    for (int i = 0; i < 3; ++i) {
        props->max_block_dim[i] = max_threads;
    }
    props->shared_memory_per_block = kMaxDynamicShared;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t setDevice(int) {
    // No per-thread native state to follow.
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t deviceSynchronize(int device) {
    drainDevice(device);
    Device &dev = deviceState(device);
    // A kernel failure kept by any stream of the device (the first one found) is reported here.
    std::lock_guard<std::mutex> lock(dev.streams_mutex);
    for (const std::shared_ptr<Stream> &stream : dev.streams) {
        if (stream->hasFailure()) {
            infiniStatus_t status = stream->takeFailure(UINT64_MAX, "device_synchronize");
            if (status != INFINI_STATUS_SUCCESS) {
                return status;
            }
        }
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t getMemInfo(int device, size_t *free_bytes, size_t *total_bytes) {
    const Config &cfg = config();
    if (cfg.memory_limit != 0) {
        *free_bytes = budgetLeft(device);
        *total_bytes = cfg.memory_limit;
    } else {
        *free_bytes = systemAvailableMemory();
        *total_bytes = cfg.system_memory;
    }
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::cpu
