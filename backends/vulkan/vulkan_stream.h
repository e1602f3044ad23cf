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
// command that touches no memory at all (a kernel whose code names none: vulkan_spirv.h). A
// command is compared with at most 64 ranges: past them, the next command that touches memory
// follows a barrier.
//
// Small fills (enqueueFill) are not recorded one by one: each is a record in the stream's fill
// list, and one dispatch of a built-in shader sets every record of a group, recorded where the
// batch needs their writes done.
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

struct FillRecord; // vulkan_pipelines.h

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
        uint64_t value;     // done once the counter reaches it
        uint64_t fills_end; // fills_head when it was ended: the records before it are free once done
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
    // The fill list (enqueueFill), under `mutex`: a ring of kFillRing FillRecords in host-visible
    // memory, made (with the device's fill-list pipeline) on the stream's first listed fill and
    // released with the stream. Records are counted from the stream's start (record n is at
    // n % kFillRing): [fills_tail, fills_head) belong to batches not known complete, and
    // [fills_group, fills_head) to the open batch's group not yet dispatched (empty while no batch
    // is open: ending a batch dispatches its group).
    VkBuffer fills = VK_NULL_HANDLE;
    VkDeviceMemory fills_memory = VK_NULL_HANDLE;
    VkDeviceAddress fills_address = 0;
    FillRecord *fills_mapped = nullptr;
    uint64_t fills_head = 0, fills_tail = 0, fills_group = 0;
    bool fills_unavailable = false; // the list could not be made: fills are recorded one by one
};

// Records in a stream's fill list (4 batches of the most commands a batch holds).
inline constexpr uint32_t kFillRing = 4096;

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

// A Recorder calling `f` (a callable taking the command buffer).
template <typename F>
class RecorderOf final : public Recorder {
  public:
    explicit RecorderOf(F &f) : f_(f) {}
    void record(VkCommandBuffer buffer) const override { f_(buffer); }

  private:
    F &f_;
};

infiniStatus_t submit(Stream &stream, const Recorder *record, const char *what, uint64_t *value,
                      VkSemaphore wait_semaphore = VK_NULL_HANDLE, uint64_t wait_value = 0);

// submit() with a callable recording the commands.
template <typename F>
infiniStatus_t submitWith(Stream &stream, F &&record, const char *what, uint64_t *value = nullptr) {
    const RecorderOf<F> call(record);
    return submit(stream, &call, what, value);
}

// An asynchronous command nobody waits for (a copy, fill or launch on a stream) touching `access`:
// recorded into the open batch (see the top of this file).
infiniStatus_t enqueue(Stream &stream, const Recorder *record, const Access &access, const char *what);

template <typename F>
infiniStatus_t enqueueWith(Stream &stream, F &&record, const Access &access, const char *what) {
    const RecorderOf<F> call(record);
    return enqueue(stream, &call, access, what);
}

// An asynchronous fill of at most Device::fill_list_most bytes, touching `access`, batched as
// enqueue() batches a command but written as `fill` into the stream's fill list: the open batch's
// consecutive listed fills are set by one dispatch of fills.comp (vulkan_pipelines.h), recorded
// where the batch needs their writes done (before a barrier, before the batch ends, or where the
// group would wrap around the ring). Where the list cannot take it (its ring holds only records of
// batches not yet complete, or the ring or its pipeline cannot be made), `fallback` records the
// fill in the batch instead, as enqueue() would.
infiniStatus_t enqueueFill(Stream &stream, const FillRecord &fill, const Recorder *fallback, const Access &access,
                           const char *what);

template <typename F>
infiniStatus_t enqueueFillWith(Stream &stream, const FillRecord &fill, F &&fallback, const Access &access,
                               const char *what) {
    const RecorderOf<F> call(fallback);
    return enqueueFill(stream, fill, &call, access, what);
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
