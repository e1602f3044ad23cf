// Owners of the resources conformance tests set up, so a failed ASSERT does not leak them into
// later tests. Each is made by the infinirt call it is named after, whose status the test asserts:
//
//     ScopedStream s;
//     ASSERT_OK(s.Create());
//     DeviceBuffer d;
//     ASSERT_OK(d.Malloc(kSize));
//
// and converts to its handle or pointer, so it is passed to infinirt calls as is. The destructor
// releases only what was made, with the matching infinirt call, ignoring its status.
#ifndef INFINIRT_TESTS_RESOURCES_H
#define INFINIRT_TESTS_RESOURCES_H

#include "device_test.h"

#include <gtest/gtest.h>
#include <infinirt.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

namespace infinirt_test {

// A handle or pointer released by `Release` when the scope ends, if the call that made it succeeded.
template <infiniStatus_t (*Release)(void *)>
class Owned {
public:
    Owned() = default;
    Owned(const Owned &) = delete;
    Owned &operator=(const Owned &) = delete;
    ~Owned() {
        if (owned_) {
            Release(p_);
        }
    }

    void *get() const { return p_; }
    operator void *() const { return p_; }

    // The test releases it itself (to check that call's status); the destructor will not.
    void Disown() { owned_ = false; }

protected:
    infiniStatus_t Own(infiniStatus_t status) {
        owned_ = status == INFINI_STATUS_SUCCESS;
        return status;
    }
    void *p_ = nullptr;

private:
    bool owned_ = false;
};

// infinirtStreamCreate / infinirtStreamDestroy.
class ScopedStream : public Owned<infinirtStreamDestroy> {
public:
    infiniStatus_t Create() { return Own(infinirtStreamCreate(&p_)); }
    infiniStatus_t CreateWithPriority(int priority) { return Own(infinirtStreamCreateWithPriority(&p_, priority)); }
};

// infinirtEventCreate or infinirtEventCreateWithFlags / infinirtEventDestroy.
class ScopedEvent : public Owned<infinirtEventDestroy> {
public:
    infiniStatus_t Create() { return Own(infinirtEventCreate(&p_)); }
    infiniStatus_t CreateWithFlags(uint32_t flags) { return Own(infinirtEventCreateWithFlags(&p_, flags)); }
};

// infinirtMalloc / infinirtFree.
class DeviceBuffer : public Owned<infinirtFree> {
public:
    infiniStatus_t Malloc(size_t size) { return Own(infinirtMalloc(&p_, size)); }
};

// infinirtMallocHost / infinirtFreeHost.
class PinnedBuffer : public Owned<infinirtFreeHost> {
public:
    infiniStatus_t MallocHost(size_t size) { return Own(infinirtMallocHost(&p_, size)); }
};

// infinirtStreamEndCapture / infinirtGraphDestroy.
class ScopedGraph : public Owned<infinirtGraphDestroy> {
public:
    infiniStatus_t EndCapture(infinirtStream_t stream) { return Own(infinirtStreamEndCapture(stream, &p_)); }
};

// infinirtGraphInstantiate / infinirtGraphExecDestroy.
class ScopedGraphExec : public Owned<infinirtGraphExecDestroy> {
public:
    infiniStatus_t Instantiate(infinirtGraph_t graph, infinirtGraphNode_t *node = nullptr, char *log = nullptr,
                               size_t log_size = 0) {
        return Own(infinirtGraphInstantiate(&p_, graph, node, log, log_size));
    }
};

// A graph holding one MemsetAsync of `bytes` at `ptr`, captured on `stream`, and its exec: the
// first failing call's status, or SUCCESS.
inline infiniStatus_t CaptureMemsetGraph(infinirtStream_t stream, void *ptr, size_t bytes, ScopedGraph &graph,
                                         ScopedGraphExec &exec) {
    infiniStatus_t st = infinirtStreamBeginCapture(stream, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL);
    if (st == INFINI_STATUS_SUCCESS) {
        st = infinirtMemsetAsync(ptr, 1, bytes, stream);
        const infiniStatus_t ended = graph.EndCapture(stream);
        st = st != INFINI_STATUS_SUCCESS ? st : ended;
    }
    return st != INFINI_STATUS_SUCCESS ? st : exec.Instantiate(graph);
}

// Busy work (see EnqueueBusyWork) enqueued on `stream`. When the scope ends, `stream` and then
// each of `also_synchronize` is synchronized, and the scratch buffers are freed.
class ScopedBusyWork {
public:
    explicit ScopedBusyWork(infinirtStream_t stream, std::initializer_list<infinirtStream_t> also_synchronize = {})
        : stream_(stream), also_synchronize_(also_synchronize) {}
    ScopedBusyWork(const ScopedBusyWork &) = delete;
    ScopedBusyWork &operator=(const ScopedBusyWork &) = delete;
    ~ScopedBusyWork() {
        infinirtStreamSynchronize(stream_);
        for (infinirtStream_t s : also_synchronize_) {
            infinirtStreamSynchronize(s);
        }
        FreeBusyWork(work_);
    }

    ::testing::AssertionResult Enqueue(size_t size = kBusyBytes, int rounds = kBusyRounds) {
        return EnqueueBusyWork(stream_, size, rounds, &work_);
    }

    // Frees the scratch buffers now (the caller has synchronized the stream), e.g. before enqueueing again.
    void Free() {
        FreeBusyWork(work_);
        work_ = BusyWork{};
    }

private:
    infinirtStream_t stream_;
    std::vector<infinirtStream_t> also_synchronize_;
    BusyWork work_;
};

// Work whose result the host can see only once `stream` has run it: `host` is a zeroed pinned
// buffer, and on `stream`, behind busy work, `device` is set to `value` and copied into `host`.
// Enqueue asserts each step; call it inside ASSERT_NO_FATAL_FAILURE. When the scope ends the stream
// is synchronized before anything is freed.
class PendingCopy {
public:
    explicit PendingCopy(infinirtStream_t stream) : stream_(stream), busy_(stream) {}

    void Enqueue(size_t size, int value) {
        ASSERT_OK(device.Malloc(size));
        ASSERT_OK(host.MallocHost(size));
        std::memset(host, 0, size);
        ASSERT_TRUE(busy_.Enqueue());
        ASSERT_OK(infinirtMemsetAsync(device, value, size, stream_));
        ASSERT_OK(infinirtMemcpyAsync(host, device, size, INFINIRT_MEMCPY_D2H, stream_));
    }

    DeviceBuffer device;
    PinnedBuffer host;

private:
    infinirtStream_t stream_;
    ScopedBusyWork busy_; // declared last: destroyed (synchronized, freed) first
};

} // namespace infinirt_test

#endif // INFINIRT_TESTS_RESOURCES_H
