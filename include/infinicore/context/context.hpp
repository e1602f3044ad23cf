// infinicore::context: the per-thread view of devices that engines use.
//
// The process has one context. Each device gets one Runtime (its context stream and its
// allocators), created on the first call that needs that device, so a process that only uses
// nvidia:3 never creates anything on nvidia:0. The current device is the C ABI's per-thread
// current device (infinirtGetDevice): a new thread starts on the process default device
// (INFINICORE_DEFAULT_DEVICE=type:index if set, else the first GPU or accelerator, else cpu:0), and
// infinirtSetDevice and context::setDevice are two views of one setting.
//
// Allocators: cpu devices use aligned host memory; every other device uses a stream-ordered
// caching allocator for device memory (blocks are reused on the context stream without waiting)
// and a caching pinned host allocator.
//
// Thread safety: every function may be called from any thread at any time. Failures throw
// infinicore::Error (status + the C ABI's message); allocation failures throw OutOfMemoryError.
// A nullptr stream argument means the calling thread's context stream (getStream()).
#ifndef INFINICORE_CONTEXT_CONTEXT_HPP
#define INFINICORE_CONTEXT_CONTEXT_HPP

#include "../../infinirt.h"
#include "../device.hpp"
#include "../error.hpp"
#include "../memory.hpp"
#include "../memory_stats.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace infinicore {
namespace context {

// Throws (DEVICE_TYPE_NOT_SUPPORTED / DEVICE_NOT_FOUND) and leaves the current device unchanged
// when `device` does not exist. Does not create the device's runtime.
__export void setDevice(Device device);
__export Device getDevice();
__export size_t getDeviceCount(Device::Type type);

// The current device's context stream: allocations are stream-ordered on it.
__export infinirtStream_t getStream();
__export void syncStream();
__export void syncDevice();
// Returns every cached, unused block of every runtime created so far (device and pinned) to the
// device, after waiting for the events that guard them.
__export void trimMemory();

// On the current device. The Memory's size is `size`; the block behind it may be larger.
__export std::shared_ptr<Memory> allocateMemory(size_t size);
// Pageable host memory; never creates a runtime.
__export std::shared_ptr<Memory> allocateHostMemory(size_t size);
// Page-locked host memory for asynchronous copies with the current device (plain host memory,
// isPinned() false, when the current device is a cpu).
__export std::shared_ptr<Memory> allocatePinnedHostMemory(size_t size);
// Records that `memory` (from allocateMemory or allocatePinnedHostMemory on the current device)
// is used by work on `stream`: its block is not reused before that work has run. Copies made
// through this namespace record pinned host memory themselves.
__export void recordStream(const std::shared_ptr<Memory> &memory, infinirtStream_t stream);

// Copies on the context stream; `async = false` (and the functions without the flag) wait for it,
// also when they throw: once a synchronous call returns or throws, no work queued on the stream
// before it still runs (the buffers of earlier asynchronous copies may then be freed).
__export void memcpyH2D(void *dst, const void *src, size_t size, bool async = true);
__export void memcpyD2H(void *dst, const void *src, size_t size);
__export void memcpyD2D(void *dst, const void *src, size_t size, bool async = true);
__export void memcpyH2H(void *dst, const void *src, size_t size);
__export void setDeviceMemory(void *ptr, int value, size_t size);
__export void setDeviceMemoryAsync(void *ptr, int value, size_t size, infinirtStream_t stream = nullptr);

// Raw events on the current device; prefer DeviceEvent, which owns its event.
__export infinirtEvent_t createEvent();
__export infinirtEvent_t createEventWithFlags(uint32_t flags);
__export void recordEvent(infinirtEvent_t event, infinirtStream_t stream = nullptr);
// True when complete.
__export bool queryEvent(infinirtEvent_t event);
__export void synchronizeEvent(infinirtEvent_t event);
__export void destroyEvent(infinirtEvent_t event);
// Milliseconds between two completed timing events.
__export float elapsedTime(infinirtEvent_t start, infinirtEvent_t end);
__export void streamWaitEvent(infinirtStream_t stream, infinirtEvent_t event);

// Of `device`'s allocators (device memory, or host memory for a cpu device); zeros when its
// runtime was never created. Throw for a device that does not exist. Never create a runtime.
__export MemoryStats memoryStats(Device device);
__export void resetPeakMemoryStats(Device device);
__export MemorySnapshot memorySnapshot(Device device);

// Introspection: whether `device`'s runtime has been created.
__export bool hasRuntime(Device device);

} // namespace context
} // namespace infinicore

#endif // INFINICORE_CONTEXT_CONTEXT_HPP
