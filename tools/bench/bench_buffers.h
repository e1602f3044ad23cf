// bench_buffers.h - the memory infinirt-bench copies between (two device buffers, a pinned and a
// pageable host buffer, each of the run's largest size) and the copy directions over them.
#pragma once

#include <infinirt.h>

#include <array>
#include <cstddef>

namespace infinirt_bench_tool {

struct Buffers {
    void *dev_a = nullptr;
    void *dev_b = nullptr;
    void *pinned = nullptr;
    void *pageable = nullptr;
};

// Allocates the buffers (on the current device) and writes every byte, so no page is first
// touched while timed. Returns -1 to go on, else 1 (message on stderr).
int allocateBuffers(size_t size, Buffers *buffers);

// One bandwidth sweep's copy.
struct Direction {
    const char *key;   // the JSON key (Sweep::key)
    const char *title; // Sweep::title
    void *dst;
    const void *src;
    infinirtMemcpyKind_t kind;
};

constexpr size_t kDirections = 5;

// h2d_pinned, h2d_pageable, d2h_pinned, d2h_pageable, d2d, in this order.
std::array<Direction, kDirections> directions(const Buffers &b);

} // namespace infinirt_bench_tool
