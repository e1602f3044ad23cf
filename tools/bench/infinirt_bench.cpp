// infinirt-bench: bandwidth and latency of one device through infinirt, each figure beside the
// native API's measured in the same run on the same objects (bench_anchor.h), as text tables, a
// JSON document (--json, schema in README.md) and a plot (--plot). Usage: --help.
//
// Timing: each figure pairs infinirt's call with the native one in ABBA rounds of batches
// (bench/kernels/kernel_bench.h, paired()) and reports each side's median; bandwidth is bytes over
// the median time of one synchronous copy. Timing never decides the exit status: 0 when every
// call worked, 1 when one failed (with infinirt's message), 2 for bad arguments.
#include "bench_anchor.h"
#include "bench_options.h"
#include "bench_plot.h"
#include "bench_progress.h"
#include "bench_report.h"
#include "bench_share.h"
#include "kernel_bench.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <unistd.h>

namespace {

using namespace infinirt_bench_tool;
using infinirt_bench::check;
using infinirt_bench::paired;

constexpr size_t kMinSize = 4096;
constexpr size_t kSmallCopy = 8;

int failed(const char *what, infiniStatus_t st) {
    std::fprintf(stderr, "infinirt-bench: %s failed: %s: %s\n", what, infinirtGetErrorName(st),
                 infinirtGetLastErrorMessage());
    return 1;
}

std::string sizeLabel(size_t bytes) {
    return bytes >= (size_t{1} << 20) ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes >> 10) + " KiB";
}

// Lowers max_size (by halves, not below 4 KiB) until what the run allocates fits in 3/4 of the
// memory free on the device and on the host; a note says so.
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
    while (size > kMinSize && ((dev_known && 2 * size > free_dev / 4 * 3) ||
                               (free_host > 0 && host_buffers * size > free_host / 4 * 3))) {
        size /= 2;
    }
    if (size != max_size) {
        r.notes.push_back("largest transfer lowered from " + sizeLabel(max_size) + " to " + sizeLabel(size) +
                          " for the memory free (device " + std::to_string(free_dev >> 20) + " MiB, host " +
                          std::to_string(free_host >> 20) + " MiB)");
    }
    return size;
}

struct Buffers {
    void *dev_a = nullptr;
    void *dev_b = nullptr;
    void *pinned = nullptr;
    void *pageable = nullptr;
};

// The empty kernel: the anchor's image when it has one (both sides load the same bytes), else
// the tool's module file. Returns nullptr with *why when there is none.
infinirtKernel_t emptyKernel(const Anchor &anchor, infiniDevice_t type, int id, std::string *why) {
    infinirtModule_t module = nullptr;
    char log[4096] = "";
    infiniStatus_t st;
    std::string source;
    if (!anchor.image.empty()) {
        infinirtModuleImage_t image{};
        image.struct_size = sizeof image;
        image.format = anchor.image_format;
        image.data = anchor.image.data();
        image.size = anchor.image.size();
        image.options = anchor.image_options.empty() ? nullptr : anchor.image_options.c_str();
        st = infinirtModuleLoad(&module, type, id, &image, 1, log, sizeof log);
        source = "the anchor's image";
    } else {
        source = shareFile("infinirt-bench.irtm");
        st = infinirtModuleLoadFile(&module, type, id, source.c_str(), nullptr, log, sizeof log);
    }
    if (st != INFINI_STATUS_SUCCESS) {
        *why = "loading the empty kernel from " + source + " failed: " + infinirtGetErrorName(st) + ": " +
               infinirtGetLastErrorMessage();
        return nullptr;
    }
    infinirtKernel_t kernel = nullptr;
    if ((st = infinirtModuleGetKernel(&kernel, module, "empty")) != INFINI_STATUS_SUCCESS) {
        *why = std::string("infinirtModuleGetKernel(empty): ") + infinirtGetLastErrorMessage();
        return nullptr;
    }
    return kernel;
}

} // namespace

