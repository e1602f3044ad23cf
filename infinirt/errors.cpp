// Status names, the thread-local last-error detail, logging, and the services given to plugins.
#include "internal.h"
#include "log_level.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace infinirt {

namespace {

constexpr size_t kMessageSize = 1024;
// Plain arrays: no TLS destructors, usable during exit.
thread_local char t_message[kMessageSize];
thread_local char t_plugin_detail[kMessageSize];

int logLevel() {
    static const int level = logLevelFromEnvironment();
    return level;
}

const char *levelName(infinirtLogLevel_t level) {
    switch (level) {
    case INFINIRT_LOG_ERROR: return "error";
    case INFINIRT_LOG_WARN: return "warn";
    case INFINIRT_LOG_INFO: return "info";
    default: return "debug";
    }
}

// Only records the detail: whether it reaches the thread's message is decided by the loader, at
// the end of the plugin call (see internal.h).
void hostSetError(const char *message) {
    std::snprintf(t_plugin_detail, kMessageSize, "%s", message != nullptr ? message : "");
    t_hot.flags |= kPluginDetailPending;
}

void hostLog(infinirtLogLevel_t level, const char *message) {
    // A plugin's level is any int: out of range is logged as debug.
    const int value = enumInt(level);
    const infinirtLogLevel_t known = value >= INFINIRT_LOG_ERROR && value <= INFINIRT_LOG_DEBUG
                                         ? static_cast<infinirtLogLevel_t>(value)
                                         : INFINIRT_LOG_DEBUG;
    logf(known, "%s", message != nullptr ? message : "");
}

const infinirtPluginHost_t kHost = {sizeof(infinirtPluginHost_t), INFINIRT_PLUGIN_INTERFACE_VERSION, hostSetError,
                                    hostLog};

} // namespace

__thread ThreadHot t_hot = {0, {nullptr}, {-1, 0}, {-1, 0}, 0, {}, nullptr, {}};

const char *takePluginDetail() {
    if ((t_hot.flags & kPluginDetailPending) == 0) {
        return nullptr;
    }
    t_hot.flags &= kNoPluginDetailPending;
    return t_plugin_detail;
}

infiniStatus_t fail(infiniStatus_t status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(t_message, kMessageSize, fmt, ap);
    va_end(ap);
    logf(INFINIRT_LOG_DEBUG, "%s: %s", infinirtGetErrorName(status), t_message);
    return status;
}

infiniStatus_t pluginFailed(const char *backend, int device, const char *call, infiniStatus_t status) {
    if (const char *detail = takePluginDetail()) {
        return fail(status, "%s:%d: %s", backend, device, detail);
    }
    return fail(status, "%s:%d: %s failed: %s", backend, device, call, infinirtGetErrorName(status));
}

void logf(infinirtLogLevel_t level, const char *fmt, ...) {
    if (static_cast<int>(level) > logLevel()) {
        return;
    }
    char line[kMessageSize];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "infinirt [%s] %s\n", levelName(level), line);
}

const infinirtPluginHost_t *pluginHost() { return &kHost; }

std::string formatBytes(size_t bytes) {
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
    return buf;
}

} // namespace infinirt

using namespace infinirt;

extern "C" {

__export const char *infinirtGetErrorName(infiniStatus_t status) {
    switch (enumInt(status)) {
#define NAME(x) \
    case x: return #x;
        NAME(INFINI_STATUS_SUCCESS)
        NAME(INFINI_STATUS_INTERNAL_ERROR)
        NAME(INFINI_STATUS_NOT_IMPLEMENTED)
        NAME(INFINI_STATUS_BAD_PARAM)
        NAME(INFINI_STATUS_NULL_POINTER)
        NAME(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED)
        NAME(INFINI_STATUS_DEVICE_NOT_FOUND)
        NAME(INFINI_STATUS_DEVICE_NOT_INITIALIZED)
        NAME(INFINI_STATUS_DEVICE_ARCHITECTURE_NOT_SUPPORTED)
        NAME(INFINI_STATUS_BAD_TENSOR_DTYPE)
        NAME(INFINI_STATUS_BAD_TENSOR_SHAPE)
        NAME(INFINI_STATUS_BAD_TENSOR_STRIDES)
        NAME(INFINI_STATUS_INSUFFICIENT_WORKSPACE)
        NAME(INFINI_STATUS_OUT_OF_MEMORY)
        NAME(INFINI_STATUS_INVALID_HANDLE)
        NAME(INFINI_STATUS_NOT_READY)
        NAME(INFINI_STATUS_BACKEND_UNAVAILABLE)
        NAME(INFINI_STATUS_DRIVER_ERROR)
        NAME(INFINI_STATUS_BUILD_FAILED)
        NAME(INFINI_STATUS_SYMBOL_NOT_FOUND)
#undef NAME
    }
    return "INFINI_STATUS_UNKNOWN";
}

__export const char *infinirtGetErrorString(infiniStatus_t status) {
    switch (enumInt(status)) {
    case INFINI_STATUS_SUCCESS: return "success";
    case INFINI_STATUS_INTERNAL_ERROR: return "internal error";
    case INFINI_STATUS_NOT_IMPLEMENTED: return "not implemented by this backend";
    case INFINI_STATUS_BAD_PARAM: return "invalid argument";
    case INFINI_STATUS_NULL_POINTER: return "a required pointer argument is NULL";
    case INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED: return "device type not supported";
    case INFINI_STATUS_DEVICE_NOT_FOUND: return "device not found";
    case INFINI_STATUS_DEVICE_NOT_INITIALIZED: return "device or runtime not initialized";
    case INFINI_STATUS_DEVICE_ARCHITECTURE_NOT_SUPPORTED: return "device architecture not supported";
    case INFINI_STATUS_BAD_TENSOR_DTYPE: return "bad tensor data type";
    case INFINI_STATUS_BAD_TENSOR_SHAPE: return "bad tensor shape";
    case INFINI_STATUS_BAD_TENSOR_STRIDES: return "bad tensor strides";
    case INFINI_STATUS_INSUFFICIENT_WORKSPACE: return "insufficient workspace";
    case INFINI_STATUS_OUT_OF_MEMORY: return "out of memory";
    case INFINI_STATUS_INVALID_HANDLE: return "invalid, destroyed or wrong-kind handle";
    case INFINI_STATUS_NOT_READY: return "work still pending";
    case INFINI_STATUS_BACKEND_UNAVAILABLE: return "backend unavailable (vendor library or driver missing)";
    case INFINI_STATUS_DRIVER_ERROR: return "native driver error";
    case INFINI_STATUS_BUILD_FAILED: return "module image failed to build or load";
    case INFINI_STATUS_SYMBOL_NOT_FOUND: return "no kernel or global of that name in the module";
    }
    return "unknown status code";
}

__export const char *infinirtGetLastErrorMessage(void) { return t_message; }

__export infiniStatus_t infinirtSetLastErrorMessage(infiniStatus_t status, const char *message) {
    return fail(status, "%s", message != nullptr ? message : "");
}

} // extern "C"
