#include "capture.h"

namespace infinirt {

infiniStatus_t captureAppend(CaptureGraph *graph, const CapturedOp &op) {
    INFINIRT_GUARD_BEGIN
    std::lock_guard<std::mutex> lock(graph->mutex);
    if (graph->invalid_reason.empty()) {
        graph->ops.push_back(op);
    }
    return INFINI_STATUS_SUCCESS;
    INFINIRT_GUARD_END("stream capture")
}

infiniStatus_t captureInvalidate(CaptureGraph *graph, const char *function) {
    INFINIRT_GUARD_BEGIN
    std::lock_guard<std::mutex> lock(graph->mutex);
    if (graph->invalid_reason.empty()) {
        graph->invalid_reason = std::string(function) + " is not permitted on a capturing stream";
    }
    INFINIRT_GUARD_END(function)
    return fail(INFINI_STATUS_BAD_PARAM, "%s is not permitted on a capturing stream; the capture is now invalid",
                function);
}

infiniStatus_t captureReplay(const std::vector<CapturedOp> &ops, const StreamRef &t) {
    Backend *b = t.backend;
    for (const CapturedOp &op : ops) {
        infiniStatus_t st = INFINI_STATUS_SUCCESS;
        switch (op.kind) {
        case CapturedOp::Kind::Memcpy:
            st = INFINIRT_CALL(b, memcpy_async, t.device, t.device, op.dst, op.src, op.size, op.memcpy_kind, t.native);
            break;
        case CapturedOp::Kind::Memset:
            st = INFINIRT_CALL(b, memset_async, t.device, t.device, op.dst, op.value, op.size, t.native);
            break;
        case CapturedOp::Kind::Launch: {
            const CapturedLaunch &l = *op.launch;
            st = INFINIRT_CALL(b, launch_kernel, t.device, t.device, l.kernel, &l.config, l.args.data(),
                               static_cast<uint32_t>(l.args.size()), t.native);
            break;
        }
        case CapturedOp::Kind::EventRecord:
        case CapturedOp::Kind::WaitEvent: {
            HandleSlot *ev = handles().lookup(op.event, HandleKind::Event);
            if (ev == nullptr) {
                return invalidHandle("infinirtGraphLaunch", "event (recorded in the graph)", op.event);
            }
            if (op.kind == CapturedOp::Kind::EventRecord) {
                st = INFINIRT_CALL(b, event_record, t.device, t.device, ev->native, t.native);
            } else {
                st = streamWaitEventOn(t, ev);
            }
            break;
        }
        }
        if (st != INFINI_STATUS_SUCCESS) {
            return st;
        }
    }
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt
