// bench_bandwidth.cpp - the bandwidth sweeps, infinirt beside the anchor.
#include "bench_bandwidth.h"

#include "bench_sizes.h"
#include "kernel_bench.h"

#include <algorithm>
#include <string>

namespace infinirt_bench_tool {

namespace {

using infinirt_bench::paired;

// One direction at every size; batches of copies of about batch_bytes (1 to 256 copies), each
// after one untimed copy: where the anchor has a GPU context of its own (vulkan's native program,
// a VkDevice of its own), the GPU switching between the two delays the first copy after a switch
// by a fixed time that neither side's copies pay on their own.
Sweep sweep(const Anchor &anchor, const Direction &d, const std::vector<size_t> &sizes, size_t batch_bytes, int rounds,
            Progress &progress) {
    const auto nothing = [] {};
    Sweep out{d.key, d.title, sizes, {}};
    for (size_t size : sizes) {
        progress.step(std::string("bandwidth ") + d.key + " " + sizeLabel(size));
        const int iters = static_cast<int>(std::min<size_t>(256, std::max<size_t>(1, batch_bytes / size)));
        auto ours = [&] { infinirtMemcpy(d.dst, d.src, size, d.kind); };
        Figure f;
        if (anchor.copy) {
            auto theirs = [&] { anchor.copy(d.dst, d.src, size, d.kind); };
            const infinirt_bench::Pair p = paired(rounds, iters, ours, theirs, nothing, true);
            f = {size / p.ours, size / p.anchor, true};
        } else {
            const infinirt_bench::Pair p = paired(rounds, iters, ours, ours, nothing, true);
            f.ours = size / infinirt_bench::median({p.ours, p.anchor});
        }
        out.gbps.push_back(f);
    }
    return out;
}

} // namespace

bool measureBandwidth(const Session &s, const std::vector<size_t> &sizes, bool quick, Progress &progress, Results *r) {
    const size_t batch_bytes = quick ? (size_t{1} << 20) : (size_t{32} << 20);
    for (const Direction &d : directions(s.buffers)) {
        // Every call is checked once before it is timed; the timed loops ignore the statuses.
        if (!infinirt_bench::check(infinirtMemcpy(d.dst, d.src, r->max_size, d.kind), "infinirtMemcpy")) {
            return false;
        }
        r->bandwidth.push_back(sweep(s.anchor, d, sizes, batch_bytes, r->rounds, progress));
    }
    return true;
}

} // namespace infinirt_bench_tool
