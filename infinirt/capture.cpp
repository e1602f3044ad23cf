#include "capture.h"
#include "never_destroyed.h"
#include "modules.h"
#include "per_device.h"
#include "process_barrier.h"

#include <mutex>
#include <pthread.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace infinirt {

namespace {
// A reader-writer lock that lets a waiting writer in first: submissions to a capturing stream
// hold it shared back to back from several threads, and with readers first (std::shared_mutex on
// glibc) the shared holds can overlap without a gap, so the end of the capture could wait for ever.
class WriterFirstLock {
public:
    WriterFirstLock() {
        pthread_rwlockattr_t attr;
        pthread_rwlockattr_init(&attr);
        pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
        pthread_rwlock_init(&lock_, &attr);
        pthread_rwlockattr_destroy(&attr);
    }
    void lock() { pthread_rwlock_wrlock(&lock_); }
    void unlock() { pthread_rwlock_unlock(&lock_); }
    void lock_shared() { pthread_rwlock_rdlock(&lock_); }
    void unlock_shared() { pthread_rwlock_unlock(&lock_); }

private:
    pthread_rwlock_t lock_;
};

// Held shared by every append to (or invalidation of) any stream's capture and by submissions to
// a natively capturing stream, exclusively while a capture is taken off its stream. Never
// destroyed: calls may come during exit.
WriterFirstLock &captureLock() {
    static NeverDestroyed<WriterFirstLock> m_storage;
    WriterFirstLock *const m = &m_storage.get();
    return *m;
}
} // namespace

// ---- submitting threads' marks (capture.h) ------------------------------------------------------

namespace {
// Every live thread's mark, registered at its first submission. Never destroyed (calls may come
// during exit).
struct Marks {
    std::mutex mutex;
    std::vector<std::atomic<const HandleSlot *> *> live;
};
Marks &marks() {
    static NeverDestroyed<Marks> m_storage;
    Marks *const m = &m_storage.get();
    return *m;
}
// Unregisters the thread's mark when the thread ends.
struct MarkOwner {
    bool owned = false;
    ~MarkOwner() {
        if (owned) {
            Marks &m = marks();
            std::lock_guard<std::mutex> lock(m.mutex);
            for (auto &p : m.live) {
                if (p == &t_hot.submitting) {
                    p = m.live.back();
                    m.live.pop_back();
                    break;
                }
            }
            t_hot.flags &= static_cast<uint8_t>(~kSubmitterRegistered);
        }
    }
};
thread_local MarkOwner t_mark_owner;
} // namespace

bool registerSubmitter() noexcept {
    Marks &m = marks();
    std::lock_guard<std::mutex> lock(m.mutex);
    try {
        m.live.push_back(&t_hot.submitting);
    } catch (const std::bad_alloc &) {
        return false;
    }
    t_mark_owner.owned = true;
    t_hot.flags |= kSubmitterRegistered;
    return true;
}

void awaitUnmarked(const HandleSlot *stream) {
    common::processWideBarrier();
    Marks &m = marks();
    std::lock_guard<std::mutex> lock(m.mutex);
    for (std::atomic<const HandleSlot *> *mark : m.live) {
        while (mark->load(std::memory_order_acquire) == stream) {
            std::this_thread::yield();
        }
    }
}

infiniStatus_t markedSubmissionFailed(ThreadHot *hot, const char *entry, infiniStatus_t st) {
    const HandleSlot *const stream = hot->submitting.load(std::memory_order_relaxed);
    hot->submitting.store(nullptr, std::memory_order_release);
    return pluginFailed(stream->backend->name.c_str(), stream->device, entry, st);
}

infiniStatus_t noteCapturedEvent(ModuleRefs *refs, const HandleSlot *event, const char *function) {
    INFINIRT_GUARD_BEGIN
    refs->addEvent(event);
    return INFINI_STATUS_SUCCESS;
    INFINIRT_GUARD_END(function)
}

infiniStatus_t refuseDuringCapture(const char *function, const char *what) {
    return fail(INFINI_STATUS_BAD_PARAM,
                "%s: the stream is capturing, and a capture cannot record %s; end the capture first (the capture "
                "stays valid)",
                function, what);
}

