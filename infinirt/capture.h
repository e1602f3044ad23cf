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

// A stream's capture, held for as long as this object lives: a thread submitting to a capturing
// stream appends through one, and StreamEndCapture and StreamDestroy (captureTake) wait for it,
// so a capture ended by another thread is never freed under an append. Construct it only when
// captureOf() saw a capture (the hot path stays one load); graph() is nullptr when the capture
// ended in between, and the call then runs as an ordinary one on the stream.
class ActiveCapture {
public:
    explicit ActiveCapture(HandleSlot *stream);
    ~ActiveCapture();
    ActiveCapture(const ActiveCapture &) = delete;
    ActiveCapture &operator=(const ActiveCapture &) = delete;
    CaptureGraph *graph() const { return graph_; }

private:
    CaptureGraph *graph_ = nullptr;
};

// Takes the generic capture off `stream` (nullptr if it has none), once no thread is appending to
// it; afterwards nothing else can reach it. The same for the modules noted by a native capture.
CaptureGraph *captureTake(HandleSlot *stream);
ModuleRefs *nativeCaptureRefsTake(HandleSlot *stream);
// The capture lock taken shared, around a submission's plugin call where the stream captures
// natively or the thread has no mark to make (submitTo, below): holdCapture takes it and answers
// the stream's module_refs (the native capture's record of the modules it launched, modules.h,
// while it still captures); releaseCapture lets it go.
ModuleRefs *holdCapture(HandleSlot *stream);
void releaseCapture();

// Native captures (cuda, hip) against submissions from other threads. The CUDA driver is not safe
// against a submission to a stream racing the begin or the end of a capture on that stream (on an
// H200, cuMemsetD8Async crashed with SIGSEGV inside libcuda while another thread ended the capture;
// on an H100, submissions racing the begin crashed or left the capturing thread waiting for ever).
// So no submission to a stream is inside the plugin while a native capture of it begins or ends:
// - while a stream captures natively (its module_refs is set, from just before its begin to its
//   end) every submission to it holds the capture lock shared around the plugin call, and the begin
//   and the end of capture hold it exclusively;
// - a submission that found the stream not capturing marks its thread as submitting to that stream
//   (t_hot.submitting: two stores to thread-local memory, no atomic read-modify-write) for the
//   length of the plugin call, and the begin of a capture, once module_refs is set, waits until no
//   thread is marked for the stream (awaitUnmarked). The mark is stored before module_refs is read
//   and the begin reads the marks after storing module_refs, with a process-wide barrier between
//   (membarrier(2), or where the kernel refuses it a TLB shootdown forced with mprotect), so either
//   the submission sees the capture and takes the lock, or the begin sees the mark and waits.
// Streams that never capture pay one load of a field of their slot's line and the two stores.
// Registers the calling thread's t_hot.submitting with the begin of capture (its first
// submission), and unregisters it when the thread ends. False when host memory ran out: the
// submission then takes the capture lock instead of a mark (submitTo).
bool registerSubmitter() noexcept;
// Waits until no thread is marked as submitting to `stream` (run with module_refs already set).
void awaitUnmarked(const HandleSlot *stream);

// Runs `call` (a plugin call submitting to the stream whose slot is `stream`, nullptr for a default
// stream, made with INFINIRT_DEVICE_CALL_BEGUN: the submission begins the plugin call) under the
// protocol above: the thread is marked as submitting to the stream for the length of the call, or,
// where the stream captures natively (or the thread has no mark to make), the call runs holding the
// capture lock shared, after `held(ModuleRefs *)` while the stream still captures (it notes what the capture
// uses, or refuses the call). Both run inline, so nothing of the caller's escapes. No submission
// nests in another (plugin calls do not call back into the loader's submissions), so the mark is
// one slot.
template <typename Call, typename Held>
INFINIRT_INLINE infiniStatus_t submitTo(HandleSlot *stream, Call &&call, Held &&held) {
    ThreadHot *const hot = threadHot();
    hot->flags &= kNoPluginDetailPending; // beginPluginCall
    if (stream == nullptr) {
        return call(); // the default stream never captures
    }
    if (INFINIRT_LIKELY((hot->flags & kSubmitterRegistered) != 0) || registerSubmitter()) {
        hot->submitting.store(stream, std::memory_order_relaxed);
        std::atomic_signal_fence(std::memory_order_seq_cst); // the begin's process-wide barrier orders it
        if (INFINIRT_LIKELY(stream->module_refs.load(std::memory_order_relaxed) == nullptr)) {
            const infiniStatus_t st = call();
            hot->submitting.store(nullptr, std::memory_order_release);
            return st;
        }
        hot->submitting.store(nullptr, std::memory_order_release);
    }
    // No mark to make (the lock excludes a begin instead), or the stream captures natively.
    infiniStatus_t st = INFINI_STATUS_SUCCESS;
    if (ModuleRefs *refs = holdCapture(stream)) {
        st = held(refs);
    }
    if (st == INFINI_STATUS_SUCCESS) {
        beginPluginCall();
        st = call();
    }
    releaseCapture();
    return st;
}
struct NothingToNote {
    infiniStatus_t operator()(ModuleRefs *) const { return INFINI_STATUS_SUCCESS; }
};

