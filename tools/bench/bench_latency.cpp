// bench_latency.cpp - the latencies, infinirt beside the anchor.
#include "bench_latency.h"

#include "bench_kernel.h"
#include "kernel_bench.h"

#include <functional>
#include <string>

namespace infinirt_bench_tool {

namespace {

using infinirt_bench::check;

constexpr size_t kSmallCopy = 8;

const auto nothing = [] {};

// Measures one latency into r.latency: `ours` beside `theirs` (empty: ours alone, no native
// figure) in batches of `calls`, `after` run untimed after each batch.
struct LatencyRun {
    Results &r;
    Progress &progress;
    int calls;

    template <typename Ours, typename After>
    void operator()(const char *key, const std::string &what, const Ours &ours, const std::function<void()> &theirs,
                    const After &after) {
        progress.step(std::string("latency ") + key);
        Figure f;
        if (theirs) {
            const infinirt_bench::Pair p = infinirt_bench::paired(r.rounds, calls, ours, theirs, after);
            f = {p.ours, p.anchor, true};
        } else {
            const infinirt_bench::Pair p = infinirt_bench::paired(r.rounds, calls, ours, ours, after);
            f.ours = infinirt_bench::median({p.ours, p.anchor});
        }
        r.latency.push_back({key, what, f});
    }
};

// Event record (the stream drained per batch), event query of a completed event, synchronize of
// an idle stream.
bool streamLatencies(const Session &s, LatencyRun &latency) {
    const auto drain = [&] { infinirtStreamSynchronize(s.stream); };
    infinirtEventStatus_t status{};
    if (!check(infinirtEventRecord(s.event, s.stream), "infinirtEventRecord") ||
        !check(infinirtStreamSynchronize(s.stream), "infinirtStreamSynchronize") ||
        !check(infinirtEventQuery(s.event, &status), "infinirtEventQuery")) {
        return false;
    }
    latency("event_record", "EventRecord, idle stream (drained per batch)",
            [&] { infinirtEventRecord(s.event, s.stream); }, s.anchor.event_record, drain);
    drain();
    if (s.anchor.stream_sync) {
        s.anchor.stream_sync();
    }
    latency("event_query", "EventQuery of a completed event", [&] { infinirtEventQuery(s.event, &status); },
            s.anchor.event_query, nothing);
    latency("stream_sync", "StreamSynchronize of an idle stream", [&] { infinirtStreamSynchronize(s.stream); },
            s.anchor.stream_sync, nothing);
    return true;
}

// Synchronous copies of kSmallCopy bytes: host to device and back (pinned), device to device.
void copyLatencies(const Session &s, LatencyRun &latency) {
    const auto all = directions(s.buffers);
    for (const Direction &d : {all[0], all[2], all[4]}) {
        const std::string key = std::string("copy_") + std::string(d.key).substr(0, 3) + "_small";
        const std::string what = std::string("Memcpy of ") + std::to_string(kSmallCopy) + " bytes, " +
                                 std::string(d.key).substr(0, 3) + (d.kind == INFINIRT_MEMCPY_D2D ? "" : " (pinned)");
        latency(key.c_str(), what, [&] { infinirtMemcpy(d.dst, d.src, kSmallCopy, d.kind); },
                s.anchor.copy ? std::function<void()>([&] { s.anchor.copy(d.dst, d.src, kSmallCopy, d.kind); })
                              : std::function<void()>(),
                nothing);
    }
}

// The empty kernel's launch, 1 block of 1 thread: alone (the stream drained per batch) and
// followed by a synchronize. Skipped, with the reason, when there is no empty kernel.
bool launchLatencies(const Session &s, LatencyRun &latency) {
    std::string why;
    infinirtKernel_t kernel = emptyKernel(s.anchor, s.type, s.id, &why);
    if (kernel == nullptr) {
        latency.r.skipped.push_back({"kernel_launch", why});
        latency.r.skipped.push_back({"kernel_launch_sync", why});
        return true;
    }
    const infinirtLaunchConfig_t config = infinirt_bench::launchConfig(1, 1);
    if (!check(infinirtLaunchKernel(kernel, &config, nullptr, 0, s.stream), "infinirtLaunchKernel")) {
        return false;
    }
    const auto drain = [&] { infinirtStreamSynchronize(s.stream); };
    drain();
    latency("kernel_launch", "LaunchKernel, empty 1x1 (drained per batch)",
            [&] { infinirtLaunchKernel(kernel, &config, nullptr, 0, s.stream); }, s.anchor.launch, drain);
    latency("kernel_launch_sync", "LaunchKernel + StreamSynchronize, empty 1x1",
            [&] {
                infinirtLaunchKernel(kernel, &config, nullptr, 0, s.stream);
                infinirtStreamSynchronize(s.stream);
            },
            s.anchor.launch ? std::function<void()>([&] {
                s.anchor.launch();
                s.anchor.drain();
            })
                            : std::function<void()>(),
            nothing);
    return true;
}

} // namespace

bool measureLatencies(const Session &s, bool quick, Progress &progress, Results *r) {
    LatencyRun latency{*r, progress, quick ? 10 : 200};
    if (!streamLatencies(s, latency)) {
        return false;
    }
    copyLatencies(s, latency);
    return launchLatencies(s, latency);
}

} // namespace infinirt_bench_tool
