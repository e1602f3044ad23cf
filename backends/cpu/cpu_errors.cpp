// Failures: the cpu backend's mapping from what can fail to infiniStatus_t, and the one place
// allocation failures are worded. The cpu has no native error codes; what fails is an allocation
// (posix_memalign's errno, INFINIRT_CPU_MEMORY_LIMIT, the physical memory), and exceptions are
// mapped by the entry guard (backends/common/entry_guard.hpp: std::bad_alloc -> OUT_OF_MEMORY,
// anything else -> INTERNAL_ERROR).
#include "cpu_backend.h"

#include "common/host_services.hpp"
#include "common/plugin_table.hpp"
#include "common/text.hpp"

#include <cerrno>
#include <cstdarg>
#include <cstdio>

namespace infinirt::cpu {

namespace {

// The errno values an allocation call returns, by name and status.
struct ErrnoEntry {
    int code;
    const char *name;
    infiniStatus_t status;
};

constexpr ErrnoEntry kErrnoTable[] = {
    {ENOMEM, "ENOMEM", INFINI_STATUS_OUT_OF_MEMORY},
    // posix_memalign: the alignment is not a power of two multiple of sizeof(void *). Ours is
    // fixed, so this cannot happen; reported like ENOMEM, as the block cannot be had.
    {EINVAL, "EINVAL", INFINI_STATUS_OUT_OF_MEMORY},
};

// Any other errno: still a failed allocation.
constexpr ErrnoEntry kUnknownErrno = {0, "errno", INFINI_STATUS_OUT_OF_MEMORY};

const ErrnoEntry &errnoEntry(int err) noexcept {
    for (const ErrnoEntry &entry : kErrnoTable) {
        if (entry.code == err) {
            return entry;
        }
    }
    return kUnknownErrno;
}

} // namespace

SizeText sizeText(size_t bytes) noexcept {
    SizeText out{};
    if (bytes < 1024) {
        std::snprintf(out.text, sizeof out.text, "%zu bytes", bytes);
    } else {
        std::snprintf(out.text, sizeof out.text, "%zu bytes (%s)", bytes, common::formatBytes(bytes).c_str());
    }
    return out;
}

infiniStatus_t outOfMemory(const char *entry, int device, size_t size, size_t free_bytes, const char *why_format,
                           ...) noexcept {
    char why[common::kMessageCapacity];
    va_list args;
    va_start(args, why_format);
    std::vsnprintf(why, sizeof why, why_format, args);
    va_end(args);
    return common::fail(INFINI_STATUS_OUT_OF_MEMORY, "%s: cannot allocate %s on cpu:%d: %s, %s free", entry,
                        sizeText(size).c_str(), device, why, sizeText(free_bytes).c_str());
}

infiniStatus_t allocationFailure(const char *entry, const char *call, int err, int device, size_t size) noexcept {
    const ErrnoEntry &mapped = errnoEntry(err);
    outOfMemory(entry, device, size, systemAvailableMemory(), "%s failed: %s (%d)", call, mapped.name, err);
    return mapped.status;
}

// Device memory is ordinary host memory: no staging rank (it is what a pageable copy reads), and
// other backends copy to and from it directly; errors are errno's.
infiniStatus_t getPluginTraits(infinirtPluginTraits_t *traits) {
    traits->device_memory_is_host = 1;
    return common::reportTraits(traits, 0, "ENOMEM", "EIO");
}

} // namespace infinirt::cpu
