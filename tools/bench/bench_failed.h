// bench_failed.h - infinirt-bench's message for an infinirt call that failed while setting up a run.
#pragma once

#include <infinirt.h>

#include <cstdio>

namespace infinirt_bench_tool {

// Prints "infinirt-bench: <what> failed: <status name>: <infinirt's message>" on stderr; returns 1,
// the exit status that goes with it.
inline int failed(const char *what, infiniStatus_t st) {
    std::fprintf(stderr, "infinirt-bench: %s failed: %s: %s\n", what, infinirtGetErrorName(st),
                 infinirtGetLastErrorMessage());
    return 1;
}

} // namespace infinirt_bench_tool
