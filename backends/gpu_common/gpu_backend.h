/*
 * gpu_backend.h - private helpers of the shared CUDA/HIP implementation: the installed vendor
 * table, error reporting, context binding and the entries the plugin table is built from.
 * Vendor folders may use the error helpers; nothing here is visible outside the plugin.
 */
#ifndef INFINIRT_GPU_BACKEND_H
#define INFINIRT_GPU_BACKEND_H

#include "gpu_vendor.h"

#include <atomic>
#include <cstdint>

namespace infinirt::gpu {

/* The vendor table installed by negotiate(); valid for the life of the process. */
extern const VendorApi *g_vendor;
inline const VendorApi &api() { return *g_vendor; }

/* ---- errors (gpu_errors.cpp) ----------------------------------------------------------- */

/* Remembers the loader's services (static storage) for the helpers below. */
void install_host(const infinirtPluginHost_t *host);

/* Sets the thread's error detail to "<call> failed: <NAME> (<code>) while <what>" (the "while"
 * part only if `what_fmt` is not NULL) and returns the status the vendor's table gives `code`.
 * Never throws; the detail is truncated to 512 bytes. */
infiniStatus_t native_failure(const char *call, NativeStatus code, const char *what_fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Sets the thread's error detail to the formatted text and returns `status`. */
infiniStatus_t failure(infiniStatus_t status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Logs through the loader (no-op before negotiate). */
void log(infinirtLogLevel_t level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "2.0 TiB", "512 B": writes into `buf` and returns it. */
const char *format_bytes(char *buf, size_t buf_size, uint64_t bytes);

/* Runs `body` and turns any escaping C++ exception into INTERNAL_ERROR: nothing may cross the
 * plugin boundary. Costs nothing on the path that does not throw. */
template <class Body>
infiniStatus_t guarded(Body &&body) noexcept {
    try {
        return body();
    } catch (...) {
        return failure(INFINI_STATUS_INTERNAL_ERROR, "unexpected C++ exception inside the %s plugin", api().name);
    }
}

/* ---- context binding ------------------------------------------------------------------- */

/* Binds `device`'s context for the lifetime of the object (see VendorApi::bind), or does
 * nothing when `needed` is false. Check ok() before making native calls. */
class Binding {
public:
    explicit Binding(int device, bool needed = true) {
        if (needed) {
            status_ = api().bind(device, &scope_);
            bound_ = status_ == INFINI_STATUS_SUCCESS;
        }
    }
    ~Binding() {
        if (bound_) {
            api().unbind(scope_);
        }
    }
    Binding(const Binding &) = delete;
    Binding &operator=(const Binding &) = delete;
    bool ok() const { return status_ == INFINI_STATUS_SUCCESS; }
    infiniStatus_t status() const { return status_; }

private:
    ContextScope scope_;
    infiniStatus_t status_ = INFINI_STATUS_SUCCESS;
    bool bound_ = false;
};

/* A NULL stream names the device's default stream, which the vendor resolves through the bound
 * context; an explicit handle carries its own context. */
inline bool needs_binding(const void *stream) { return stream == nullptr || api().handle_calls_need_binding; }
inline void *native_stream(void *stream) { return stream ? stream : api().default_stream; }

/* ---- captures in progress (gpu_graph.cpp) ---- */

/* How many of this plugin's streams are capturing; lets event_record skip asking the driver
 * whether its stream captures while nothing does. */
extern std::atomic<int> g_capturing_streams;
/* Bookkeeping of begin/end capture and of destroyed streams (which end any capture). */
void capture_started(void *stream);
void capture_ended(void *stream);

/* The plugin's event object: the native event plus what the native API does not keep for us. */
struct Event {
    void *native;
    uint32_t flags; /* infinirtEventFlags_t as created */
    std::atomic<bool> recorded{false};
};

/* ---- the generic plugin entries (gpu_device/stream/event/memory/graph.cpp) ------------- */

infiniStatus_t device_synchronize(int device);
infiniStatus_t get_mem_info(int device, size_t *free_bytes, size_t *total_bytes);
infiniStatus_t get_resource_snapshot(int device, infinirtDeviceResourceSnapshot_t *snapshot);

infiniStatus_t stream_create(int device, void **stream);
infiniStatus_t stream_destroy(int device, void *stream);
infiniStatus_t stream_synchronize(int device, void *stream);
infiniStatus_t stream_query(int device, void *stream);
infiniStatus_t stream_wait_event(int device, void *stream, void *event);

infiniStatus_t event_create(int device, uint32_t flags, void **event);
infiniStatus_t event_destroy(int device, void *event);
infiniStatus_t event_record(int device, void *event, void *stream);
infiniStatus_t event_query(int device, void *event, infinirtEventStatus_t *status);
infiniStatus_t event_synchronize(int device, void *event);
infiniStatus_t event_elapsed_time(int device, float *ms, void *start, void *end);

infiniStatus_t malloc_device(int device, void **ptr, size_t size);
infiniStatus_t free_device(int device, void *ptr);
infiniStatus_t malloc_host(int device, void **ptr, size_t size);
infiniStatus_t free_host(int device, void *ptr);
infiniStatus_t memcpy_sync(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind);
infiniStatus_t memcpy_async(int device, void *dst, const void *src, size_t size, infinirtMemcpyKind_t kind,
                            void *stream);
infiniStatus_t memset_sync(int device, void *ptr, int value, size_t count);
infiniStatus_t memset_async(int device, void *ptr, int value, size_t count, void *stream);
infiniStatus_t malloc_async(int device, void **ptr, size_t size, void *stream);
infiniStatus_t free_async(int device, void *ptr, void *stream);

infiniStatus_t stream_begin_capture(int device, void *stream, infinirtStreamCaptureMode_t mode);
infiniStatus_t stream_end_capture(int device, void *stream, void **graph);
infiniStatus_t graph_destroy(int device, void *graph);
infiniStatus_t graph_instantiate(int device, void **exec, void *graph, char *log, size_t log_size);
infiniStatus_t graph_exec_destroy(int device, void *exec);
infiniStatus_t graph_launch(int device, void *exec, void *stream);

infiniStatus_t stream_get_native(int device, void *stream, void **native);
infiniStatus_t event_get_native(int device, void *event, void **native);

} // namespace infinirt::gpu

#endif
