/* gpu_errors.cpp - error details and logging for the shared CUDA/HIP implementation. */
#include "gpu_backend.h"

#include <cstdarg>
#include <cstdio>

namespace infinirt::gpu {

namespace {
const infinirtPluginHost_t *g_host = nullptr;

void set_detail(const char *text) {
    if (g_host && g_host->set_error) {
        g_host->set_error(text);
    }
}
} // namespace

void install_host(const infinirtPluginHost_t *host) { g_host = host; }

infiniStatus_t native_failure(const char *call, NativeStatus code, const char *what_fmt, ...) {
    char text[512];
    int n = std::snprintf(text, sizeof text, "%s failed: %s (%d)", call, api().error_name(code), code);
    if (what_fmt && n > 0 && static_cast<size_t>(n) < sizeof text - 8) {
        n += std::snprintf(text + n, sizeof text - n, " while ");
        va_list args;
        va_start(args, what_fmt);
        std::vsnprintf(text + n, sizeof text - n, what_fmt, args);
        va_end(args);
    }
    set_detail(text);
    return api().to_status(code);
}

infiniStatus_t failure(infiniStatus_t status, const char *fmt, ...) {
    char text[512];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    set_detail(text);
    return status;
}

void log(infinirtLogLevel_t level, const char *fmt, ...) {
    if (!g_host || !g_host->log) {
        return;
    }
    char text[512];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    g_host->log(level, text);
}

const char *format_bytes(char *buf, size_t buf_size, uint64_t bytes) {
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        std::snprintf(buf, buf_size, "%llu B", static_cast<unsigned long long>(bytes));
        return buf;
    }
    double value = static_cast<double>(bytes);
    size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < sizeof units / sizeof units[0]) {
        value /= 1024.0;
        ++unit;
    }
    std::snprintf(buf, buf_size, "%.1f %s", value, units[unit]);
    return buf;
}

} // namespace infinirt::gpu
