// C ABI: infinirtDeviceReset, its count and its callbacks.
//
// A reset releases what infinirt made on the device through the same calls a program would use
// (their checks, waits and bookkeeping included), in an order where nothing released is still
// referenced: graph execs before graphs, graphs before the modules their launches hold, mappings
// before their physical memory. The backend's context is never reset: memory other libraries
// hold in it stays.
#include "allocations.h"
#include "never_destroyed.h"
#include "capture.h"
#include "handles.h"
#include "host_pins.h"
#include "peer.h"

#include <map>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

using namespace infinirt;

namespace {

struct ResetRecord {
    std::mutex mutex;
    std::map<std::pair<int, int>, uint64_t> counts;
    std::vector<std::pair<infinirtDeviceResetCallback_t, void *>> callbacks;
};
ResetRecord &resetRecord() {
    static NeverDestroyed<ResetRecord> record_storage; // never destroyed: usable during exit
    ResetRecord *const record = &record_storage.get();
    return *record;
}

// The first failure of a release is the reset's answer; the releases after it still run.
void keepFirst(infiniStatus_t &first, infiniStatus_t st) {
    if (first == INFINI_STATUS_SUCCESS) {
        first = st;
    }
}

template <typename Destroy>
void destroyAll(infiniStatus_t &first, HandleKind k, int type, int id, Destroy destroy) {
    for (void *h : handles().live(k, type, id)) {
        keepFirst(first, destroy(h));
    }
}

infiniStatus_t releaseAllocation(const Allocation &a) {
    switch (a.origin) {
    case Origin::Malloc:
        return a.kind == INFINIRT_MEMORY_PINNED_HOST ? infinirtFreeHost(a.base) : infinirtFree(a.base);
    case Origin::Registered:
        return infinirtHostUnregister(a.base);
    case Origin::Mapped:
        return infinirtMemUnmap(a.base, a.size);
    case Origin::Opened:
        return infinirtIpcCloseMemHandle(a.base);
    case Origin::Unmapped: // no device's (allocationsOn never lists it)
        break;
    }
    return INFINI_STATUS_SUCCESS;
}

} // namespace

extern "C" {

__export infiniStatus_t infinirtDeviceReset(infiniDevice_t device, int device_id) {
    INFINIRT_ENTER();
    const char *fn = "infinirtDeviceReset";
    const int type = enumInt(device);
    Backend *b = nullptr;
    infiniStatus_t st = checkDevice(type, device_id, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    st = deviceSynchronizeUnlessCapturing(fn, b, type, device_id);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    INFINIRT_GUARD_BEGIN // the lists of what to release are made as it runs
    infiniStatus_t first = INFINI_STATUS_SUCCESS;
    destroyAll(first, HandleKind::Exec, type, device_id, [](void *h) { return infinirtGraphExecDestroy(h); });
    destroyAll(first, HandleKind::Graph, type, device_id, [](void *h) { return infinirtGraphDestroy(h); });
    destroyAll(first, HandleKind::Stream, type, device_id, [](void *h) { return infinirtStreamDestroy(h); });
    destroyAll(first, HandleKind::Event, type, device_id, [](void *h) { return infinirtEventDestroy(h); });
    destroyAll(first, HandleKind::Module, type, device_id, [](void *h) { return infinirtModuleUnload(h); });
    for (const Allocation &a : allocationsOn(type, device_id)) {
        keepFirst(first, releaseAllocation(a));
    }
    keepFirst(first, unpinOnDevice(type, device_id));     // host-device memory registered for copies with it
    keepFirst(first, releaseStaging(b, type, device_id)); // pinned host memory of the device too
    destroyAll(first, HandleKind::PhysicalMem, type, device_id, [](void *h) { return infinirtMemRelease(h); });
    ResetRecord &r = resetRecord();
    std::vector<std::pair<infinirtDeviceResetCallback_t, void *>> callbacks;
    {
        std::lock_guard<std::mutex> lock(r.mutex);
        ++r.counts[{type, device_id}];
        callbacks = r.callbacks;
    }
    for (const auto &c : callbacks) {
        c.first(device, device_id, c.second);
    }
    return first;
    INFINIRT_GUARD_END(fn)
}

__export infiniStatus_t infinirtDeviceGetResetCount(infiniDevice_t device, int device_id, uint64_t *count) {
    INFINIRT_ENTER();
    if (count == nullptr) {
        return nullArgument("infinirtDeviceGetResetCount", "count");
    }
    const int type = enumInt(device);
    Backend *b = nullptr;
    infiniStatus_t st = checkDevice(type, device_id, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    ResetRecord &r = resetRecord();
    std::lock_guard<std::mutex> lock(r.mutex);
    const auto it = r.counts.find({type, device_id});
    *count = it == r.counts.end() ? 0 : it->second;
    return INFINI_STATUS_SUCCESS;
}

__export infiniStatus_t infinirtDeviceAddResetCallback(infinirtDeviceResetCallback_t callback, void *user_data) {
    INFINIRT_ENTER();
    if (callback == nullptr) {
        return nullArgument("infinirtDeviceAddResetCallback", "callback");
    }
    ResetRecord &r = resetRecord();
    std::lock_guard<std::mutex> lock(r.mutex);
    try {
        r.callbacks.emplace_back(callback, user_data);
    } catch (const std::bad_alloc &) {
        return fail(INFINI_STATUS_OUT_OF_MEMORY, "infinirtDeviceAddResetCallback: host memory exhausted");
    }
    return INFINI_STATUS_SUCCESS;
}

} // extern "C"
