// bench_session.cpp - sets up the device, stream, event, native anchor and buffers of a run.
#include "bench_session.h"

#include "bench_device.h"
#include "bench_failed.h"

#include <string>

namespace infinirt_bench_tool {

namespace {

// The native anchor of the device's backend; one without a name says why in why_none.
Anchor anchorFor(const Target &target, const std::string &device_type) {
    Anchor anchor = target.type == INFINI_DEVICE_NVIDIA   ? cudaAnchor(target)
                    : target.type == INFINI_DEVICE_OPENCL ? openclAnchor(target)
                    : target.type == INFINI_DEVICE_VULKAN ? vulkanAnchor(target)
                    : target.type == INFINI_DEVICE_CPU    ? cpuAnchor(target)
                                                          : Anchor{};
    if (anchor.name.empty() && anchor.why_none.empty()) {
        anchor.why_none = std::string("infinirt-bench has no native anchor for ") + device_type + " devices";
    }
    return anchor;
}

} // namespace

int openSession(const Options &options, Results *r, Session *s) {
    int rc = openDevice(options, &s->type, &s->id);
    if (rc < 0) {
        rc = describeRun(options, s->type, s->id, r);
    }
    if (rc >= 0) {
        return rc;
    }
    infiniStatus_t st;
    if ((st = infinirtStreamCreate(&s->stream)) != INFINI_STATUS_SUCCESS) {
        return failed("infinirtStreamCreate", st);
    }
    if ((st = infinirtEventCreate(&s->event)) != INFINI_STATUS_SUCCESS) {
        return failed("infinirtEventCreate", st);
    }
    s->anchor = anchorFor(Target{s->type, s->id, s->stream}, r->device_type);
    r->anchor = s->anchor.name;
    r->anchor_calls = s->anchor.name.empty() ? s->anchor.why_none : s->anchor.describe;
    return allocateBuffers(r->max_size, &s->buffers);
}

} // namespace infinirt_bench_tool
