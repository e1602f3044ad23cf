// A vulkan stream (vulkan_stream.cpp): a timeline semaphore on one of the device's queues. Work is
// submitted with vkQueueSubmit in batches; each submission waits for the semaphore to reach the
// value the previous one signals and signals the next value, so the stream's work runs in order
// and the semaphore's counter says how much of it has completed.
//
// Batching: an asynchronous command (a copy, a fill, a kernel launch) is recorded into the stream's
// open command buffer (one is begun when none is open), and the open batch is submitted by the
// first of: a call that needs the truth or an order (every query, record, wait, synchronize, any
// other submission), 1,024 commands, or the plugin's flusher thread, which submits every open
// batch about 50 us (INFINIRT_VULKAN_FLUSH_US) after it opened. So StreamQuery and EventQuery tell
// the truth, and no work waits for a later call to be submitted. A command followed by a
// synchronize costs what a native program's one submission costs (begin, record, end, submit,
// wait); a burst of commands shares submissions.
//
// Barriers in a batch: each batched command says what it reads and writes (Access). A command
// follows a full memory barrier only when it touches what the commands since the last barrier
// touched in a way whose order matters: it reads what they write, writes what they read, or writes
// what they write with other content. Commands on disjoint ranges (and repeats writing the same
// bytes, as two fills of one value) run without one, as in a native command buffer, and so does a
// command that touches no memory at all (a kernel whose code names none: vulkan_spirv.h).
#pragma once

#include "vulkan_device.h"
#include "vulkan_native_api.h"

#include "infinicore.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <utility>
#include <vector>

namespace infinirt::vulkan {

// Bytes [begin, end) of a buffer (VK_NULL_HANDLE: none).
struct Range {
    VkBuffer buffer = VK_NULL_HANDLE;
    size_t begin = 0, end = 0;
};

// What a batched command touches. Two writes of one `content` put the same bytes at the same place
// whatever their order: a fill's byte value (`from` VK_NULL_HANDLE, `shift` the value), or a
// copy's source buffer and its offset less the destination's.
struct Access {
    Range read, write;
    // Any memory at all (a kernel launch): ordered after every command before it, and every command
    // after it after it. An Access with neither ranges nor `everything` touches nothing: no barrier.
    bool everything = false;
    struct Content {
        VkBuffer from = VK_NULL_HANDLE;
        int64_t shift = 0;
    } content;
};

// Owned by the loader's handle between streamCreate and streamDestroy; default streams live until
// the process exits.
struct Stream {
    Device *dev = nullptr;
    Queue *queue = nullptr;
    VkSemaphore timeline = VK_NULL_HANDLE;
    // Serialises the stream's submissions (recording into its pool, the values it signals).
    std::mutex mutex;
    // The value the last submission signals (the stream is idle when the counter has reached it).
    // Written under `submit_mutex`, read without it.
    std::atomic<uint64_t> submitted{0};
    // Keeps the submissions in the order of their values. Whoever submits takes it under `mutex`;
    // the flusher thread keeps it past `mutex` while its vkQueueSubmit runs, so that the stream's
    // enqueuers record on meanwhile, and every flush takes it, so that a flush returns only once
    // a batch the flusher took is submitted and `submitted` counts it.
    std::mutex submit_mutex;
    VkCommandPool pool = VK_NULL_HANDLE; // used under `mutex`
    struct InFlight {
        VkCommandBuffer buffer;
        uint64_t value; // done once the counter reaches it
    };
    std::deque<InFlight> in_flight;      // under `mutex`
    std::vector<VkCommandBuffer> spare;  // under `mutex`
    // The open batch (VK_NULL_HANDLE: none) and its commands, under `mutex`.
    VkCommandBuffer open = VK_NULL_HANDLE;
    uint32_t open_count = 0;
    // The compute pipeline bound last in the command buffer being recorded (VK_NULL_HANDLE: none
    // yet), under `mutex`: set by bindPipeline, cleared when a buffer begins. A launch of the
    // pipeline already bound binds nothing.
    VkPipeline bound = VK_NULL_HANDLE;
    // Where kernels whose arguments go in a buffer get them (vulkan_launch.cpp): kArgumentBytes of
    // device memory, made on the stream's first such launch (under `mutex`), released with it.
    VkBuffer arguments = VK_NULL_HANDLE;
    VkDeviceMemory arguments_memory = VK_NULL_HANDLE;
    VkDeviceAddress arguments_address = 0;
    // What the open batch's commands since its last barrier read and wrote, under `mutex`.
    std::vector<Range> reads;
    std::vector<std::pair<Range, Access::Content>> writes;
    bool everything = false; // a command since the last barrier touched Access::everything
};

// Under stream.mutex, recording `buffer` (the stream's): binds `pipeline` unless it is the one
// bound last. Every compute pipeline the plugin records is bound through it.
void bindPipeline(Stream &stream, VkCommandBuffer buffer, VkPipeline pipeline);

// The most bytes of arguments a kernel can take in a buffer (vkCmdUpdateBuffer's limit).
inline constexpr uint32_t kArgumentBytes = 65536;

// The stream's argument buffer, made on first use. Each launch writes its arguments there with
// vkCmdUpdateBuffer in stream order, so one buffer serves every launch of the stream.
infiniStatus_t argumentBuffer(Stream &stream, VkBuffer *buffer, VkDeviceAddress *address);

// Creates a stream of `dev` (its semaphore a spare one where there is one), with dev.mutex held,
// on a queue of its priority (-1: a high-priority queue where the device has them; else 0).
infiniStatus_t createStreamLocked(Device &dev, Stream **out, int priority = 0);

// `stream` as the plugin table receives it: NULL is the device's default stream.
infiniStatus_t resolveStream(int device, void *stream, Stream **out);

// One submission on `stream`: a command buffer recorded by `record` (NULL: no commands, the
// submission only orders), after all earlier work of the stream and, when `wait_semaphore` is set,
// after that semaphore reaches `wait_value`. *value (may be NULL) gets the value it signals.
class Recorder {
  public:
    virtual void record(VkCommandBuffer buffer) const = 0;

