// The out-of-memory error of the caching allocators (device and pinned host), worded one way:
//
//   out of <memory>: requested <n>, allocated <n>, reserved but unallocated <n>[, free <n>]
//   [ (cached memory was released and the allocation retried)][; <detail>]
//
// where each <n> is "<bytes> bytes", followed by "(<x> MiB)" or "(<x> GiB)" from 1 MiB on.
#ifndef INFINICORE_CORE_OUT_OF_MEMORY_HPP
#define INFINICORE_CORE_OUT_OF_MEMORY_HPP

#include <cstddef>
#include <optional>
#include <string>

namespace infinicore::detail {

// What an allocator knew when it could not serve a request.
struct OutOfMemoryReport {
    std::string memory;               // what ran out: "memory on nvidia:0", "pinned host memory for nvidia:0"
    size_t requested = 0;             // bytes asked for
    size_t allocated = 0;             // bytes in blocks held by callers
    size_t reserved = 0;              // bytes obtained from the device, in use or cached
    std::optional<size_t> free_bytes; // free memory as the device reported it; none if it could not tell
    bool retried = false;             // cached memory was released and the allocation retried
    std::string detail;               // the backend's message, or why the request cannot be served
};

// "123 bytes", "3145728 bytes (3.00 MiB)", "2147483648 bytes (2.00 GiB)".
std::string formatBytes(size_t n);

// Throws OutOfMemoryError(call, the message above, requested, allocated, reserved - allocated
// (0 when reserved < allocated), free_bytes or 0).
[[noreturn]] void throwOutOfMemory(const char *call, const OutOfMemoryReport &report);

} // namespace infinicore::detail

#endif // INFINICORE_CORE_OUT_OF_MEMORY_HPP
