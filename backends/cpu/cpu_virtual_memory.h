// cpu virtual memory: a reservation is an mmap(PROT_NONE) range; a physical allocation is a memfd
// of its size (PhysicalMemory), mapped into a reservation MAP_FIXED | MAP_SHARED; access is
// mprotect. The granularity is the page size (minimum) and 2 MiB (recommended: a huge page).
#ifndef INFINIRT_CPU_VIRTUAL_MEMORY_H
#define INFINIRT_CPU_VIRTUAL_MEMORY_H

#include <cstddef>
#include <cstdint>

namespace infinirt::cpu {

// The plugin's object behind a physical allocation (mem_create's *mem).
struct PhysicalMemory {
    int fd = -1;     // the memfd, O_RDWR, close-on-exec
    size_t size = 0;
    int device = 0;
    uint32_t flags = 0; // INFINIRT_MEM_CREATE_ flags
};

} // namespace infinirt::cpu

#endif // INFINIRT_CPU_VIRTUAL_MEMORY_H