  protected:
    ~Recorder() = default;
};
infiniStatus_t submit(Stream &stream, const Recorder *record, const char *what, uint64_t *value,
                      VkSemaphore wait_semaphore = VK_NULL_HANDLE, uint64_t wait_value = 0);

// submit() with a callable recording the commands.
template <typename F>
infiniStatus_t submitWith(Stream &stream, F &&record, const char *what, uint64_t *value = nullptr) {
    struct Call final : Recorder {
        F &f;
        explicit Call(F &g) : f(g) {}
        void record(VkCommandBuffer buffer) const override { f(buffer); }
    } call(record);
    return submit(stream, &call, what, value);
}

// An asynchronous command nobody waits for (a copy, fill or launch on a stream) touching `access`:
// recorded into the open batch (see the top of this file).
infiniStatus_t enqueue(Stream &stream, const Recorder *record, const Access &access, const char *what);

template <typename F>
infiniStatus_t enqueueWith(Stream &stream, F &&record, const Access &access, const char *what) {
    struct Call final : Recorder {
        F &f;
        explicit Call(F &g) : f(g) {}
        void record(VkCommandBuffer buffer) const override { f(buffer); }
    } call(record);
    return enqueue(stream, &call, access, what);
}

// Submits the stream's open batch, if any. Every value the stream has handed out is then
// submitted (`submitted` is the last one).
infiniStatus_t flush(Stream &stream, const char *why);

// The stream is about to be destroyed: the flusher thread forgets it.
void forgetStream(Stream &stream);

// Waits until `semaphore` of `dev` reaches `value`. DRIVER_ERROR when the device is lost.
infiniStatus_t waitValue(Device &dev, VkSemaphore semaphore, uint64_t value, const char *what);

// The semaphore's counter (0 with the failure reported when it cannot be read).
infiniStatus_t counterValue(Device &dev, VkSemaphore semaphore, uint64_t *value, const char *what);

// Waits until everything submitted to the stream so far has completed.
infiniStatus_t finishStream(Stream &stream, const char *why);

} // namespace infinirt::vulkan
