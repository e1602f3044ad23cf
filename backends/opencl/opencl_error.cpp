#include "opencl_error.h"

#include "opencl_error_table.h"

#include <cstdio>

namespace infinirt::opencl {
namespace {
// Written once by the entry point, before any other plugin call, then only read.
const infinirtPluginHost_t *g_host = nullptr;
} // namespace

void setHost(const infinirtPluginHost_t *host) { g_host = host; }

infiniStatus_t fail(infiniStatus_t status, const std::string &message) {
    if (g_host && g_host->set_error) {
        g_host->set_error(message.c_str());
    }
    return status;
}

infiniStatus_t clFail(const char *call, cl_int code, const std::string &what) {
    std::string message = std::string(call) + " failed: " + errorName(code) + " (" + std::to_string(code) + ")";
    if (!what.empty()) {
        message += " " + what;
    }
    return fail(toStatus(code), message);
}

void logMessage(infinirtLogLevel_t level, const std::string &message) {
    if (g_host && g_host->log) {
        g_host->log(level, message.c_str());
    }
}

std::string deviceLabel(int device) { return "opencl:" + std::to_string(device); }

std::string formatBytes(size_t bytes) {
    static const char *const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = static_cast<double>(bytes);
    size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < sizeof(kUnits) / sizeof(kUnits[0])) {
        value /= 1024.0;
        ++unit;
    }
    char text[32];
    if (unit == 0) {
        std::snprintf(text, sizeof(text), "%zu B", bytes);
    } else {
        std::snprintf(text, sizeof(text), "%.1f %s", value, kUnits[unit]);
    }
    return text;
}

} // namespace infinirt::opencl
