// anchor_cpu.cpp - the cpu backend's anchor: memcpy for every copy (its device memory is host
// memory). Events, streams and launches have no native counterpart: the cpu backend is the native
// implementation.
#include "bench_anchor.h"

#include <cstring>

namespace infinirt_bench_tool {

Anchor cpuAnchor(const Target &) {
    Anchor a;
    a.name = "memcpy";
    a.describe = "memcpy on the same buffers (events, streams, launches: no native counterpart)";
    a.copy = [](void *dst, const void *src, size_t size, infinirtMemcpyKind_t) { std::memcpy(dst, src, size); };
    return a;
}

} // namespace infinirt_bench_tool
