// vulkan_event.cpp - events: the recording stream's semaphore value, and for timed events a
// timestamp written after the stream's earlier work, which elapsed-time requests read.
#include "vulkan_backend.h"
#include "vulkan_device.h"
#include "vulkan_event.h"
#include "vulkan_stream.h"

#include "vulkan_native_api.h"

#include <new>

namespace infinirt::vulkan {

void snapshot(Event &event, Recorded *out) {
    std::lock_guard<std::mutex> lock(event.mutex);
    out->semaphore = event.semaphore;
    out->value = event.value;
    out->slot = event.slot;
}

// A timed event gets its pool of timestamp queries (none where the queue family has no
// timestamps: elapsed time then answers NOT_IMPLEMENTED).
infiniStatus_t eventCreate(int device, uint32_t flags, void **out) {
    Device &dev = infinirt::vulkan::device(device);
    VkQueryPool queries = VK_NULL_HANDLE;
    if (!(flags & INFINIRT_EVENT_DISABLE_TIMING) && dev.timestamp_bits > 0) {
        VkQueryPoolCreateInfo info{};
        info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
        info.queryType = VK_QUERY_TYPE_TIMESTAMP;
        info.queryCount = Event::kSlots;
        VkResult result = nativeApi().vkCreateQueryPool(dev.device, &info, nullptr, &queries);
        if (result != VK_SUCCESS) {
            return deviceFailure(dev, "vkCreateQueryPool", result, "creating a timed event");
        }
    }
    Event *event = new (std::nothrow) Event;
    if (!event) {
        if (queries != VK_NULL_HANDLE) {
            nativeApi().vkDestroyQueryPool(dev.device, queries, nullptr);
        }
        return common::fail(INFINI_STATUS_OUT_OF_MEMORY, "out of host memory creating an event on vulkan:%d", device);
    }
    event->dev = &dev;
    event->flags = flags;
    event->queries = queries;
    *out = event;
    return INFINI_STATUS_SUCCESS;
}

// A timed event's queries may still be written by its last record: that record is waited for
// first (its work is usually long done).
infiniStatus_t eventDestroy(int, void *handle) {
    Event *event = static_cast<Event *>(handle);
    if (event->queries != VK_NULL_HANDLE) {
        Recorded recorded;
        snapshot(*event, &recorded);
        if (recorded.semaphore != VK_NULL_HANDLE) {
            infiniStatus_t status = waitValue(*event->dev, recorded.semaphore, recorded.value, "destroying an event");
            if (status != INFINI_STATUS_SUCCESS && !event->dev->lost.load()) {
                return status;
            }
        }
        nativeApi().vkDestroyQueryPool(event->dev->device, event->queries, nullptr);
    }
    delete event;
    return INFINI_STATUS_SUCCESS;
}

// Untimed: the stream's last submitted value, once its open batch is submitted (no submission of
// its own). Timed: a submission writing a timestamp once the stream's earlier work has completed.
infiniStatus_t eventRecord(int device, void *handle, void *stream_handle) {
    Event *event = static_cast<Event *>(handle);
    Stream *stream = nullptr;
    infiniStatus_t status = resolveStream(device, stream_handle, &stream);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    if (event->queries == VK_NULL_HANDLE) {
        status = flush(*stream, "recording an event"); // its value then covers every earlier command
        if (status != INFINI_STATUS_SUCCESS) {
            return status;
        }
        std::lock_guard<std::mutex> lock(event->mutex);
        event->semaphore = stream->timeline;
        event->value = stream->submitted.load(std::memory_order_acquire);
        return INFINI_STATUS_SUCCESS;
    }
    uint32_t slot = 0;
    {
        std::lock_guard<std::mutex> lock(event->mutex);
        slot = event->next_slot;
        event->next_slot = (slot + 1) % Event::kSlots;
    }
    const VkQueryPool queries = event->queries;
    uint64_t value = 0;
    status = submitWith(
        *stream,
        [&](VkCommandBuffer buffer) {
            nativeApi().vkCmdResetQueryPool(buffer, queries, slot, 1);
            nativeApi().vkCmdWriteTimestamp(buffer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, slot);
        },
        "recording an event", &value);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    std::lock_guard<std::mutex> lock(event->mutex);
    event->semaphore = stream->timeline;
    event->value = value;
    event->slot = slot;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventQuery(int, void *handle, infinirtEventStatus_t *out) {
    Event *event = static_cast<Event *>(handle);
    Recorded recorded;
    snapshot(*event, &recorded);
    uint64_t done = 0;
    if (recorded.semaphore != VK_NULL_HANDLE) {
        infiniStatus_t status = counterValue(*event->dev, recorded.semaphore, &done, "querying an event");
        if (status != INFINI_STATUS_SUCCESS) {
            return status;
        }
    }
    *out = done >= recorded.value ? INFINIRT_EVENT_COMPLETE : INFINIRT_EVENT_NOT_READY;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t eventSynchronize(int, void *handle) {
    Event *event = static_cast<Event *>(handle);
    Recorded recorded;
    snapshot(*event, &recorded);
    if (recorded.semaphore == VK_NULL_HANDLE) {
        return INFINI_STATUS_SUCCESS;
    }
    return waitValue(*event->dev, recorded.semaphore, recorded.value, "synchronizing an event");
}

namespace {

// The timestamp of a completed timed record, in ticks.
infiniStatus_t timestampOf(const Event &event, const Recorded &recorded, uint64_t *ticks) {
    VkResult result = nativeApi().vkGetQueryPoolResults(event.dev->device, event.queries, recorded.slot, 1,
                                                        sizeof(*ticks), ticks, sizeof(*ticks), VK_QUERY_RESULT_64_BIT);
    if (result == VK_NOT_READY) {
        return common::fail(INFINI_STATUS_NOT_READY, "elapsed time asked before both events' timestamps were written");
    }
    return result == VK_SUCCESS ? INFINI_STATUS_SUCCESS
                                : deviceFailure(*event.dev, "vkGetQueryPoolResults", result, "reading an event's time");
}

} // namespace

// From the timestamps both records wrote, times timestampPeriod.
infiniStatus_t eventElapsedTime(int device, float *ms, void *start_handle, void *end_handle) {
    Event *events[2] = {static_cast<Event *>(start_handle), static_cast<Event *>(end_handle)};
    if ((events[0]->flags | events[1]->flags) & INFINIRT_EVENT_DISABLE_TIMING) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "elapsed time asked of an event created with DISABLE_TIMING");
    }
    Device &dev = infinirt::vulkan::device(device);
    if (events[0]->queries == VK_NULL_HANDLE || events[1]->queries == VK_NULL_HANDLE) {
        return common::fail(INFINI_STATUS_NOT_IMPLEMENTED,
                            "vulkan:%d (\"%s\"): queue family %u has no timestamps (timestampValidBits 0)", device,
                            dev.properties.deviceName, dev.family);
    }
    Recorded recorded[2];
    uint64_t ticks[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
        snapshot(*events[i], &recorded[i]);
        if (recorded[i].semaphore == VK_NULL_HANDLE) {
            return common::fail(INFINI_STATUS_BAD_PARAM, "elapsed time asked of an event that was never recorded");
        }
    }
    for (int i = 0; i < 2; ++i) {
        uint64_t done = 0;
        infiniStatus_t status = counterValue(dev, recorded[i].semaphore, &done, "timing events");
        if (status != INFINI_STATUS_SUCCESS) {
            return status;
        }
        if (done < recorded[i].value) {
            return common::fail(INFINI_STATUS_NOT_READY, "elapsed time asked before both events completed");
        }
        status = timestampOf(*events[i], recorded[i], &ticks[i]);
        if (status != INFINI_STATUS_SUCCESS) {
            return status;
        }
    }
    // Signed, within the valid bits: the end event may have been recorded on another stream and
    // completed first.
    const uint64_t mask = dev.timestamp_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << dev.timestamp_bits) - 1;
    const uint64_t forward = (ticks[1] - ticks[0]) & mask;
    const double difference = forward <= mask / 2 ? static_cast<double>(forward)
                                                  : -static_cast<double>(((ticks[0] - ticks[1]) & mask));
    *ms = static_cast<float>(difference * dev.timestamp_period / 1e6);
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::vulkan

INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::vulkan::eventRecord);
INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::vulkan::eventQuery);