ActiveCapture::ActiveCapture(HandleSlot *stream) {
    captureLock().lock_shared();
    graph_ = stream->capture.load(std::memory_order_acquire);
}

ActiveCapture::~ActiveCapture() { captureLock().unlock_shared(); }

ModuleRefs *holdCapture(HandleSlot *stream) {
    captureLock().lock_shared();
    return stream->module_refs.load(std::memory_order_acquire);
}

void releaseCapture() { captureLock().unlock_shared(); }

CaptureGraph *captureTake(HandleSlot *stream) {
    std::lock_guard<WriterFirstLock> lock(captureLock());
    return stream->capture.exchange(nullptr, std::memory_order_acq_rel);
}

ModuleRefs *nativeCaptureRefsTake(HandleSlot *stream) {
    std::lock_guard<WriterFirstLock> lock(captureLock());
    return stream->module_refs.exchange(nullptr, std::memory_order_acq_rel);
}

NativeCaptureExclusive::NativeCaptureExclusive() { captureLock().lock(); }
NativeCaptureExclusive::~NativeCaptureExclusive() { captureLock().unlock(); }
ModuleRefs *NativeCaptureExclusive::take(HandleSlot *stream) {
    return stream->module_refs.exchange(nullptr, std::memory_order_acq_rel);
}

namespace detail {
namespace {
PerDevice<DeviceCaptures> g_device_captures; // made on a device's first capture or device-wide wait
} // namespace

DeviceCaptures *deviceCaptures(int type, int id) { return g_device_captures.get(type, id); }

infiniStatus_t deviceCapturesExhausted(const char *function, int type, int id) {
    return fail(INFINI_STATUS_OUT_OF_MEMORY, "%s: host memory exhausted (the capture record of %s:%d)", function,
                typeName(type), id);
}
} // namespace detail

void captureEndedOn(int type, int id) {
    detail::DeviceCaptures &d = *detail::deviceCaptures(type, id); // made when the capture began
    std::lock_guard<std::mutex> lock(d.mutex);
    --d.active;
}

namespace detail {
infiniStatus_t refuseDeviceWait(const char *function, const char *refusal, int active, int type, int id) {
    return fail(INFINI_STATUS_BAD_PARAM, "%s: %d stream(s) of %s:%d are capturing; %s", function, active,
                typeName(type), id, refusal);
}
} // namespace detail

infiniStatus_t deviceSynchronizeUnlessCapturing(const char *function, Backend *b, int type, int id) {
    return deviceWaitUnlessCapturing(function,
                                     "a device-wide synchronisation is refused during capture (as CUDA does in "
                                     "global capture mode): end the capture first, or synchronise the streams you "
                                     "need",
                                     type, id, [&] { return INFINIRT_DEVICE_CALL(b, device_synchronize, id); });
}

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
        if ((op.kind == CapturedOp::Kind::EventRecord || op.kind == CapturedOp::Kind::WaitEvent) &&
            handles().lookup(op.event, HandleKind::Event) == nullptr) {
            return fail(INFINI_STATUS_INVALID_HANDLE,
                        "infinirtGraphLaunch: the graph records or waits on event %p, which was destroyed; nothing "
                        "was launched",
                        op.event);
        }
    }
    for (const CapturedOp &op : ops) {
        infiniStatus_t st = INFINI_STATUS_SUCCESS;
        switch (op.kind) {
        case CapturedOp::Kind::Memcpy:
            st = INFINIRT_DEVICE_CALL(b, memcpy_async, t.device, op.dst, op.src, op.size, op.memcpy_kind, t.native);
            break;
        case CapturedOp::Kind::Memset:
            st = INFINIRT_DEVICE_CALL(b, memset_async, t.device, op.dst, op.value, op.size, t.native);
            break;
        case CapturedOp::Kind::Launch: {
            const CapturedLaunch &l = *op.launch;
            st = INFINIRT_DEVICE_CALL(b, launch_kernel, t.device, l.kernel, &l.config, l.args.data(),
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
                st = INFINIRT_DEVICE_CALL(b, event_record, t.device, ev->native, t.native);
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
