// C ABI: graphs (native ones through the plugin, or the loader's generic record/replay).
#include "capture.h"
#include "modules.h"

#include <cstdio>
#include <memory>

using namespace infinirt;

namespace {

void writeLog(char *log, size_t size, const char *text) {
    if (log != nullptr && size > 0) {
        std::snprintf(log, size, "%s", text);
    }
}

// The undo of a graph or exec that got no handle: the loader's record for a generic one is
// deleted, the plugin's object destroyed otherwise.
void destroyNewGraphLike(const Backend *b, HandleKind kind, uint32_t flags, int device, void *native) {
    if (flags & kGenericGraph) {
        delete static_cast<CaptureGraph *>(native);
    } else {
        destroyPluginObject(kind == HandleKind::Graph ? b->table.graph_destroy : b->table.graph_exec_destroy, device,
                            native);
    }
}

// Destroys a graph or exec handle: the loader's record for generic ones, the plugin's otherwise.
infiniStatus_t destroyGraphLike(const char *function, void *h, HandleKind kind, const char *what) {
    HandleSlot *slot = handles().lookup(h, kind);
    if (slot == nullptr || !handles().claim(h, slot)) {
        return invalidHandle(function, what, h);
    }
    if (slot->flags & kGenericGraph) {
        delete static_cast<CaptureGraph *>(slot->native);
    } else {
        Backend *b = g_registry.by_type[slot->type];
        infiniStatus_t st = kind == HandleKind::Graph
                                ? INFINIRT_DEVICE_CALL(b, graph_destroy, slot->device, slot->native)
                                : INFINIRT_DEVICE_CALL(b, graph_exec_destroy, slot->device, slot->native);
        if (st != INFINI_STATUS_SUCCESS) {
            handles().restore(h, slot);
            return st;
        }
    }
    delete slot->module_refs.exchange(nullptr); // may unload modules whose release was deferred
    handles().release(h);
    return INFINI_STATUS_SUCCESS;
}

} // namespace

