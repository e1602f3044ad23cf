// bench_anchor.h - the native reference infinirt-bench measures beside each of its figures: the
// same operation through the vendor's own API on the same objects (the CUstream / cl_command_queue
// behind the tool's infinirt stream, the same buffers), in the same run. One factory per backend
// (anchor_<backend>.cpp); a figure whose anchor is empty has no native counterpart and is printed
// without a ratio.
#pragma once

#include <infinirt.h>

#include <cstddef>
#include <functional>
#include <string>

namespace infinirt_bench_tool {

// What the anchor works on: the device, and the tool's stream and event on it.
struct Target {
    infiniDevice_t type;
    int id;
    infinirtStream_t stream; // an infinirt stream of the device
};

struct Anchor {
    std::string name;     // e.g. "CUDA driver API"; empty: no native anchor
    std::string why_none; // why there is none (or why a part is missing), for the report
    // A synchronous copy of `size` bytes between the tool's buffers (infinirtMalloc/MallocHost/
    // malloc memory), as infinirtMemcpy with `kind` does it.
    std::function<void(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind)> copy;
    std::function<void()> event_record; // record a native event on the target's native stream
    std::function<void()> event_query;  // query that (completed) event
    std::function<void()> stream_sync;  // synchronise the target's (idle) native stream
    std::function<void()> launch;       // launch the empty kernel of `image`, 1 block of 1 thread
    std::function<void()> drain;        // wait for everything launched on the native stream
    // The empty kernel's image, loaded by both sides (the same bytes and options); format AUTO
    // with no bytes: the tool loads its module file (share/infinirt/infinirt-bench.irtm) instead.
    infinirtModuleFormat_t image_format = INFINIRT_MODULE_FORMAT_AUTO;
    std::string image;
    std::string image_options;
    std::string describe; // the native calls, for the report ("cuMemcpyHtoD/DtoH/DtoD, ...")
};

// An anchor that has nothing: the tool prints its own figures alone and says why.
inline Anchor noAnchor(const std::string &why) {
    Anchor a;
    a.why_none = why;
    return a;
}

// Each returns an Anchor with what its API offers on `target`; on failure, name is empty and
// why_none says why (the tool then prints its own figures alone).
Anchor cudaAnchor(const Target &target);
Anchor openclAnchor(const Target &target);
Anchor cpuAnchor(const Target &target);
Anchor vulkanAnchor(const Target &target);

} // namespace infinirt_bench_tool