// submitTo's common case in two halves, for a hot entry's fast path whose general path makes the
// same submission through submitTo. markSubmitting begins the plugin call and marks the thread as
// submitting to `stream` when the thread is registered and the stream does not capture, natively or
// through the loader; otherwise it marks nothing and answers false, and the caller takes its
// general path (which records the call in the loader's capture or holds the capture lock).
// submittedStatus ends the submission with the plugin's status. Across the plugin call only `hot`
// is kept: a failure finds the stream (its backend and device, for the message) in the mark.
INFINIRT_INLINE bool markSubmitting(ThreadHot *hot, HandleSlot *stream) {
    // beginPluginCall, and whether the thread is registered: what is left of the flags is zero
    // when it is not (one instruction where the compiler lets the AND's flags be read).
    bool unregistered;
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
    __asm__("andb %2, %0" : "+m"(hot->flags), "=@ccz"(unregistered) : "i"(kNoPluginDetailPending));
#else
    unregistered = (hot->flags &= kNoPluginDetailPending) == 0;
#endif
    if (INFINIRT_UNLIKELY(unregistered)) {
        return false;
    }
    hot->submitting.store(stream, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst); // the begin's process-wide barrier orders it
    const uintptr_t capturing = reinterpret_cast<uintptr_t>(stream->capture.load(std::memory_order_acquire)) |
                                reinterpret_cast<uintptr_t>(stream->module_refs.load(std::memory_order_relaxed));
    if (INFINIRT_UNLIKELY(capturing != 0)) {
        hot->submitting.store(nullptr, std::memory_order_release);
        return false;
    }
    return true;
}
// A marked submission's plugin entry `entry` failed: unmarks and reports it (checked's message).
INFINIRT_COLD infiniStatus_t markedSubmissionFailed(ThreadHot *hot, const char *entry, infiniStatus_t st);
INFINIRT_INLINE infiniStatus_t submittedStatus(ThreadHot *hot, const char *entry, infiniStatus_t st) {
    if (INFINIRT_UNLIKELY(st != INFINI_STATUS_SUCCESS)) {
        return markedSubmissionFailed(hot, entry, st);
    }
    hot->submitting.store(nullptr, std::memory_order_release);
    return successAsIs(st);
}
// `expr` (a plugin call submitting to the stream of StreamRef `r`), under the protocol above.
#define INFINIRT_SUBMIT(r, expr) ::infinirt::submitTo((r).slot, [&] { return (expr); }, ::infinirt::NothingToNote())
// INFINIRT_DEVICE_CALL_BEGUN(b, entry, ...) submitted to the stream of StreamRef `r`.
#define INFINIRT_SUBMIT_CALL(r, b, entry, ...) INFINIRT_SUBMIT((r), INFINIRT_DEVICE_CALL_BEGUN((b), entry, __VA_ARGS__))

// Notes an event that a native capture records or waits for (ModuleRefs::addEvent).
infiniStatus_t noteCapturedEvent(ModuleRefs *refs, const HandleSlot *event, const char *function);

// The refusal of a stream-ordered call that no capture records (MallocAsync, FreeAsync,
// GraphLaunch) on a capturing stream: BAD_PARAM; nothing runs and the capture stays valid.
infiniStatus_t refuseDuringCapture(const char *function, const char *what);
// `call` (such a stream-ordered plugin call) unless the stream captures, natively or through the
// loader: then refuseDuringCapture.
template <typename Call>
INFINIRT_INLINE infiniStatus_t submitUncaptured(const StreamRef &r, const char *function, const char *what,
                                                Call &&call) {
    if (INFINIRT_UNLIKELY(captureOf(r) != nullptr)) {
        return refuseDuringCapture(function, what);
    }
    return submitTo(r.slot, call, [&](ModuleRefs *) { return refuseDuringCapture(function, what); });
}