extern "C" {

__export infiniStatus_t infinirtStreamEndCapture(infinirtStream_t stream, infinirtGraph_t *graph_ptr) {
    INFINIRT_ENTER();
    if (graph_ptr == nullptr) {
        return nullArgument("infinirtStreamEndCapture", "graph_ptr");
    }
    if (stream == nullptr) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtStreamEndCapture: the default (NULL) stream never captures");
    }
    StreamRef s{};
    infiniStatus_t st = resolveStream("infinirtStreamEndCapture", stream, s);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    void *native = nullptr;
    uint32_t flags = 0;
    std::unique_ptr<ModuleRefs> refs;
    if (s.backend->table.stream_begin_capture != nullptr) {
        {
            NativeCaptureExclusive ending; // no submission to the stream is inside the plugin meanwhile
            st = INFINIRT_DEVICE_CALL(s.backend, stream_end_capture, s.device, s.native, &native);
            refs.reset(ending.take(s.slot)); // the capture is over
        }
        if (refs != nullptr) {
            captureEndedOn(s.type, s.device);
        }
        if (st != INFINI_STATUS_SUCCESS) {
            return st;
        }
    } else {
        std::unique_ptr<CaptureGraph> g(captureTake(s.slot)); // waits for appends in flight
        if (g == nullptr) {
            return fail(INFINI_STATUS_BAD_PARAM, "infinirtStreamEndCapture: the stream is not capturing");
        }
        captureEndedOn(s.type, s.device);
        if (!g->invalid_reason.empty()) {
            return fail(INFINI_STATUS_BAD_PARAM, "infinirtStreamEndCapture: capture invalidated: %s",
                        g->invalid_reason.c_str());
        }
        native = g.release();
        flags = kGenericGraph;
    }
    void *h = nullptr;
    st = handleOrUndo(h, "infinirtStreamEndCapture", HandleKind::Graph, s.type, s.device, native, flags, nullptr,
                      [&] { destroyNewGraphLike(s.backend, HandleKind::Graph, flags, s.device, native); });
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    handles().lookup(h, HandleKind::Graph)->module_refs.store(refs.release(), std::memory_order_release);
    *graph_ptr = h;
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtGraphDestroy(infinirtGraph_t graph) {
    INFINIRT_ENTER();
    return destroyGraphLike("infinirtGraphDestroy", graph, HandleKind::Graph, "graph");
}

__export infiniStatus_t infinirtGraphInstantiate(infinirtGraphExec_t *graph_exec_ptr, infinirtGraph_t graph,
                                                 infinirtGraphNode_t *node_ptr, char *log_buffer,
                                                 size_t buffer_size) {
    INFINIRT_ENTER();
    if (graph_exec_ptr == nullptr) {
        writeLog(log_buffer, buffer_size, "graph_exec_ptr is NULL");
        return nullArgument("infinirtGraphInstantiate", "graph_exec_ptr");
    }
    HandleSlot *g = handles().lookup(graph, HandleKind::Graph);
    if (g == nullptr) {
        writeLog(log_buffer, buffer_size, "invalid graph handle");
        return invalidHandle("infinirtGraphInstantiate", "graph", graph);
    }
    Backend *b = g_registry.by_type[g->type];
    void *native = nullptr;
    std::unique_ptr<ModuleRefs> refs;
    if (g->flags & kGenericGraph) {
        INFINIRT_GUARD_BEGIN
        const CaptureGraph *src = static_cast<const CaptureGraph *>(g->native);
        CaptureGraph *exec = new CaptureGraph();
        exec->type = src->type;
        exec->device = src->device;
        exec->ops = src->ops;
        native = exec;
        INFINIRT_GUARD_END("infinirtGraphInstantiate")
    } else {
        // The exec keeps the modules its kernels come from, like the graph does.
        const ModuleRefs *graph_refs = g->module_refs.load(std::memory_order_acquire);
        if (graph_refs != nullptr && (!graph_refs->modules.empty() || !graph_refs->events.empty())) {
            INFINIRT_GUARD_BEGIN
            refs.reset(new ModuleRefs());
            refs->modules = graph_refs->modules;
            refs->events = graph_refs->events; // a launch checks them
            INFINIRT_GUARD_END("infinirtGraphInstantiate")
        }
        infiniStatus_t st =
            INFINIRT_DEVICE_CALL(b, graph_instantiate, g->device, &native, g->native, log_buffer, buffer_size);
        if (st != INFINI_STATUS_SUCCESS) {
            return st;
        }
    }
    void *h = nullptr;
    const uint32_t flags = g->flags & kGenericGraph;
    const infiniStatus_t st =
        handleOrUndo(h, "infinirtGraphInstantiate", HandleKind::Exec, g->type, g->device, native, flags, nullptr,
                     [&] { destroyNewGraphLike(b, HandleKind::Exec, flags, g->device, native); });
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    handles().lookup(h, HandleKind::Exec)->module_refs.store(refs.release(), std::memory_order_release);
    writeLog(log_buffer, buffer_size, "");
    if (node_ptr != nullptr) {
        *node_ptr = nullptr;
    }
    *graph_exec_ptr = h;
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtGraphExecDestroy(infinirtGraphExec_t graph_exec) {
    INFINIRT_ENTER();
    return destroyGraphLike("infinirtGraphExecDestroy", graph_exec, HandleKind::Exec, "graph exec");
}

__export infiniStatus_t infinirtGraphLaunch(infinirtGraphExec_t graph_exec, infinirtStream_t stream) {
    INFINIRT_ENTER();
    HandleSlot *e = handles().lookup(graph_exec, HandleKind::Exec);
    if (e == nullptr) {
        return invalidHandle("infinirtGraphLaunch", "graph exec", graph_exec);
    }
    StreamRef s{};
    infiniStatus_t st = resolveStream("infinirtGraphLaunch", stream, s);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    if (s.type != e->type || s.device != e->device) {
        return fail(INFINI_STATUS_BAD_PARAM, "infinirtGraphLaunch: graph belongs to %s:%d, stream to %s:%d",
                    typeName(e->type), e->device, typeName(s.type), s.device);
    }
    if (!(e->flags & kGenericGraph)) {
        // Every event the capture recorded or waited for must still be alive: checked before
        // anything is queued, as the loader's replay checks its ops (captureReplay).
        const ModuleRefs *refs = e->module_refs.load(std::memory_order_acquire);
        if (refs != nullptr && !refs->eventsAlive()) {
            return fail(INFINI_STATUS_INVALID_HANDLE,
                        "infinirtGraphLaunch: an event the graph records or waits for was destroyed; nothing was "
                        "launched");
        }
        return submitUncaptured(s, "infinirtGraphLaunch", "the launch of a graph", [&] {
            return INFINIRT_DEVICE_CALL(s.backend, graph_launch, s.device, e->native, s.native);
        });
    }
    const CaptureGraph *exec = static_cast<const CaptureGraph *>(e->native);
    if (captureOf(s) != nullptr) {
        return refuseDuringCapture("infinirtGraphLaunch", "the launch of a graph");
    }
    return captureReplay(exec->ops, s);
}

__export infiniStatus_t infinirtGraphLuanch(infinirtGraphExec_t graph_exec, infinirtStream_t stream) {
    return infinirtGraphLaunch(graph_exec, stream);
}

} // extern "C"
