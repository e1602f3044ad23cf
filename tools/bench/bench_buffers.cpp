// bench_buffers.cpp - allocates and fills the buffers; the copy directions over them.
#include "bench_buffers.h"

#include "bench_failed.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace infinirt_bench_tool {

int allocateBuffers(size_t size, Buffers *buf) {
    infiniStatus_t st;
    if ((st = infinirtMalloc(&buf->dev_a, size)) != INFINI_STATUS_SUCCESS ||
        (st = infinirtMalloc(&buf->dev_b, size)) != INFINI_STATUS_SUCCESS) {
        return failed("infinirtMalloc", st);
    }
    if ((st = infinirtMallocHost(&buf->pinned, size)) != INFINI_STATUS_SUCCESS) {
        return failed("infinirtMallocHost", st);
    }
    buf->pageable = std::malloc(size);
    if (buf->pageable == nullptr) {
        std::fprintf(stderr, "infinirt-bench: malloc of %zu bytes failed\n", size);
        return 1;
    }
    std::memset(buf->pageable, 1, size); // fault the pages in before timing
    std::memset(buf->pinned, 1, size);
    if ((st = infinirtMemset(buf->dev_a, 1, size)) != INFINI_STATUS_SUCCESS ||
        (st = infinirtMemset(buf->dev_b, 2, size)) != INFINI_STATUS_SUCCESS) {
        return failed("infinirtMemset", st);
    }
    return -1;
}

std::array<Direction, kDirections> directions(const Buffers &b) {
    return {{
        {"h2d_pinned", "host to device, pinned host memory", b.dev_a, b.pinned, INFINIRT_MEMCPY_H2D},
        {"h2d_pageable", "host to device, pageable host memory", b.dev_a, b.pageable, INFINIRT_MEMCPY_H2D},
        {"d2h_pinned", "device to host, pinned host memory", b.pinned, b.dev_a, INFINIRT_MEMCPY_D2H},
        {"d2h_pageable", "device to host, pageable host memory", b.pageable, b.dev_a, INFINIRT_MEMCPY_D2H},
        {"d2d", "device to device (one device)", b.dev_b, b.dev_a, INFINIRT_MEMCPY_D2D},
    }};
}

} // namespace infinirt_bench_tool
