#include "check.hpp"

#include <string>

namespace infinicore {

namespace {

std::string describe(infiniStatus_t status, const std::string &call, const std::string &detail) {
    std::string text = call + " failed: " + infinirtGetErrorName(status) + " (" + std::to_string(status) + ")";
    if (!detail.empty()) {
        text += ": " + detail;
    }
    return text;
}

} // namespace

Error::Error(infiniStatus_t status, std::string call, std::string detail)
    : std::runtime_error(describe(status, call, detail)), status_(status), call_(std::move(call)),
      detail_(std::move(detail)) {}

Error::~Error() = default;

OutOfMemoryError::OutOfMemoryError(std::string call, std::string detail, size_t requested, size_t allocated,
                                   size_t reserved_unallocated, size_t free_bytes)
    : Error(INFINI_STATUS_OUT_OF_MEMORY, std::move(call), std::move(detail)), requested_(requested),
      allocated_(allocated), reserved_unallocated_(reserved_unallocated), free_bytes_(free_bytes) {}

OutOfMemoryError::~OutOfMemoryError() = default;

namespace detail {

void throwStatus(infiniStatus_t status, const char *call) {
    // Copied now: the C ABI's message lives only until the thread's next infinirt call.
    throw Error(status, call, infinirtGetLastErrorMessage());
}

} // namespace detail
} // namespace infinicore
