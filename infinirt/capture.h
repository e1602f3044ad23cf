// The loader's generic graph capture, for backends without native graphs (stream_begin_capture
// NULL in their table): while a stream captures, the asynchronous calls made on it are recorded
// instead of run; instantiating copies the record; launching replays it on a stream through the
// plugin's ordinary entries. Replay is in stream order, so it has the semantics of the original
// calls made at launch time.
#pragma once

#include "dispatch.h"
#include "modules.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace infinirt {

// A kernel launch as captured: copies of the config and of the argument bytes (replays see the
// values of capture time) and a reference that keeps the kernel's module loaded.
struct CapturedLaunch {
    ModuleRef module;
    void *kernel = nullptr; // the plugin's kernel
    infinirtLaunchConfig_t config{};
    std::vector<infinirtKernelArg_t> args; // VALUE/POINTER values point into `bytes`
    std::vector<unsigned char> bytes;
};

struct CapturedOp {
    enum class Kind { Memcpy, Memset, EventRecord, WaitEvent, Launch };
    Kind kind = Kind::Memcpy;
    CapturedOp() = default;
    explicit CapturedOp(Kind k) : kind(k) {}
    void *dst = nullptr;
    const void *src = nullptr;
    size_t size = 0;
    infinirtMemcpyKind_t memcpy_kind = INFINIRT_MEMCPY_H2H;
    int value = 0;
    void *event = nullptr; // an infinirt event handle, validated again at launch
    std::shared_ptr<const CapturedLaunch> launch; // Launch
};

struct CaptureGraph {
    int type = 0;
    int device = 0;
    std::mutex mutex; // relaxed/global capture lets several threads submit to one stream
    std::vector<CapturedOp> ops;
    std::string invalid_reason; // set when an unsupported call ended the capture's validity
};

// Appends `op` to the stream's capture. Caller has checked that the stream is capturing.
infiniStatus_t captureAppend(CaptureGraph *graph, const CapturedOp &op);
// Marks the capture invalid (EndCapture will fail) and returns the status for the offending call.
infiniStatus_t captureInvalidate(CaptureGraph *graph, const char *function);
// Replays `ops` on the stream `target` (on the graph's device).
infiniStatus_t captureReplay(const std::vector<CapturedOp> &ops, const StreamRef &target);

} // namespace infinirt