int main(int argc, char **argv) {
    Options opt;
    const int parsed = parseOptions(argc, argv, &opt);
    if (parsed >= 0) {
        return parsed;
    }
    std::string python;
    std::string script;
    std::string error;
    if (!opt.plot_file.empty() && !plotReady(opt.plot_file, &python, &script, &error)) {
        std::fprintf(stderr, "infinirt-bench: %s\n", error.c_str());
        return 2;
    }

    infiniStatus_t st = infinirtInit();
    if (st != INFINI_STATUS_SUCCESS) {
        return failed("infinirtInit", st);
    }
    infiniDevice_t type = opt.type;
    int id = opt.id;
    if (!opt.has_device && (st = infinirtGetDevice(&type, &id)) != INFINI_STATUS_SUCCESS) {
        return failed("infinirtGetDevice", st);
    }
    int count = 0;
    if ((st = infinirtGetDeviceCount(type, &count)) != INFINI_STATUS_SUCCESS) {
        return failed("infinirtGetDeviceCount", st);
    }
    if (id >= count) {
        std::fprintf(stderr, "infinirt-bench: --device %s:%d: there %s %d %s device%s (infinirt-info lists them)\n",
                     deviceTypeName(type), id, count == 1 ? "is" : "are", count, deviceTypeName(type),
                     count == 1 ? "" : "s");
        return 2;
    }
    if ((st = infinirtSetDevice(type, id)) != INFINI_STATUS_SUCCESS) {
        return failed("infinirtSetDevice", st);
    }

    Results r;
    r.version = INFINIRT_BENCH_VERSION;
    r.device_type = deviceTypeName(type);
    r.device_id = id;
    r.quick = opt.quick;
    r.rounds = opt.quick ? 1 : 5;
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof props;
    if ((st = infinirtGetDeviceProperties(type, id, &props)) != INFINI_STATUS_SUCCESS) {
        return failed("infinirtGetDeviceProperties", st);
    }
    r.device_name = props.name;
    int backends = 0;
    infinirtGetBackendCount(&backends);
    for (int b = 0; b < backends; ++b) {
        infinirtBackendInfo_t info{};
        info.struct_size = sizeof info;
        if (infinirtGetBackendInfo(b, &info) == INFINI_STATUS_SUCCESS && info.device_type == type &&
            info.state == INFINIRT_BACKEND_LOADED) {
            r.backend = info.name;
        }
    }
    r.max_size = fitMemory(r, opt.max_size != 0 ? opt.max_size : (opt.quick ? size_t{1} << 20 : size_t{1} << 30),
                           type, id);

    infinirtStream_t stream = nullptr;
    infinirtEvent_t event = nullptr;
    if ((st = infinirtStreamCreate(&stream)) != INFINI_STATUS_SUCCESS) {
        return failed("infinirtStreamCreate", st);
    }
    if ((st = infinirtEventCreate(&event)) != INFINI_STATUS_SUCCESS) {
        return failed("infinirtEventCreate", st);
    }
    const Target target{type, id, stream};
    Anchor anchor = type == INFINI_DEVICE_NVIDIA   ? cudaAnchor(target)
                    : type == INFINI_DEVICE_OPENCL ? openclAnchor(target)
                    : type == INFINI_DEVICE_CPU    ? cpuAnchor(target)
                                                   : Anchor{};
    if (anchor.name.empty() && anchor.why_none.empty()) {
        anchor.why_none = std::string("infinirt-bench has no native anchor for ") + r.device_type + " devices";
    }
    r.anchor = anchor.name;
    r.anchor_calls = anchor.name.empty() ? anchor.why_none : anchor.describe;

    Buffers buf;
    const size_t max = r.max_size;
    if ((st = infinirtMalloc(&buf.dev_a, max)) != INFINI_STATUS_SUCCESS ||
        (st = infinirtMalloc(&buf.dev_b, max)) != INFINI_STATUS_SUCCESS) {
        return failed("infinirtMalloc", st);
    }
    if ((st = infinirtMallocHost(&buf.pinned, max)) != INFINI_STATUS_SUCCESS) {
        return failed("infinirtMallocHost", st);
    }
    buf.pageable = std::malloc(max);
    if (buf.pageable == nullptr) {
        std::fprintf(stderr, "infinirt-bench: malloc of %zu bytes failed\n", max);
        return 1;
    }
    std::memset(buf.pageable, 1, max); // fault the pages in before timing
    std::memset(buf.pinned, 1, max);
    if ((st = infinirtMemset(buf.dev_a, 1, max)) != INFINI_STATUS_SUCCESS ||
        (st = infinirtMemset(buf.dev_b, 2, max)) != INFINI_STATUS_SUCCESS) {
        return failed("infinirtMemset", st);
    }

    struct Direction {
        const char *key;
        const char *title;
        void *dst;
        const void *src;
        infinirtMemcpyKind_t kind;
    };
    const Direction directions[] = {
        {"h2d_pinned", "host to device, pinned host memory", buf.dev_a, buf.pinned, INFINIRT_MEMCPY_H2D},
        {"h2d_pageable", "host to device, pageable host memory", buf.dev_a, buf.pageable, INFINIRT_MEMCPY_H2D},
        {"d2h_pinned", "device to host, pinned host memory", buf.pinned, buf.dev_a, INFINIRT_MEMCPY_D2H},
        {"d2h_pageable", "device to host, pageable host memory", buf.pageable, buf.dev_a, INFINIRT_MEMCPY_D2H},
        {"d2d", "device to device (one device)", buf.dev_b, buf.dev_a, INFINIRT_MEMCPY_D2D},
    };
    std::vector<size_t> sizes;
    for (size_t s = kMinSize; s <= max; s *= 4) {
        sizes.push_back(s);
    }
    if (sizes.back() != max) {
        sizes.push_back(max);
    }
    constexpr int kLatencies = 8;
    Progress progress(static_cast<int>(sizes.size() * (sizeof directions / sizeof directions[0])) + kLatencies);
    const size_t batch_bytes = opt.quick ? (size_t{1} << 20) : (size_t{32} << 20);
    const auto nothing = [] {};

    for (const Direction &d : directions) {
        // Every call is checked once before it is timed; the timed loops ignore the statuses.
        if (!check(infinirtMemcpy(d.dst, d.src, max, d.kind), "infinirtMemcpy")) {
            return 1;
        }
        Sweep sweep{d.key, d.title, sizes, {}};
        for (size_t size : sizes) {
            progress.step(std::string("bandwidth ") + d.key + " " + sizeLabel(size));
            const int iters = static_cast<int>(std::min<size_t>(256, std::max<size_t>(1, batch_bytes / size)));
            auto ours = [&] { infinirtMemcpy(d.dst, d.src, size, d.kind); };
            Figure f;
            if (anchor.copy) {
                auto theirs = [&] { anchor.copy(d.dst, d.src, size, d.kind); };
                const infinirt_bench::Pair p = paired(r.rounds, iters, ours, theirs, nothing);
                f = {size / p.ours, size / p.anchor, true};
            } else {
                const infinirt_bench::Pair p = paired(r.rounds, iters, ours, ours, nothing);
                f.ours = size / infinirt_bench::median({p.ours, p.anchor});
            }
            sweep.gbps.push_back(f);
        }
        r.bandwidth.push_back(sweep);
    }

    // Latencies: batches of `calls`, the stream drained (untimed) between batches where asked.
    const int calls = opt.quick ? 10 : 200;
    const auto drain = [&] { infinirtStreamSynchronize(stream); };
    auto latency = [&](const char *key, const std::string &what, const auto &ours,
                       const std::function<void()> &theirs, const auto &after) {
        progress.step(std::string("latency ") + key);
        Figure f;
        if (theirs) {
            const infinirt_bench::Pair p = paired(r.rounds, calls, ours, theirs, after);
            f = {p.ours, p.anchor, true};
        } else {
            const infinirt_bench::Pair p = paired(r.rounds, calls, ours, ours, after);
            f.ours = infinirt_bench::median({p.ours, p.anchor});
        }
        r.latency.push_back({key, what, f});
    };
    infinirtEventStatus_t status{};
    if (!check(infinirtEventRecord(event, stream), "infinirtEventRecord") ||
        !check(infinirtStreamSynchronize(stream), "infinirtStreamSynchronize") ||
        !check(infinirtEventQuery(event, &status), "infinirtEventQuery")) {
        return 1;
    }
    latency("event_record", "EventRecord, idle stream (drained per batch)",
            [&] { infinirtEventRecord(event, stream); }, anchor.event_record, drain);
    drain();
    if (anchor.stream_sync) {
        anchor.stream_sync();
    }
    latency("event_query", "EventQuery of a completed event", [&] { infinirtEventQuery(event, &status); },
            anchor.event_query, nothing);
    latency("stream_sync", "StreamSynchronize of an idle stream", [&] { infinirtStreamSynchronize(stream); },
            anchor.stream_sync, nothing);
    for (const Direction &d : {directions[0], directions[2], directions[4]}) {
        const std::string key = std::string("copy_") + std::string(d.key).substr(0, 3) + "_small";
        const std::string what = std::string("Memcpy of ") + std::to_string(kSmallCopy) + " bytes, " +
                                 std::string(d.key).substr(0, 3) + (d.kind == INFINIRT_MEMCPY_D2D ? "" : " (pinned)");
        latency(key.c_str(), what, [&] { infinirtMemcpy(d.dst, d.src, kSmallCopy, d.kind); },
                anchor.copy ? std::function<void()>([&] { anchor.copy(d.dst, d.src, kSmallCopy, d.kind); })
                            : std::function<void()>(),
                nothing);
    }
    std::string why;
    infinirtKernel_t kernel = emptyKernel(anchor, type, id, &why);
    const infinirtLaunchConfig_t config = infinirt_bench::launchConfig(1, 1);
    if (kernel != nullptr && !check(infinirtLaunchKernel(kernel, &config, nullptr, 0, stream), "infinirtLaunchKernel")) {
        return 1;
    }
    if (kernel != nullptr) {
        drain();
        latency("kernel_launch", "LaunchKernel, empty 1x1 (drained per batch)",
                [&] { infinirtLaunchKernel(kernel, &config, nullptr, 0, stream); }, anchor.launch, drain);
        latency("kernel_launch_sync", "LaunchKernel + StreamSynchronize, empty 1x1",
                [&] {
                    infinirtLaunchKernel(kernel, &config, nullptr, 0, stream);
                    infinirtStreamSynchronize(stream);
                },
                anchor.launch ? std::function<void()>([&] {
                    anchor.launch();
                    anchor.drain();
                })
                              : std::function<void()>(),
                nothing);
    } else {
        r.skipped.push_back({"kernel_launch", why});
        r.skipped.push_back({"kernel_launch_sync", why});
    }
    progress.clear();
    if (infinirt_bench::g_failed) {
        return 1;
    }

    const std::string json = toJson(r);
    if (!opt.json || !opt.json_file.empty()) {
        printText(r, stdout);
    }
    if (opt.json && opt.json_file.empty()) {
        std::fputs(json.c_str(), stdout);
    }
    std::string json_path = opt.json_file;
    bool temporary = false;
    if (json_path.empty() && !opt.plot_file.empty()) {
        char name[] = "/tmp/infinirt-bench-XXXXXX";
        const int fd = mkstemp(name);
        if (fd < 0) {
            std::fprintf(stderr, "infinirt-bench: cannot create a temporary file for the plot\n");
            return 1;
        }
        close(fd);
        json_path = name;
        temporary = true;
    }
    if (!json_path.empty()) {
        std::ofstream out(json_path, std::ios::binary | std::ios::trunc);
        out << json;
        if (!out.flush()) {
            std::fprintf(stderr, "infinirt-bench: cannot write %s\n", json_path.c_str());
            return 1;
        }
    }
    int rc = 0;
    if (!opt.plot_file.empty()) {
        if (plot(python, script, json_path, opt.plot_file, &error)) {
            std::fprintf(opt.json && opt.json_file.empty() ? stderr : stdout, "plot written to %s\n",
                         opt.plot_file.c_str());
        } else {
            std::fprintf(stderr, "infinirt-bench: %s\n", error.c_str());
            rc = 1;
        }
    }
    if (temporary) {
        unlink(json_path.c_str());
    }
    return rc;
}
