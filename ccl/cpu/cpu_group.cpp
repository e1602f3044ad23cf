// Groups and submission: outside a group a call waits for its stream's earlier work and runs at
// once on the calling thread; inside one (per thread, nested) calls are queued, and the outermost
// GroupEnd waits for their streams, then runs each comm's calls in order, one thread per comm
// when the group spans several (that is how one thread drives several ranks).
#include "cpu_backend.h"

#include <map>
#include <string>
#include <thread>

namespace infiniccl::cpu {

namespace {

thread_local int t_depth = 0;
thread_local std::vector<Op> t_queue;

// A failure's status and message, carried from a worker thread to the caller.
struct Outcome {
    infiniStatus_t status = INFINI_STATUS_SUCCESS;
    std::string message;
};

infiniStatus_t syncStream(const Op &op) {
    if (infiniStatus_t st = infinirtStreamSynchronize(op.stream)) {
        return fail(st, "waiting for the stream's earlier work: %s", infinirtGetLastErrorMessage());
    }
    return INFINI_STATUS_SUCCESS;
}

} // namespace

infiniStatus_t submit(Op op) {
    if (t_depth > 0) {
        t_queue.push_back(std::move(op));
        return INFINI_STATUS_SUCCESS;
    }
    if (infiniStatus_t st = syncStream(op)) return st;
    if (op.kind == OpKind::Send || op.kind == OpKind::Recv) {
        std::vector<const Op *> one{&op};
        return runOps(one);
    }
    return runCollective(op);
}

infiniStatus_t groupStart() {
    ++t_depth;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t groupEnd() {
    if (t_depth == 0) return fail(INFINI_STATUS_BAD_PARAM, "GroupEnd without GroupStart");
    if (--t_depth > 0) return INFINI_STATUS_SUCCESS;
    std::vector<Op> queue;
    queue.swap(t_queue);
    for (const Op &op : queue) {
        if (infiniStatus_t st = syncStream(op)) return st;
    }
    std::map<Comm *, std::vector<const Op *>> per_comm;
    for (const Op &op : queue) per_comm[op.comm].push_back(&op);
    if (per_comm.size() <= 1) {
        return per_comm.empty() ? INFINI_STATUS_SUCCESS : runOps(per_comm.begin()->second);
    }
    std::vector<Outcome> outcomes(per_comm.size());
    std::vector<std::thread> workers;
    size_t i = 0;
    for (auto &entry : per_comm) {
        Outcome *out = &outcomes[i++];
        const std::vector<const Op *> *ops = &entry.second;
        workers.emplace_back([ops, out] {
            out->status = runOps(*ops);
            if (out->status != INFINI_STATUS_SUCCESS) out->message = common::t_last_failure;
        });
    }
    for (std::thread &w : workers) w.join();
    for (const Outcome &out : outcomes) {
        if (out.status != INFINI_STATUS_SUCCESS) return fail(out.status, "%s", out.message.c_str());
    }
    return INFINI_STATUS_SUCCESS;
}

} // namespace infiniccl::cpu
