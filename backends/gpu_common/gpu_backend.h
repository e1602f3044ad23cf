/*
 * gpu_backend.h - private helpers of the shared CUDA/HIP implementation: the installed vendor
 * table, error reporting, context binding and the entries the plugin table is built from.
 * Vendor folders may use the error and property helpers; nothing here is visible outside the plugin.
 *
 * The loader's services (error detail, log), the exception guard, the entry query and the text
 * helpers are those of backends/common (namespace infinirt::common), included here.
 */
#ifndef INFINIRT_GPU_BACKEND_H
#define INFINIRT_GPU_BACKEND_H

#include "gpu_vendor.h"

#include "common/plugin_table.hpp"
#include "common/host_services.hpp"
#include "common/text.hpp"

#include <atomic>
#include <cstdint>

namespace infinirt::gpu {

/* The vendor table installed by pluginTable(); valid for the life of the process. (A vendor's
 * loaded native library is its nativeApi(), a different table.) */
extern const VendorApi *g_vendor;
inline const VendorApi &vendorTable() { return *g_vendor; }

/* ---- errors (gpu_errors.cpp) ----------------------------------------------------------- */

/* Sets the thread's error detail (common::fail) to "<call> failed: <NAME> (<code>) while <what>"
 * (the "while" part only if `what_fmt` is not NULL) and returns the status the vendor's table
 * gives `code`. Never throws; the detail is truncated to common::kMessageCapacity bytes. Other
 * failures use common::fail, logging common::logMessage. */
infiniStatus_t nativeFailure(const char *call, NativeStatus code, const char *what_fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- devices (gpu_device.cpp) ---------------------------------------------------------- */

/* What a vendor's start-up found: `count` devices, or 0 and `reason` (one line) saying why. */
struct DeviceCensus {
    int count = 0;
    char reason[512] = "";
};

/* The vendor's init and get_device_count entries over its census. initDevices runs `discover`,
 * which fills `census` (count last), and logs the reason when there is no device; no device is
 * not a failure. */
infiniStatus_t initDevices(DeviceCensus &census, void (*discover)());
infiniStatus_t answerDeviceCount(const DeviceCensus &census, int *count, char *reason, size_t reason_size);


/* The native device-attribute codes properties are read from, one per field of
 * infinirtDeviceProperties_t of the same name. */
struct DeviceAttributeCodes {
    int compute_capability_major;
    int compute_capability_minor;
    int multiprocessor_count;
    int clock_rate_khz;
    int memory_clock_rate_khz;
    int memory_bus_width_bits;
    int max_threads_per_block;
    int max_block_dim[3];
    int max_grid_dim[3];
    int cache_bytes;
    int shared_memory_per_block;
};

/* What a vendor reads its devices' properties with (filled by INFINIRT_GPU_PROPERTY_SOURCE,
 * gpu_vendor_table.h). `device` is a plugin device index, as for the vendor table's
 * device_get_attribute, which reads the attributes. */
struct DevicePropertySource {
    const char *vendor;   /* "NVIDIA" */
    const char *platform; /* "CUDA driver API" */
    Entry<NativeStatus (*)(char *name, int capacity, int device)> device_name;
    Entry<NativeStatus (*)(size_t *bytes, int device)> total_memory;
    /* Both optional for the device: a non-zero answer leaves the field unknown. */
    NativeStatus (*uuid)(unsigned char bytes[16], int device);
    NativeStatus (*pci_bus_id)(char *bus, int capacity, int device); /* as the driver spells it */
    DeviceAttributeCodes attributes;
};

/* Fills *props for plugin device `device` (the fields the vendor does not know stay as they
 * are): name, memory, compute capability and multiprocessor count (a failure to read one of
 * them fails the call through nativeFailure), UUID and PCI bus id where the driver gives them,
 * the launch limits, clocks and cache (0 when the driver does not answer), vendor, platform and
 * kind. Leaves *props unchanged on failure. The vendor adds driver_version and architecture. */
infiniStatus_t readDeviceProperties(const DevicePropertySource &source, int device, infinirtDeviceProperties_t *props);

/* Sets props->pci_bus_id to the driver's "0000:3B:00.0" in lower case, as sysfs and lspci
 * spell it. */
void setPciBusId(infinirtDeviceProperties_t *props, const char *bus);

/* ---- context binding ------------------------------------------------------------------- */

/* Binds `device`'s context for the lifetime of the object (see VendorApi::bind), or does
 * nothing when `needed` is false. Check ok() before making native calls. A bind that failed, or
 * found the context current already, leaves its scope's action 0: nothing to undo. */
class Binding {
public:
    explicit Binding(int device, bool needed = true)
        : status_(needed ? vendorTable().bind(device, &scope_) : INFINI_STATUS_SUCCESS) {}
    ~Binding() {
        if (scope_.action != 0) {
            vendorTable().unbind(scope_);
        }
    }
    Binding(const Binding &) = delete;
    Binding &operator=(const Binding &) = delete;
    bool ok() const { return status_ == INFINI_STATUS_SUCCESS; }
    infiniStatus_t status() const { return status_; }

private:
    ContextScope scope_; /* before status_: the constructor's bind writes it */
    infiniStatus_t status_;
};

/* A NULL stream names the device's default stream, which the vendor resolves through the bound
 * context; an explicit handle carries its own context. */
inline bool needsBinding(const void *stream) { return stream == nullptr || vendorTable().handle_calls_need_binding; }
/* The hot entries (query, record, copy, fill, launch) call the native function directly when the
 * stream needs no binding: no Binding object, no frame, no test after the call but the status's.
 * The queries' and the record's bound form (the NULL stream, a vendor whose handle calls bind) is
 * an out-of-line function that runs its body under boundCall; the copy and the fill bind in line. */
template <typename Body>
__attribute__((always_inline)) inline infiniStatus_t boundCall(int device, Body &&body) {
    Binding bound(device);
    return bound.ok() ? body() : bound.status();
}
inline void *nativeStream(void *stream) { return stream ? stream : vendorTable().default_stream; }

/* ---- captures in progress (gpu_graph.cpp) ---- */

/* How many of this plugin's streams are capturing; lets eventRecord and streamWaitEvent skip
 * asking the driver whether their stream captures while nothing does. */
extern std::atomic<int> g_capturing_streams;
/* The entry for a call submitted to `stream`: `in_capture` while the stream captures (where the
 * vendor has that entry), else `plain`. Returns 0, or the native status of the capture query
 * (vendorTable().stream_is_capturing names it). */
template <typename Fn>
NativeStatus entryFor(void *stream, const Entry<Fn> &plain, const Entry<Fn> &in_capture, const Entry<Fn> **out) {
    *out = &plain;
    if (stream && g_capturing_streams.load(std::memory_order_acquire) != 0 && in_capture.call) {
        bool capturing = false;
        if (NativeStatus rc = vendorTable().stream_is_capturing.call(stream, &capturing)) {
            return rc;
        }
        if (capturing) {
            *out = &in_capture;
        }
    }
    return 0;
}
/* Bookkeeping of begin/end capture and of destroyed streams (which end any capture). */
void captureStarted(void *stream);
void captureEnded(void *stream);

/* The plugin's event object: the native event plus what the native API does not keep for us. */
struct Event {
    void *native;
    uint32_t flags; /* infinirtEventFlags_t as created */
    std::atomic<bool> recorded{false};
    /* Its latest record was made on a capturing stream (a node of that graph): a wait from the
     * capture joins it. A wait from a capture on an event recorded outside is a wait node. */
    std::atomic<bool> recorded_in_capture{false};
};

/* ---- virtual memory (gpu_virtual_memory.cpp, gpu_ipc.cpp) ---- */

/* The plugin's object behind a physical allocation (mem_create's *mem): the vendor's handle and,
 * for a shareable allocation, the POSIX file descriptor it was exported as at creation (-1
 * otherwise, close-on-exec). The descriptor stays open until mem_release, so that another
 * process can copy it (common/shared_descriptor.hpp) for as long as the allocation lives. */
struct PhysicalMemory {
    void *native;
    int fd;
};

/* ---- the plugin entries (gpu_device/stream/event/memory/graph/module/launch/peer/errors.cpp):
 * every entry of the list, by its impl name. pluginTable() (gpu_plugin.cpp) installs those the
 * vendor does not fill itself (VendorApi's plugin entries), inside the exception guard; the
 * module entries only when the vendor has module_load, the peer entries only when it has
 * can_access_peer. */
INFINIRT_COMMON_DECLARE_ENTRIES();

} // namespace infinirt::gpu

// The hot entries' guards live beside their definitions (common/entry_guard.hpp).
INFINIRT_COMMON_HOT_ENTRIES(infinirt::gpu);

#endif
