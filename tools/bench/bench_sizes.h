// bench_sizes.h - the transfer sizes of infinirt-bench's bandwidth sweeps: from 4 KiB up by 4x to
// the largest, which is lowered to fit the memory free on the device and on the host.
#pragma once

#include "bench_results.h"

#include <infinirt.h>

#include <cstddef>
#include <string>
#include <vector>

namespace infinirt_bench_tool {

constexpr size_t kMinSize = 4096;

// "N KiB" below 1 MiB, else "N MiB" (whole units, rounded down): the progress line's and the notes'.
std::string sizeLabel(size_t bytes);

// Lowers max_size (by halves, not below kMinSize) until what the run allocates fits in 3/4 of the
// memory free on the device and on the host; a note in r.notes says so.
size_t fitMemory(Results &r, size_t max_size, infiniDevice_t type, int id);

// kMinSize, 4x that, ... up to max_size, and max_size itself when the steps miss it.
std::vector<size_t> sweepSizes(size_t max_size);

} // namespace infinirt_bench_tool
