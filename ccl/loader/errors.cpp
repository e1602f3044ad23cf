// The error channel: libinfiniccl's failures become infinirt's last-error message
// (infinirtSetLastErrorMessage), with the plugin's own detail where it gave one.
#include "internal.h"

#include <cstdio>

namespace infiniccl {

namespace {

constexpr size_t kMessageSize = 1024;
thread_local char t_detail[kMessageSize];
thread_local bool t_detail_pending = false;

void hostSetError(const char *message) {
    std::snprintf(t_detail, kMessageSize, "%s", message != nullptr ? message : "");
    t_detail_pending = true;
}

const infinicclPluginHost_t kHost = {sizeof(infinicclPluginHost_t), INFINICCL_PLUGIN_INTERFACE_VERSION,
                                     hostSetError};

} // namespace

const infinicclPluginHost_t *pluginHost() { return &kHost; }

infiniStatus_t fail(infiniStatus_t status, const char *fmt, ...) {
    char message[kMessageSize];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return infinirtSetLastErrorMessage(status, message);
}

void beginPluginCall() { t_detail_pending = false; }

infiniStatus_t pluginFailed(const Plugin *plugin, int device, const char *call, infiniStatus_t status) {
    if (t_detail_pending) {
        t_detail_pending = false;
        return fail(status, "%s:%d: %s", plugin->table.name, device, t_detail);
    }
    return fail(status, "%s:%d: %s failed: %s", plugin->table.name, device, call, infinirtGetErrorName(status));
}

const char *dtypeName(infiniDtype_t dtype) {
    static const char *const names[] = {"INVALID", "BYTE", "BOOL", "I8",  "I16", "I32", "I64",
                                        "U8",      "U16",  "U32",  "U64", "F8",  "F16", "F32",
                                        "F64",     "C16",  "C32",  "C64", "C128", "BF16"};
    const int v = static_cast<int>(dtype);
    return v >= 0 && v < static_cast<int>(sizeof names / sizeof names[0]) ? names[v] : "(not a dtype)";
}

size_t dtypeSize(infiniDtype_t dtype) {
    switch (dtype) {
    case INFINI_DTYPE_BYTE: case INFINI_DTYPE_BOOL: case INFINI_DTYPE_I8: case INFINI_DTYPE_U8: case INFINI_DTYPE_F8:
        return 1;
    case INFINI_DTYPE_I16: case INFINI_DTYPE_U16: case INFINI_DTYPE_F16: case INFINI_DTYPE_BF16: case INFINI_DTYPE_C16:
        return 2;
    case INFINI_DTYPE_I32: case INFINI_DTYPE_U32: case INFINI_DTYPE_F32: case INFINI_DTYPE_C32:
        return 4;
    case INFINI_DTYPE_I64: case INFINI_DTYPE_U64: case INFINI_DTYPE_F64: case INFINI_DTYPE_C64:
        return 8;
    case INFINI_DTYPE_C128:
        return 16;
    default:
        return 0;
    }
}

} // namespace infiniccl
