// Exceptions thrown by the C++ layer. Every failure of a C ABI call becomes an Error carrying the
// status code and the C ABI's detailed message for the calling thread (infinirtGetLastErrorMessage),
// captured at the moment of the failure.
#ifndef INFINICORE_ERROR_HPP
#define INFINICORE_ERROR_HPP

#include "../infinicore.h"

#include <cstddef>
#include <stdexcept>
#include <string>

namespace infinicore {

class __export Error : public std::runtime_error {
public:
    // `call` names what failed ("infinirtMalloc", "setDevice(cpu:7)"); `detail` is the C ABI's
    // message or our own explanation. what() is "<call> failed: <STATUS_NAME> (<code>): <detail>".
    Error(infiniStatus_t status, std::string call, std::string detail);
    ~Error() override;

    infiniStatus_t status() const noexcept { return status_; }
    const std::string &call() const noexcept { return call_; }
    const std::string &detail() const noexcept { return detail_; }

private:
    infiniStatus_t status_;
    std::string call_;
    std::string detail_;
};

// A device allocation that failed even after the caching allocator released its cached memory
// and retried. The figures are those at the moment of the failure.
class __export OutOfMemoryError : public Error {
public:
    OutOfMemoryError(std::string call, std::string detail, size_t requested, size_t allocated,
                     size_t reserved_unallocated, size_t free_bytes);
    ~OutOfMemoryError() override;

    size_t requested() const noexcept { return requested_; }
    // Bytes in blocks held by callers.
    size_t allocated() const noexcept { return allocated_; }
    // Bytes the allocator holds from the device that no caller is using.
    size_t reservedUnallocated() const noexcept { return reserved_unallocated_; }
    // Free device memory as the device reported it (0 if it could not tell).
    size_t freeBytes() const noexcept { return free_bytes_; }

private:
    size_t requested_;
    size_t allocated_;
    size_t reserved_unallocated_;
    size_t free_bytes_;
};

} // namespace infinicore

#endif // INFINICORE_ERROR_HPP
