/* gpu_graph.cpp - native stream capture, instantiation and launch. */
#include "gpu_backend.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <vector>

namespace infinirt::gpu {

std::atomic<int> g_capturing_streams{0};

namespace {
/* Never destroyed (no static destructor may touch plugin state at exit). */
std::mutex &capture_mutex() {
    static auto *m = new std::mutex;
    return *m;
}
std::vector<void *> &capturing() {
    static auto *v = new std::vector<void *>;
    return *v;
}
} // namespace

void captureStarted(void *stream) {
    std::lock_guard<std::mutex> lock(capture_mutex());
    capturing().push_back(stream);
    g_capturing_streams.store(static_cast<int>(capturing().size()), std::memory_order_release);
}

void captureEnded(void *stream) {
    std::lock_guard<std::mutex> lock(capture_mutex());
    auto &v = capturing();
    v.erase(std::remove(v.begin(), v.end(), stream), v.end());
    g_capturing_streams.store(static_cast<int>(v.size()), std::memory_order_release);
}

infiniStatus_t streamBeginCapture(int device, void *stream, infinirtStreamCaptureMode_t mode) {
    if (!stream) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "the default stream of %s:%d cannot be captured", vendorTable().name,
                            device);
    }
    Binding bound(device, vendorTable().handle_calls_need_binding);
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().begin_capture.call(stream, static_cast<int>(mode))) {
        return nativeFailure(vendorTable().begin_capture.name, rc, "starting a capture (mode %d) on %s:%d",
                             static_cast<int>(mode), vendorTable().name, device);
    }
    captureStarted(stream);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamEndCapture(int device, void *stream, void **graph) {
    if (!stream) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "the default stream of %s:%d is never capturing", vendorTable().name,
                            device);
    }
    Binding bound(device, vendorTable().handle_calls_need_binding);
    if (!bound.ok()) {
        return bound.status();
    }
    void *captured = nullptr;
    NativeStatus rc = vendorTable().end_capture.call(stream, &captured);
    captureEnded(stream); /* ended, or invalidated and ended, either way */
    if (rc) {
        return nativeFailure(vendorTable().end_capture.name, rc, "ending a capture on %s:%d", vendorTable().name, device);
    }
    *graph = captured;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t graphDestroy(int device, void *graph) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().graph_destroy.call(graph)) {
        return nativeFailure(vendorTable().graph_destroy.name, rc, "destroying a graph of %s:%d", vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t graphInstantiate(int device, void **exec, void *graph, char *log, size_t log_size) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    void *instance = nullptr;
    if (NativeStatus rc = vendorTable().graph_instantiate.call(&instance, graph)) {
        infiniStatus_t status =
            nativeFailure(vendorTable().graph_instantiate.name, rc, "instantiating a graph on %s:%d", vendorTable().name, device);
        if (log && log_size > 0) {
            std::snprintf(log, log_size, "%s failed: %s (%d)", vendorTable().graph_instantiate.name, vendorTable().error_name(rc), rc);
        }
        return status;
    }
    *exec = instance;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t graphExecDestroy(int device, void *exec) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().graph_exec_destroy.call(exec)) {
        return nativeFailure(vendorTable().graph_exec_destroy.name, rc, "destroying a graph exec of %s:%d", vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t graphLaunch(int device, void *exec, void *stream) {
    Binding bound(device, needsBinding(stream));
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().graph_launch.call(exec, nativeStream(stream))) {
        return nativeFailure(vendorTable().graph_launch.name, rc, "launching a graph on %s:%d", vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::gpu
