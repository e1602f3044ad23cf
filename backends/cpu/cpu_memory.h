// cpu memory blocks: device and host blocks are both aligned host memory, handed out by
// malloc_device, malloc_host and malloc_async (cpu_memory.cpp). Every block starts kAlignment
// bytes after a header recording its size and device, so a free (possibly run by a stream worker,
// possibly on behalf of another device) returns the bytes to the right budget without a lookup
// table.
#ifndef INFINIRT_CPU_MEMORY_H
#define INFINIRT_CPU_MEMORY_H

#include <cstddef>

namespace infinirt::cpu {

// Alignment of every block malloc_device/malloc_host return: a cache line, enough for any
// vector load the host can do.
constexpr size_t kAlignment = 64;

// Frees a block from malloc_device/malloc_host/malloc_async and returns its bytes to its
// device's budget. Also run by stream workers for free_async. Never fails.
void releaseBlock(void *ptr) noexcept;

} // namespace infinirt::cpu

#endif // INFINIRT_CPU_MEMORY_H
