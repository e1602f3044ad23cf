// bench_sizes.cpp - the sweep sizes and the largest size that fits the memory free.
#include "bench_sizes.h"

#include <unistd.h>

namespace infinirt_bench_tool {

std::string sizeLabel(size_t bytes) {
    return bytes >= (size_t{1} << 20) ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes >> 10) + " KiB";
}

size_t fitMemory(Results &r, size_t max_size, infiniDevice_t type, int id) {
    size_t free_dev = 0;
    size_t total_dev = 0;
    const bool dev_known = infinirtGetMemInfo(type, id, &free_dev, &total_dev) == INFINI_STATUS_SUCCESS;
    const long pages = sysconf(_SC_AVPHYS_PAGES);
    const long page = sysconf(_SC_PAGESIZE);
    const size_t free_host = pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : 0;
    // Two device buffers, a pinned and a pageable host buffer; a cpu device's memory is the host's.
    const size_t host_buffers = type == INFINI_DEVICE_CPU ? 4 : 2;
    size_t size = max_size;
    while (size > kMinSize &&
           ((dev_known && 2 * size > free_dev / 4 * 3) || (free_host > 0 && host_buffers * size > free_host / 4 * 3))) {
        size /= 2;
    }
    if (size != max_size) {
        r.notes.push_back("largest transfer lowered from " + sizeLabel(max_size) + " to " + sizeLabel(size) +
                          " for the memory free (device " + std::to_string(free_dev >> 20) + " MiB, host " +
                          std::to_string(free_host >> 20) + " MiB)");
    }
    return size;
}

std::vector<size_t> sweepSizes(size_t max_size) {
    std::vector<size_t> sizes;
    for (size_t s = kMinSize; s <= max_size; s *= 4) {
        sizes.push_back(s);
    }
    if (sizes.back() != max_size) {
        sizes.push_back(max_size);
    }
    return sizes;
}

} // namespace infinirt_bench_tool
