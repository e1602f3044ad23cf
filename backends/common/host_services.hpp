// host_services.hpp - a plugin's access to the loader's services (infinirtPluginHost_t): the
// thread's error detail and the log. Part of the header-only plugin-support layer every backend
// uses (backends/common/, namespace infinirt::common).
//
// The host table is remembered by negotiate() (negotiate.hpp) before any other entry runs. Every
// service is looked up through hostService(), which checks host->struct_size, so a plugin built
// against a newer header never reads past the end of an older loader's table.
#ifndef INFINIRT_COMMON_HOST_SERVICES_HPP
#define INFINIRT_COMMON_HOST_SERVICES_HPP

#include "infinirt_plugin.h"

#include <atomic>
#include <cstdarg>
#include <cstddef>
#include <cstdio>

namespace infinirt::common {

// Longest detail or log line a plugin hands to the loader; longer text is truncated.
constexpr size_t kMessageCapacity = 512;

// The loader's services for this plugin (one per plugin .so: plugins hide their symbols).
inline std::atomic<const infinirtPluginHost_t *> g_host{nullptr};

// Remembers `host` (static storage, or NULL) for the services below. Thread-safe.
inline void installHost(const infinirtPluginHost_t *host) noexcept { g_host.store(host, std::memory_order_release); }

// The service `member` of the installed host table, or NULL when there is no table or the
// loader's table (host->struct_size) ends before that member.
template <class Member>
Member hostService(Member infinirtPluginHost_t::*member, size_t member_end) noexcept {
    const infinirtPluginHost_t *host = g_host.load(std::memory_order_acquire);
    if (host == nullptr || host->struct_size < member_end) {
        return nullptr;
    }
    return host->*member;
}

#define INFINIRT_COMMON_HOST_SERVICE(field)                                                                   \
    ::infinirt::common::hostService(&infinirtPluginHost_t::field,                                             \
                                    offsetof(infinirtPluginHost_t, field) + sizeof(infinirtPluginHost_t::field))

// Sets the calling thread's error detail to the formatted text (the loader copies it and prefixes
// "backend:device") and returns `status`, so a failing entry ends with `return fail(...)`.
// Thread-safe; a no-op on the detail when the loader offers no set_error.
inline infiniStatus_t vfail(infiniStatus_t status, const char *format, va_list args) noexcept {
    if (auto set_error = INFINIRT_COMMON_HOST_SERVICE(set_error)) {
        char text[kMessageCapacity];
        std::vsnprintf(text, sizeof text, format, args);
        set_error(text);
    }
    return status;
}

__attribute__((format(printf, 2, 3))) inline infiniStatus_t fail(infiniStatus_t status, const char *format,
                                                                 ...) noexcept {
    va_list args;
    va_start(args, format);
    vfail(status, format, args);
    va_end(args);
    return status;
}

// Logs the formatted text through the loader (INFINIRT_LOG decides what is shown). Thread-safe;
// a no-op when the loader offers no log service.
__attribute__((format(printf, 2, 3))) inline void logMessage(infinirtLogLevel_t level, const char *format,
                                                             ...) noexcept {
    if (auto log = INFINIRT_COMMON_HOST_SERVICE(log)) {
        char text[kMessageCapacity];
        va_list args;
        va_start(args, format);
        std::vsnprintf(text, sizeof text, format, args);
        va_end(args);
        log(level, text);
    }
}

} // namespace infinirt::common

#endif // INFINIRT_COMMON_HOST_SERVICES_HPP
