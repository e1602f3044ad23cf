// vulkan_stream.cpp - streams: a timeline semaphore each on one of the device's queues, each
// submission ordered after the stream's previous one, asynchronous work batched (with the fill
// list) and submitted by the flusher thread or the next call that needs it; queries read the
// semaphore's counter, waits on events are device-side waits on the recording stream's semaphore.
#include "vulkan_backend.h"
#include "vulkan_device.h"
#include "vulkan_event.h"
#include "vulkan_pipelines.h"
#include "vulkan_stream.h"

#include "common/text.hpp"

#include "vulkan_native_api.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <new>
#include <thread>

namespace infinirt::vulkan {
namespace {

// Under stream.mutex: command buffers whose submission has completed go back to the spare list.
void recycleLocked(Stream &stream) {
    if (stream.in_flight.empty()) {
        return;
    }
    uint64_t done = 0;
    if (nativeApi().vkGetSemaphoreCounterValue(stream.dev->device, stream.timeline, &done) != VK_SUCCESS) {
        return;
    }
    while (!stream.in_flight.empty() && stream.in_flight.front().value <= done) {
        stream.spare.push_back(stream.in_flight.front().buffer);
        stream.fills_tail = stream.in_flight.front().fills_end;
        stream.in_flight.pop_front();
    }
}

// Under stream.mutex: a command buffer of the stream's pool, begun.
infiniStatus_t beginLocked(Stream &stream, const char *what, VkCommandBuffer *out) {
    const NativeApi &vk = nativeApi();
    Device &dev = *stream.dev;
    recycleLocked(stream);
    VkCommandBuffer buffer = VK_NULL_HANDLE;
    if (stream.spare.empty()) {
        VkCommandBufferAllocateInfo info{};
        info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
        info.commandPool = stream.pool;
        info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        info.commandBufferCount = 1;
        VkResult result = vk.vkAllocateCommandBuffers(dev.device, &info, &buffer);
        if (result != VK_SUCCESS) {
            return deviceFailure(dev, "vkAllocateCommandBuffers", result, what);
        }
    } else {
        buffer = stream.spare.back();
        stream.spare.pop_back();
    }
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VkResult result = vk.vkBeginCommandBuffer(buffer, &begin); // resets it (the pool allows it)
    if (result != VK_SUCCESS) {
        stream.spare.push_back(buffer);
        return deviceFailure(dev, "vkBeginCommandBuffer", result, what);
    }
    stream.bound = VK_NULL_HANDLE;
    *out = buffer;
    return INFINI_STATUS_SUCCESS;
}

// Ends `buffer` with the barrier that makes what it wrote visible to the host once its value is
// reached (a semaphore wait on the host makes nothing visible by itself).
VkResult endWithHostBarrier(VkCommandBuffer buffer) {
    const NativeApi &vk = nativeApi();
    VkMemoryBarrier barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_HOST_WRITE_BIT;
    vk.vkCmdPipelineBarrier(buffer, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                            nullptr, 0, nullptr);
    return vk.vkEndCommandBuffer(buffer);
}

// Under stream.submit_mutex: one vkQueueSubmit of `buffer` (ended; VK_NULL_HANDLE: none), signalling
// `next` (stream.submitted + 1), after the stream's previous submission and, when `wait_semaphore`
// is set, after it reaches `wait_value`. `submitted` is `next` once it succeeded.
VkResult queueSubmit(Stream &stream, VkCommandBuffer buffer, uint64_t next, VkSemaphore wait_semaphore,
                     uint64_t wait_value) {
    const uint64_t previous = next - 1;
    const VkSemaphore waits[2] = {stream.timeline, wait_semaphore};
    const uint64_t wait_values[2] = {previous, wait_value};
    const VkPipelineStageFlags stages[2] = {VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT};
    const uint32_t wait_count = wait_semaphore != VK_NULL_HANDLE ? 2 : 1;
    VkTimelineSemaphoreSubmitInfo timeline{};
    timeline.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
    timeline.waitSemaphoreValueCount = wait_count;
    timeline.pWaitSemaphoreValues = wait_values;
    timeline.signalSemaphoreValueCount = 1;
    timeline.pSignalSemaphoreValues = &next;
    VkSubmitInfo info{};
    info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    info.pNext = &timeline;
    info.waitSemaphoreCount = wait_count;
    info.pWaitSemaphores = waits;
    info.pWaitDstStageMask = stages;
    info.commandBufferCount = buffer != VK_NULL_HANDLE ? 1 : 0;
    info.pCommandBuffers = &buffer;
    info.signalSemaphoreCount = 1;
    info.pSignalSemaphores = &stream.timeline;
    VkResult result = VK_SUCCESS;
    {
        std::lock_guard<std::mutex> queue_lock(stream.queue->mutex);
        result = nativeApi().vkQueueSubmit(stream.queue->queue, 1, &info, VK_NULL_HANDLE);
    }
    if (result == VK_SUCCESS) {
        stream.submitted.store(next, std::memory_order_release);
    }
    return result;
}

// Under stream.mutex: one submission (queueSubmit). On failure the buffer goes back to the spare
// list.
infiniStatus_t submitLocked(Stream &stream, VkCommandBuffer buffer, VkSemaphore wait_semaphore, uint64_t wait_value,
                            const char *what, uint64_t *value) {
    std::lock_guard<std::mutex> order(stream.submit_mutex);
    const uint64_t next = stream.submitted.load(std::memory_order_relaxed) + 1;
    const VkResult result = queueSubmit(stream, buffer, next, wait_semaphore, wait_value);
    if (result != VK_SUCCESS) {
        if (buffer != VK_NULL_HANDLE) {
            stream.spare.push_back(buffer);
        }
        return deviceFailure(*stream.dev, "vkQueueSubmit", result, what);
    }
    if (buffer != VK_NULL_HANDLE) {
        stream.in_flight.push_back(Stream::InFlight{buffer, next, stream.fills_head});
    }
    if (value) {
        *value = next;
    }
    return INFINI_STATUS_SUCCESS;
}

// Under stream.mutex, a batch open: records the dispatch of the open batch's listed fills not yet
// dispatched, if any.
void dispatchFillGroup(Stream &stream) {
    const uint64_t count = stream.fills_head - stream.fills_group;
    if (count == 0) {
        return;
    }
    const VkDeviceAddress first = stream.fills_address + (stream.fills_group % kFillRing) * sizeof(FillRecord);
    // The device's pipeline, made before the stream's list (makeFillList) and never changed after.
    recordShaderFills(stream, stream.open, stream.dev->fills_pipeline, stream.dev->fills_layout, first,
                      static_cast<uint32_t>(count));
    stream.fills_group = stream.fills_head;
}

// Under stream.mutex: takes the open batch (*buffer VK_NULL_HANDLE: none) and ends it. On failure
// it is dropped (its commands cannot run: the failure is the device's, reported to the caller).
infiniStatus_t takeOpenBatch(Stream &stream, const char *what, VkCommandBuffer *buffer) {
    *buffer = stream.open;
    if (*buffer == VK_NULL_HANDLE) {
        return INFINI_STATUS_SUCCESS;
    }
    dispatchFillGroup(stream);
    stream.open = VK_NULL_HANDLE;
    stream.open_count = 0;
    const VkResult result = endWithHostBarrier(*buffer);
    if (result != VK_SUCCESS) {
        stream.spare.push_back(*buffer);
        *buffer = VK_NULL_HANDLE;
        return deviceFailure(*stream.dev, "vkEndCommandBuffer", result, what);
    }
    return INFINI_STATUS_SUCCESS;
}

// Under stream.mutex: submits the open batch (takeOpenBatch, then submitLocked).
infiniStatus_t flushLocked(Stream &stream, const char *what) {
    VkCommandBuffer buffer = VK_NULL_HANDLE;
    const infiniStatus_t status = takeOpenBatch(stream, what, &buffer);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    if (buffer == VK_NULL_HANDLE) {
        std::lock_guard<std::mutex> order(stream.submit_mutex); // a batch the flusher took is submitted
        return INFINI_STATUS_SUCCESS;
    }
    return submitLocked(stream, buffer, VK_NULL_HANDLE, 0, what, nullptr);
}

// The flusher's flush: the open batch taken and ended under stream.mutex (its command pool's lock),
// then submitted with only stream.submit_mutex held, which it takes before it lets stream.mutex
// go: later submissions still come after it, and the enqueuers record their next batch meanwhile.
// Its value is drawn and its buffer listed in flight before the submission; should that fail, the
// value is never signalled and `submitted` never counts it, so no wait waits for it, and the
// buffer is recycled once a later submission signals that value.
infiniStatus_t flushAside(Stream &stream) {
    const char *what = "submitting a batch (flusher thread)";
    std::unique_lock<std::mutex> stream_lock(stream.mutex);
    VkCommandBuffer buffer = VK_NULL_HANDLE;
    const infiniStatus_t status = takeOpenBatch(stream, what, &buffer);
    if (status != INFINI_STATUS_SUCCESS || buffer == VK_NULL_HANDLE) {
        return status;
    }
    std::lock_guard<std::mutex> order(stream.submit_mutex);
    const uint64_t next = stream.submitted.load(std::memory_order_relaxed) + 1;
    try {
        stream.in_flight.push_back(Stream::InFlight{buffer, next, stream.fills_head});
    } catch (...) { // the batch is dropped, as a failed submission's is; its pool frees the buffer
        return common::fail(INFINI_STATUS_OUT_OF_MEMORY, "out of host memory %s on vulkan:%d", what,
                            stream.dev->index);
    }
    stream_lock.unlock();
    const VkResult result = queueSubmit(stream, buffer, next, VK_NULL_HANDLE, 0);
    return result == VK_SUCCESS ? INFINI_STATUS_SUCCESS : deviceFailure(*stream.dev, "vkQueueSubmit", result, what);
}

// The flusher thread: submits every stream's open batch about 50 us after it opened, so that no
// enqueued work waits for a later call. One for the process, started on first need (again in a
// forked child), never joined (the plugin is never unloaded).
struct Flusher {
    std::mutex mutex;
    std::condition_variable wake;
    std::vector<Stream *> pending; // streams whose batch opened since the last pass
    bool started = false;
};

std::atomic<Flusher *> g_flusher{nullptr};

Flusher &flusher() {
    Flusher *f = g_flusher.load(std::memory_order_acquire);
    if (f == nullptr) {
        static std::once_flag once;
        std::call_once(once, [] {
            g_flusher.store(new Flusher, std::memory_order_release); // leaked: lives until exit
            // A forked child has no flusher thread and may hold the mutex's state of another
            // thread's moment: it gets a fresh one.
            pthread_atfork(nullptr, nullptr, [] { g_flusher.store(new Flusher, std::memory_order_release); });
        });
        f = g_flusher.load(std::memory_order_acquire);
    }
    return *f;
}

// INFINIRT_VULKAN_FLUSH_US (1 to 100,000), else 50: how long after a batch opened the flusher
// submits it.
std::chrono::microseconds flushDelay() {
    return std::chrono::microseconds(rangeSetting("INFINIRT_VULKAN_FLUSH_US", 1, 100000, 50, "microseconds"));
}

void flusherLoop(Flusher *f) {
    const std::chrono::microseconds delay = flushDelay();
    std::unique_lock<std::mutex> lock(f->mutex);
    for (;;) {
        f->wake.wait(lock, [f] { return !f->pending.empty(); });
        lock.unlock();
        std::this_thread::sleep_for(delay);
        lock.lock();
        // Under the flusher's mutex: forgetStream waits for this pass before a stream goes.
        for (Stream *stream : f->pending) {
            if (flushAside(*stream) != INFINI_STATUS_SUCCESS) {
                common::logMessage(INFINIRT_LOG_WARN, "vulkan:%d: a batch of work could not be submitted",
                                   stream->dev->index);
            }
        }
        f->pending.clear();
    }
}

// Called without stream.mutex held (the flusher takes its mutex, then the stream's).
void notifyFlusher(Stream &stream) {
    Flusher &f = flusher();
    {
        std::lock_guard<std::mutex> lock(f.mutex);
        if (!f.started) {
            std::thread(flusherLoop, &f).detach();
            f.started = true;
        }
        if (std::find(f.pending.begin(), f.pending.end(), &stream) == f.pending.end()) {
            f.pending.push_back(&stream);
        }
    }
    f.wake.notify_one();
}

// A full memory barrier: the commands after it in `buffer` are ordered after the ones before it.
// Every batched command is a transfer (copies, vkCmdFillBuffer, vkCmdUpdateBuffer) or a compute
// dispatch (the built-in shaders, kernels): the barrier names those two stages only.
void orderAfterEarlierCommands(VkCommandBuffer buffer) {
    VkMemoryBarrier barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask =
        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    nativeApi().vkCmdPipelineBarrier(buffer, stages, stages, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

// The most ranges a batch compares a command with (those since its last barrier): past them, the
// next command that touches memory follows a barrier.
constexpr size_t kMostTracked = 64;

bool overlaps(const Range &a, const Range &b) {
    return a.buffer != VK_NULL_HANDLE && a.buffer == b.buffer && a.begin < b.end && b.begin < a.end;
}

// Under stream.mutex: whether a command touching `access` must wait for the open batch's commands
// since its last barrier (see the top of vulkan_stream.h); `repeat` is set when it writes exactly
// what one of them wrote, with the same content (nothing new to remember).
bool needsBarrier(const Stream &stream, const Access &access, bool *repeat) {
    *repeat = false;
    if (!access.everything && access.read.buffer == VK_NULL_HANDLE && access.write.buffer == VK_NULL_HANDLE) {
        return false; // touches no memory
    }
    if (stream.everything || (access.everything && (!stream.reads.empty() || !stream.writes.empty()))) {
        return true;
    }
    if (stream.reads.size() + stream.writes.size() >= kMostTracked) {
        return true; // a barrier costs less than comparing with ever more ranges
    }
    for (const Range &read : stream.reads) {
        if (overlaps(access.write, read)) {
            return true;
        }
    }
    for (const auto &[written, content] : stream.writes) {
        if (overlaps(access.read, written)) {
            return true;
        }
        if (overlaps(access.write, written)) {
            if (content.from != access.content.from || content.shift != access.content.shift) {
                return true;
            }
            *repeat = *repeat || (written.begin == access.write.begin && written.end == access.write.end);
        }
    }
    return false;
}

// Under stream.mutex: the open batch has no command since its last barrier (or its start).
void forgetTouched(Stream &stream) {
    stream.reads.clear();
    stream.writes.clear();
    stream.everything = false;
}

// Under stream.mutex: the open batch's commands since its last barrier touch `access` too.
void remember(Stream &stream, const Access &access) {
    stream.everything = stream.everything || access.everything;
    if (access.read.buffer != VK_NULL_HANDLE) {
        stream.reads.push_back(access.read);
    }
    if (access.write.buffer != VK_NULL_HANDLE) {
        stream.writes.emplace_back(access.write, access.content);
    }
}

constexpr uint32_t kMostBatched = 1024;

// Under stream.mutex, a batch open: makes the stream's fill list (its ring and fills.comp's
// pipeline). False when either cannot be made; the stream's fills are then recorded one by one.
bool makeFillList(Stream &stream) {
    if (stream.fills_unavailable) {
        return false;
    }
    Device &dev = *stream.dev;
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceAddress address = 0;
    void *mapped = nullptr;
    if (fillsPipeline(dev, &pipeline, &layout) != INFINI_STATUS_SUCCESS ||
        createBuffer(dev, kFillRing * sizeof(FillRecord), dev.host_type, &buffer, &memory, &address,
                     "a stream's fill list") != INFINI_STATUS_SUCCESS) {
        stream.fills_unavailable = true;
        common::logMessage(INFINIRT_LOG_WARN,
                           "vulkan:%d: a stream's fill list cannot be made: its fills are recorded one by one",
                           dev.index);
        return false;
    }
    const VkResult result = nativeApi().vkMapMemory(dev.device, memory, 0, VK_WHOLE_SIZE, 0, &mapped);
    if (result != VK_SUCCESS) {
        destroyBuffer(dev, buffer, memory);
        stream.fills_unavailable = true;
        common::logMessage(
            INFINIRT_LOG_WARN,
            "vulkan:%d: vkMapMemory of a stream's fill list failed (%s): its fills are recorded one by one", dev.index,
            nativeErrorName(result));
        return false;
    }
    stream.fills = buffer;
    stream.fills_memory = memory;
    stream.fills_address = address;
    stream.fills_mapped = static_cast<FillRecord *>(mapped);
    return true;
}

// Under stream.mutex, a batch open: writes `fill` into the stream's fill list, to be dispatched
// with the open batch's group (a group's records are consecutive in the ring: one that would wrap
// is dispatched first). False where the list cannot take it.
bool listFill(Stream &stream, const FillRecord &fill) {
    if (stream.fills_mapped == nullptr && !makeFillList(stream)) {
        return false;
    }
    if (stream.fills_head - stream.fills_tail >= kFillRing) {
        recycleLocked(stream);
        if (stream.fills_head - stream.fills_tail >= kFillRing) {
            return false;
        }
    }
    const uint64_t slot = stream.fills_head % kFillRing;
    if (slot == 0) {
        dispatchFillGroup(stream);
    }
    stream.fills_mapped[slot] = fill;
    ++stream.fills_head;
    return true;
}

// Under stream.mutex: readies the open batch for a command touching `access` (begins one where
// none is open, and sets *opened; else orders it after the batch's earlier commands where it must,
// dispatching their listed fills first), and remembers what it touches.
infiniStatus_t prepareLocked(Stream &stream, const Access &access, const char *what, bool *opened) {
    if (stream.open == VK_NULL_HANDLE) {
        VkCommandBuffer buffer = VK_NULL_HANDLE;
        const infiniStatus_t status = beginLocked(stream, what, &buffer);
        if (status != INFINI_STATUS_SUCCESS) {
            return status;
        }
        stream.open = buffer;
        stream.open_count = 0;
        forgetTouched(stream);
        remember(stream, access);
        *opened = true;
        return INFINI_STATUS_SUCCESS;
    }
    bool repeat = false;
    if (needsBarrier(stream, access, &repeat)) {
        dispatchFillGroup(stream);
        orderAfterEarlierCommands(stream.open);
        forgetTouched(stream);
        repeat = false;
    }
    if (!repeat) {
        remember(stream, access);
    }
    return INFINI_STATUS_SUCCESS;
}

// enqueue() and enqueueFill() (`fill` NULL: `record` records the command).
infiniStatus_t enqueueCommand(Stream &stream, const FillRecord *fill, const Recorder *record, const Access &access,
                              const char *what) {
    infiniStatus_t status = checkLost(*stream.dev);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    bool opened = false;
    {
        std::lock_guard<std::mutex> lock(stream.mutex);
        status = prepareLocked(stream, access, what, &opened);
        if (status != INFINI_STATUS_SUCCESS) {
            return status;
        }
        if (fill == nullptr || !listFill(stream, *fill)) {
            record->record(stream.open);
        }
        if (++stream.open_count >= kMostBatched) {
            status = flushLocked(stream, what);
        }
    }
    if (opened) {
        notifyFlusher(stream);
    }
    return status;
}

} // namespace

void forgetStream(Stream &stream) {
    Flusher &f = flusher();
    std::lock_guard<std::mutex> lock(f.mutex);
    f.pending.erase(std::remove(f.pending.begin(), f.pending.end(), &stream), f.pending.end());
}

infiniStatus_t flush(Stream &stream, const char *why) {
    std::lock_guard<std::mutex> lock(stream.mutex);
    return flushLocked(stream, why);
}

infiniStatus_t enqueue(Stream &stream, const Recorder *record, const Access &access, const char *what) {
    return enqueueCommand(stream, nullptr, record, access, what);
}

infiniStatus_t enqueueFill(Stream &stream, const FillRecord &fill, const Recorder *fallback, const Access &access,
                           const char *what) {
    return enqueueCommand(stream, &fill, fallback, access, what);
}

void bindPipeline(Stream &stream, VkCommandBuffer buffer, VkPipeline pipeline) {
    if (stream.bound != pipeline) {
        nativeApi().vkCmdBindPipeline(buffer, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
        stream.bound = pipeline;
    }
}

infiniStatus_t argumentBuffer(Stream &stream, VkBuffer *buffer, VkDeviceAddress *address) {
    std::lock_guard<std::mutex> lock(stream.mutex);
    if (stream.arguments == VK_NULL_HANDLE) {
        const infiniStatus_t status =
            createBuffer(*stream.dev, kArgumentBytes, stream.dev->device_type, &stream.arguments,
                         &stream.arguments_memory, &stream.arguments_address, "a stream's kernel argument buffer");
        if (status != INFINI_STATUS_SUCCESS) {
            return status;
        }
    }
    *buffer = stream.arguments;
    *address = stream.arguments_address;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t createStreamLocked(Device &dev, Stream **out, int priority) {
    const NativeApi &vk = nativeApi();
    VkSemaphore semaphore = VK_NULL_HANDLE;
    if (!dev.spare_semaphores.empty()) {
        semaphore = dev.spare_semaphores.back();
    } else {
        VkSemaphoreTypeCreateInfo type{};
        type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
        type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
        type.initialValue = 0;
        VkSemaphoreCreateInfo info{};
        info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
        info.pNext = &type;
        VkResult result = vk.vkCreateSemaphore(dev.device, &info, nullptr, &semaphore);
        if (result != VK_SUCCESS) {
            return deviceFailure(dev, "vkCreateSemaphore", result, "creating a stream");
        }
        dev.spare_semaphores.push_back(semaphore); // taken below, once nothing else can fail
    }
    uint64_t counter = 0;
    VkResult result = vk.vkGetSemaphoreCounterValue(dev.device, semaphore, &counter);
    if (result != VK_SUCCESS) {
        return deviceFailure(dev, "vkGetSemaphoreCounterValue", result, "creating a stream");
    }
    VkCommandPoolCreateInfo pool_info{};
    pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT | VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pool_info.queueFamilyIndex = dev.family;
    VkCommandPool pool = VK_NULL_HANDLE;
    result = vk.vkCreateCommandPool(dev.device, &pool_info, nullptr, &pool);
    if (result != VK_SUCCESS) {
        return deviceFailure(dev, "vkCreateCommandPool", result, "creating a stream");
    }
    Stream *stream = new (std::nothrow) Stream;
    if (!stream) {
        vk.vkDestroyCommandPool(dev.device, pool, nullptr);
        return common::fail(INFINI_STATUS_OUT_OF_MEMORY, "out of host memory creating a stream on vulkan:%d",
                            dev.index);
    }
    dev.spare_semaphores.pop_back();
    stream->dev = &dev;
    const uint32_t normal = dev.queue_count - dev.high_queues;
    stream->queue = priority < 0 && dev.high_queues > 0
                        ? &dev.queues[normal + dev.next_high_queue.fetch_add(1, std::memory_order_relaxed) % dev.high_queues]
                        : &dev.queues[dev.next_queue.fetch_add(1, std::memory_order_relaxed) % normal];
    stream->timeline = semaphore;
    stream->submitted.store(counter, std::memory_order_relaxed);
    stream->pool = pool;
    *out = stream;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t resolveStream(int device, void *stream, Stream **out) {
    if (stream) {
        *out = static_cast<Stream *>(stream);
        return INFINI_STATUS_SUCCESS;
    }
    return defaultStream(device, out);
}

infiniStatus_t submit(Stream &stream, const Recorder *record, const char *what, uint64_t *value,
                      VkSemaphore wait_semaphore, uint64_t wait_value) {
    Device &dev = *stream.dev;
    infiniStatus_t status = checkLost(dev);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    std::lock_guard<std::mutex> lock(stream.mutex);
    status = flushLocked(stream, what); // the open batch goes first: stream order
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    VkCommandBuffer buffer = VK_NULL_HANDLE;
    if (record) {
        status = beginLocked(stream, what, &buffer);
        if (status != INFINI_STATUS_SUCCESS) {
            return status;
        }
        record->record(buffer);
        VkResult result = endWithHostBarrier(buffer);
        if (result != VK_SUCCESS) {
            stream.spare.push_back(buffer);
            return deviceFailure(dev, "vkEndCommandBuffer", result, what);
        }
    }
    return submitLocked(stream, buffer, wait_semaphore, wait_value, what, value);
}

infiniStatus_t counterValue(Device &dev, VkSemaphore semaphore, uint64_t *value, const char *what) {
    infiniStatus_t status = checkLost(dev);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    VkResult result = nativeApi().vkGetSemaphoreCounterValue(dev.device, semaphore, value);
    return result == VK_SUCCESS ? INFINI_STATUS_SUCCESS : deviceFailure(dev, "vkGetSemaphoreCounterValue", result, what);
}

infiniStatus_t waitValue(Device &dev, VkSemaphore semaphore, uint64_t value, const char *what) {
    infiniStatus_t status = checkLost(dev);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    if (dev.spin.count() > 0) {
        const auto until = std::chrono::steady_clock::now() + dev.spin;
        uint64_t reached = 0;
        do {
            if (nativeApi().vkGetSemaphoreCounterValue(dev.device, semaphore, &reached) == VK_SUCCESS &&
                reached >= value) {
                return INFINI_STATUS_SUCCESS;
            }
        } while (std::chrono::steady_clock::now() < until);
    }
    VkSemaphoreWaitInfo info{};
    info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
    info.semaphoreCount = 1;
    info.pSemaphores = &semaphore;
    info.pValues = &value;
    VkResult result = nativeApi().vkWaitSemaphores(dev.device, &info, UINT64_MAX);
    return result == VK_SUCCESS ? INFINI_STATUS_SUCCESS : deviceFailure(dev, "vkWaitSemaphores", result, what);
}

infiniStatus_t finishStream(Stream &stream, const char *why) {
    infiniStatus_t status = flush(stream, why);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    return waitValue(*stream.dev, stream.timeline, stream.submitted.load(std::memory_order_acquire), why);
}

// Two levels where the device has high-priority queues (vulkan_device.h): 0 and -1.
infiniStatus_t deviceGetStreamPriorityRange(int device, int *least, int *greatest) {
    *least = 0;
    *greatest = infinirt::vulkan::device(device).high_queues > 0 ? -1 : 0;
    return INFINI_STATUS_SUCCESS;
}

// A stream on the next of the queues of its priority (in turn), with a timeline semaphore of its own.
infiniStatus_t streamCreateWithPriority(int device, int priority, void **out) {
    Device &dev = infinirt::vulkan::device(device);
    std::lock_guard<std::mutex> lock(dev.mutex);
    Stream *stream = nullptr;
    infiniStatus_t status = createStreamLocked(dev, &stream, priority);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    try {
        dev.streams.insert(stream);
    } catch (...) {
        nativeApi().vkDestroyCommandPool(dev.device, stream->pool, nullptr);
        dev.spare_semaphores.push_back(stream->timeline);
        delete stream;
        throw;
    }
    *out = stream;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamCreate(int device, void **out) { return streamCreateWithPriority(device, 0, out); }

// Waits for the stream's work, then releases its command pool; its semaphore is kept for another
// stream (events recorded on it stay complete).
infiniStatus_t streamDestroy(int device, void *handle) {
    Stream *stream = static_cast<Stream *>(handle);
    Device &dev = infinirt::vulkan::device(device);
    {
        std::lock_guard<std::mutex> lock(dev.mutex);
        dev.streams.erase(stream);
    }
    forgetStream(*stream);
    infiniStatus_t status = finishStream(*stream, "destroying a stream");
    std::lock_guard<std::mutex> lock(dev.mutex);
    if (status != INFINI_STATUS_SUCCESS) {
        // Its work may still run: the stream stays, usable, and the loader keeps its handle.
        dev.streams.insert(stream);
        return status;
    }
    nativeApi().vkDestroyCommandPool(dev.device, stream->pool, nullptr);
    if (stream->arguments != VK_NULL_HANDLE) {
        destroyBuffer(dev, stream->arguments, stream->arguments_memory);
    }
    if (stream->fills != VK_NULL_HANDLE) {
        destroyBuffer(dev, stream->fills, stream->fills_memory);
    }
    dev.spare_semaphores.push_back(stream->timeline);
    delete stream;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamSynchronize(int device, void *handle) {
    Stream *stream = nullptr;
    infiniStatus_t status = resolveStream(device, handle, &stream);
    return status == INFINI_STATUS_SUCCESS ? finishStream(*stream, "synchronizing a stream") : status;
}

// SUCCESS when the semaphore's counter has reached the value of the last submission.
infiniStatus_t streamQuery(int device, void *handle) {
    Stream *stream = nullptr;
    infiniStatus_t status = resolveStream(device, handle, &stream);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    status = flush(*stream, "querying a stream"); // the truth includes the open batch
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    const uint64_t submitted = stream->submitted.load(std::memory_order_acquire);
    uint64_t done = 0;
    status = counterValue(*stream->dev, stream->timeline, &done, "querying a stream");
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    return done >= submitted ? INFINI_STATUS_SUCCESS : INFINI_STATUS_NOT_READY;
}

// A device-side wait: a submission with no commands that waits for the event's semaphore value
// (nothing at all when the event was never recorded, was recorded on this stream, or is complete).
infiniStatus_t streamWaitEvent(int device, void *stream_handle, void *event_handle) {
    Stream *stream = nullptr;
    infiniStatus_t status = resolveStream(device, stream_handle, &stream);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    Recorded recorded;
    snapshot(*static_cast<Event *>(event_handle), &recorded);
    if (recorded.semaphore == VK_NULL_HANDLE || recorded.semaphore == stream->timeline) {
        return INFINI_STATUS_SUCCESS;
    }
    uint64_t done = 0;
    status = counterValue(*stream->dev, recorded.semaphore, &done, "waiting for an event");
    if (status != INFINI_STATUS_SUCCESS || done >= recorded.value) {
        return status;
    }
    return submit(*stream, nullptr, "making a stream wait for an event", nullptr, recorded.semaphore, recorded.value);
}

} // namespace infinirt::vulkan

INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::vulkan::streamQuery);
INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::vulkan::streamWaitEvent);
