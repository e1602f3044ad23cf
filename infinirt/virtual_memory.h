// What api_virtual_memory.cpp tells the rest of the loader about its mappings.
#pragma once

#include <cstddef>
#include <cstdint>

namespace infinirt {

// One mapping of a physical allocation into a reservation.
struct MappingInfo {
    void *base = nullptr;  // where the mapping starts
    size_t size = 0;       // its bytes
    int type = 0;          // the owning device
    int device = 0;
    void *native = nullptr; // the plugin's physical allocation
    size_t offset = 0;      // where in it the mapping starts
    uint32_t flags = 0;     // its INFINIRT_MEM_CREATE_ flags
};

// The mapping holding `ptr`; false if no mapping does.
bool findMapping(const void *ptr, MappingInfo &out);

} // namespace infinirt