// Holds the capture lock exclusively while a native capture begins or ends (the plugin's begin or
// end of capture runs inside it); take() clears the stream's record of modules and returns it.
class NativeCaptureExclusive {
public:
    NativeCaptureExclusive();
    ~NativeCaptureExclusive();
    NativeCaptureExclusive(const NativeCaptureExclusive &) = delete;
    NativeCaptureExclusive &operator=(const NativeCaptureExclusive &) = delete;
    ModuleRefs *take(HandleSlot *stream);
};

// Captures and device-wide synchronisation. A device-wide synchronisation while a stream of that
// device captures is refused (BAD_PARAM, as CUDA refuses it in global capture mode; on cuda it
// crashed inside cuCtxSynchronize). Begins of capture on a device and synchronisations of that
// device are serialised by the device's lock, so no capture can begin while the device
// synchronises: the check cannot be raced.
//
// Runs `begin` (the plugin's or the loader's begin of capture on a stream of (type, id)) under the
// device's lock and counts the capture when it succeeds.
template <typename Begin> infiniStatus_t captureBeginOn(int type, int id, Begin begin);
// A capture of a stream of (type, id) has ended (its stream's capture or native record was taken).
void captureEndedOn(int type, int id);
// Runs `wait`, a call that waits for all queued work of the whole device (type, id) (its
// device_synchronize, or a free that waits as cudaFree does), under the device's lock; refuses it
// (BAD_PARAM, nothing run) when a stream of the device captures. `function` names the ABI call in
// the message and `refusal` says what is refused and what to do instead.
template <typename Wait>
infiniStatus_t deviceWaitUnlessCapturing(const char *function, const char *refusal, int type, int id, Wait wait);
// The plugin's device_synchronize of (type, id), or the refusal when a stream of the device
// captures; `function` names the ABI call in the message.
infiniStatus_t deviceSynchronizeUnlessCapturing(const char *function, Backend *b, int type, int id);

namespace detail {
struct DeviceCaptures {
    std::mutex mutex;
    int active = 0;
};
// The record of (type, id), made on first use; nullptr when host memory ran out.
DeviceCaptures *deviceCaptures(int type, int id);
// The OUT_OF_MEMORY failure of `function` when deviceCaptures gave nullptr.
infiniStatus_t deviceCapturesExhausted(const char *function, int type, int id);
// The refusal of a device-wide wait while `active` streams of (type, id) capture.
infiniStatus_t refuseDeviceWait(const char *function, const char *refusal, int active, int type, int id);
} // namespace detail

template <typename Wait>
infiniStatus_t deviceWaitUnlessCapturing(const char *function, const char *refusal, int type, int id, Wait wait) {
    detail::DeviceCaptures *const record = detail::deviceCaptures(type, id);
    if (record == nullptr) {
        return detail::deviceCapturesExhausted(function, type, id);
    }
    detail::DeviceCaptures &d = *record;
    std::lock_guard<std::mutex> lock(d.mutex);
    if (d.active > 0) {
        return detail::refuseDeviceWait(function, refusal, d.active, type, id);
    }
    return wait();
}

template <typename Begin> infiniStatus_t captureBeginOn(int type, int id, Begin begin) {
    detail::DeviceCaptures *const record = detail::deviceCaptures(type, id);
    if (record == nullptr) {
        return detail::deviceCapturesExhausted("infinirtStreamBeginCapture", type, id);
    }
    detail::DeviceCaptures &d = *record;
    std::lock_guard<std::mutex> lock(d.mutex);
    const infiniStatus_t st = begin();
    if (st == INFINI_STATUS_SUCCESS) {
        ++d.active;
    }
    return st;
}

// Appends `op` to a capture held by an ActiveCapture.
infiniStatus_t captureAppend(CaptureGraph *graph, const CapturedOp &op);
// Marks a held capture invalid (EndCapture will fail) and returns the status for the offending call.
infiniStatus_t captureInvalidate(CaptureGraph *graph, const char *function);
// Replays `ops` on the stream `target` (on the graph's device). Every event the ops name is
// checked first: a graph that meets a destroyed event fails before any of its work is queued.
infiniStatus_t captureReplay(const std::vector<CapturedOp> &ops, const StreamRef &target);

} // namespace infinirt
