// The cpu plugin's entry point and function table: the reference implementation of the stream,
// event and memory semantics every backend gives (DESIGN.md section 6), on host threads.
#include "cpu_backend.h"

#include <cstdarg>
#include <cstdio>
#include <cstddef>

namespace infinirt_cpu {

namespace {

// Set by the query before init; the loader's table lives for the whole process.
std::atomic<const infinirtPluginHost_t *> g_host{nullptr};

template <class Member>
Member host_service(Member infinirtPluginHost_t::*member, size_t end_offset) {
    const infinirtPluginHost_t *host = g_host.load(std::memory_order_acquire);
    if (host == nullptr || host->struct_size < end_offset) {
        return nullptr;
    }
    return host->*member;
}

infiniStatus_t init() {
    return init_devices();
}

const infinirtPluginTable_t kTable = [] {
    infinirtPluginTable_t t{};
    t.struct_size = sizeof(infinirtPluginTable_t);
    t.version = INFINIRT_PLUGIN_INTERFACE_VERSION;
    t.name = "cpu";
    t.device_type = INFINI_DEVICE_CPU;
    t.init = init;
    t.get_device_count = get_device_count;
    t.get_device_properties = get_device_properties;
    t.set_device = set_device;
    t.device_synchronize = device_synchronize;
    t.get_mem_info = get_mem_info;
    t.stream_create = stream_create;
    t.stream_destroy = stream_destroy;
    t.stream_synchronize = stream_synchronize;
    t.stream_query = stream_query;
    t.stream_wait_event = stream_wait_event;
    t.event_create = event_create;
    t.event_destroy = event_destroy;
    t.event_record = event_record;
    t.event_query = event_query;
    t.event_synchronize = event_synchronize;
    t.event_elapsed_time = event_elapsed_time;
    t.malloc_device = malloc_device;
    t.free_device = free_device;
    t.malloc_host = malloc_host;
    t.free_host = free_host;
    t.memcpy_sync = memcpy_sync;
    t.memcpy_async = memcpy_async;
    t.memset_sync = memset_sync;
    t.memset_async = memset_async;
    t.malloc_async = malloc_async;
    t.free_async = free_async;
    // Left NULL on purpose: graphs (the loader records and replays), native handles (there is no
    // native object), resource snapshots and pointer attributes (the loader knows our blocks).
    return t;
}();

} // namespace

void report(const char *format, ...) {
    auto set_error = host_service(&infinirtPluginHost_t::set_error,
                                  offsetof(infinirtPluginHost_t, set_error) + sizeof(void *));
    if (set_error == nullptr) {
        return;
    }
    char message[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(message, sizeof message, format, args);
    va_end(args);
    set_error(message);
}

void log_message(infinirtLogLevel_t level, const char *format, ...) {
    auto log_fn = host_service(&infinirtPluginHost_t::log, offsetof(infinirtPluginHost_t, log) + sizeof(void *));
    if (log_fn == nullptr) {
        return;
    }
    char message[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(message, sizeof message, format, args);
    va_end(args);
    log_fn(level, message);
}

} // namespace infinirt_cpu

extern "C" INFINIRT_PLUGIN_EXPORT infiniStatus_t INFINIRT_PLUGIN_ENTRY(uint32_t loader_version,
                                                                       const infinirtPluginHost_t *host,
                                                                       uint32_t *plugin_version,
                                                                       const infinirtPluginTable_t **table) {
    if (plugin_version == nullptr || table == nullptr) {
        return INFINI_STATUS_NULL_POINTER;
    }
    infinirt_cpu::g_host.store(host, std::memory_order_release);
    if (loader_version < 1) {
        infinirt_cpu::report("interface version %u is older than any this plugin speaks (1..%u)", loader_version,
                             INFINIRT_PLUGIN_INTERFACE_VERSION);
        return INFINI_STATUS_NOT_IMPLEMENTED;
    }
    *plugin_version = loader_version < INFINIRT_PLUGIN_INTERFACE_VERSION ? loader_version
                                                                         : INFINIRT_PLUGIN_INTERFACE_VERSION;
    *table = &infinirt_cpu::kTable;
    return INFINI_STATUS_SUCCESS;
}
