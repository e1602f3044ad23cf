// The infinicore::context functions: thin, checked calls on the current device's runtime.
#include "infinicore/context/context.hpp"

#include "check.hpp"
#include "context_impl.hpp"

namespace infinicore::context {

using detail::check;
using detail::ContextImpl;
using detail::Runtime;

namespace {

ContextImpl &ctx() { return ContextImpl::instance(); }

infinirtStream_t orContextStream(infinirtStream_t stream) {
    return stream != nullptr ? stream : ctx().current().stream();
}

// The end of a synchronous call of this namespace, whose enqueue on `stream` (`call`) returned
// `queued`: waits for the stream whether the enqueue failed or not, so that once the call returns
// or throws no work queued on the stream before it still runs (the caller may then free the
// buffers of its earlier asynchronous copies, as after a synchronous call that succeeded). The
// enqueue's failure is the one thrown; the wait's own status is then secondary.
void waitForStream(infiniStatus_t queued, const char *call, infinirtStream_t stream) {
    if (queued != INFINI_STATUS_SUCCESS) {
        Error failure(queued, call, infinirtGetLastErrorMessage());
        (void)infinirtStreamSynchronize(stream);
        throw failure;
    }
    check(infinirtStreamSynchronize(stream), "infinirtStreamSynchronize");
}

// Copies are queued on the context stream, so that they are ordered with the rest of the
// thread's work on the device; a synchronous one then waits for that stream.
void copy(void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind, bool async) {
    Runtime &rt = ctx().current();
    const infiniStatus_t queued = infinirtMemcpyAsync(dst, src, size, kind, rt.stream());
    if (!async) {
        waitForStream(queued, "infinirtMemcpyAsync", rt.stream());
        return;
    }
    check(queued, "infinirtMemcpyAsync");
    if (kind == INFINIRT_MEMCPY_H2D) {
        rt.recordHostUse(src, rt.stream());
    } else if (kind == INFINIRT_MEMCPY_D2H) {
        rt.recordHostUse(dst, rt.stream());
    }
}

} // namespace

void setDevice(Device device) {
    const std::string call = "setDevice(" + device.toString() + ")";
    ctx().validate(device, call);
    check(infinirtSetDevice(device.cType(), static_cast<int>(device.getIndex())), call.c_str());
}

Device getDevice() { return ctx().currentDevice(); }

size_t getDeviceCount(Device::Type type) { return ctx().deviceCount(type); }

infinirtStream_t getStream() { return ctx().current().stream(); }

void syncStream() { check(infinirtStreamSynchronize(getStream()), "infinirtStreamSynchronize"); }

void syncDevice() { check(infinirtDeviceSynchronize(), "infinirtDeviceSynchronize"); }

void trimMemory() {
    ctx().forEachRuntime([](Runtime &rt) { rt.trim(); });
}

std::shared_ptr<Memory> allocateMemory(size_t size) { return ContextImpl::current().allocateMemory(size); }

std::shared_ptr<Memory> allocateHostMemory(size_t size) {
    detail::HostAllocator &host = ctx().hostAllocator();
    void *ptr = host.allocate(size);
    try {
        return std::make_shared<Memory>(static_cast<std::byte *>(ptr), size, Device(Device::Type::CPU, 0),
                                        [&host, size](std::byte *p) { host.deallocate(p, size); });
    } catch (...) {
        host.deallocate(ptr, size);
        throw;
    }
}

std::shared_ptr<Memory> allocatePinnedHostMemory(size_t size) {
    return ctx().current().allocatePinnedHostMemory(size);
}

void recordStream(const std::shared_ptr<Memory> &memory, infinirtStream_t stream) {
    if (!memory) {
        throw Error(INFINI_STATUS_NULL_POINTER, "recordStream", "no memory given");
    }
    Runtime &rt = ctx().current();
    if (!rt.recordStream(memory->data(), orContextStream(stream))) {
        throw Error(INFINI_STATUS_BAD_PARAM, "recordStream",
                    "the memory was not allocated by the caching allocators of " + rt.device().toString());
    }
}

void memcpyH2D(void *dst, const void *src, size_t size, bool async) {
    copy(dst, src, size, INFINIRT_MEMCPY_H2D, async);
}

void memcpyD2H(void *dst, const void *src, size_t size) { copy(dst, src, size, INFINIRT_MEMCPY_D2H, false); }

void memcpyD2D(void *dst, const void *src, size_t size, bool async) {
    copy(dst, src, size, INFINIRT_MEMCPY_D2D, async);
}

void memcpyH2H(void *dst, const void *src, size_t size) { copy(dst, src, size, INFINIRT_MEMCPY_H2H, false); }

void setDeviceMemory(void *ptr, int value, size_t size) {
    infinirtStream_t stream = getStream();
    waitForStream(infinirtMemsetAsync(ptr, value, size, stream), "infinirtMemsetAsync", stream);
}

void setDeviceMemoryAsync(void *ptr, int value, size_t size, infinirtStream_t stream) {
    check(infinirtMemsetAsync(ptr, value, size, orContextStream(stream)), "infinirtMemsetAsync");
}

infinirtEvent_t createEvent() {
    infinirtEvent_t event = nullptr;
    check(infinirtEventCreate(&event), "infinirtEventCreate");
    return event;
}

infinirtEvent_t createEventWithFlags(uint32_t flags) {
    infinirtEvent_t event = nullptr;
    check(infinirtEventCreateWithFlags(&event, flags), "infinirtEventCreateWithFlags");
    return event;
}

void recordEvent(infinirtEvent_t event, infinirtStream_t stream) {
    check(infinirtEventRecord(event, orContextStream(stream)), "infinirtEventRecord");
}

bool queryEvent(infinirtEvent_t event) {
    infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
    check(infinirtEventQuery(event, &status), "infinirtEventQuery");
    return status == INFINIRT_EVENT_COMPLETE;
}

void synchronizeEvent(infinirtEvent_t event) { check(infinirtEventSynchronize(event), "infinirtEventSynchronize"); }

void destroyEvent(infinirtEvent_t event) { check(infinirtEventDestroy(event), "infinirtEventDestroy"); }

float elapsedTime(infinirtEvent_t start, infinirtEvent_t end) {
    float ms = 0.0f;
    check(infinirtEventElapsedTime(&ms, start, end), "infinirtEventElapsedTime");
    return ms;
}

void streamWaitEvent(infinirtStream_t stream, infinirtEvent_t event) {
    check(infinirtStreamWaitEvent(orContextStream(stream), event), "infinirtStreamWaitEvent");
}

MemoryStats memoryStats(Device device) {
    Runtime *rt = ctx().find(device);
    return rt != nullptr ? rt->memoryStats() : MemoryStats{};
}

void resetPeakMemoryStats(Device device) {
    if (Runtime *rt = ctx().find(device)) {
        rt->resetPeakMemoryStats();
    }
}

MemorySnapshot memorySnapshot(Device device) {
    Runtime *rt = ctx().find(device);
    return rt != nullptr ? rt->memorySnapshot() : MemorySnapshot{};
}

bool hasRuntime(Device device) { return ctx().find(device) != nullptr; }

} // namespace infinicore::context
