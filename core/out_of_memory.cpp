#include "out_of_memory.hpp"

#include "infinicore/error.hpp"

#include <cstdio>

namespace infinicore::detail {

std::string formatBytes(size_t n) {
    char text[64];
    if (n >= (size_t(1) << 30)) {
        std::snprintf(text, sizeof text, "%zu bytes (%.2f GiB)", n, double(n) / double(size_t(1) << 30));
    } else if (n >= (size_t(1) << 20)) {
        std::snprintf(text, sizeof text, "%zu bytes (%.2f MiB)", n, double(n) / double(size_t(1) << 20));
    } else {
        std::snprintf(text, sizeof text, "%zu bytes", n);
    }
    return text;
}

void throwOutOfMemory(const char *call, const OutOfMemoryReport &report) {
    const size_t unallocated = report.reserved > report.allocated ? report.reserved - report.allocated : 0;
    std::string message = "out of " + report.memory + ": requested " + formatBytes(report.requested) + ", allocated " +
                          formatBytes(report.allocated) + ", reserved but unallocated " + formatBytes(unallocated);
    if (report.free_bytes) {
        message += ", free " + formatBytes(*report.free_bytes);
    }
    if (report.retried) {
        message += " (cached memory was released and the allocation retried)";
    }
    if (!report.detail.empty()) {
        message += "; " + report.detail;
    }
    throw OutOfMemoryError(call, message, report.requested, report.allocated, unallocated,
                           report.free_bytes.value_or(0));
}

} // namespace infinicore::detail
