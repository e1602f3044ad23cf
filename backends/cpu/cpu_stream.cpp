// Streams: in-order queues run by one worker thread each (see cpu_stream.h).
#include "cpu_backend.h"
#include "cpu_device.h"
#include "cpu_event.h"
#include "cpu_launch.h"
#include "cpu_memory.h"
#include "cpu_stream.h"

#include "common/host_services.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace infinirt::cpu {

// The moves of the user's memory: streams not ordered by events race in the user's data, as a
// GPU's copy engines do. Out of line and outside the anonymous namespace so that scripts/tsan.supp
// names exactly them (ThreadSanitizer names an inlined or internal-linkage frame without its
// namespace).
[[gnu::noinline]] void moveUserBytes(void *dst, const void *src, size_t size) noexcept {
    std::memmove(dst, src, size);
}
[[gnu::noinline]] void fillUserBytes(void *dst, int value, size_t size) noexcept { std::memset(dst, value, size); }

namespace {

void execute(Task &task, Stream &stream, uint64_t number) noexcept {
    switch (task.kind) {
    case Task::Kind::Copy:
        moveUserBytes(task.dst, task.src, task.size);
        break;
    case Task::Kind::Fill:
        fillUserBytes(task.dst, task.value, task.size);
        break;
    case Task::Kind::Release:
        releaseBlock(task.dst);
        break;
    case Task::Kind::Mark:
        task.event->onMarker(task.number);
        break;
    case Task::Kind::Wait:
        // Cannot deadlock: the awaited task was submitted before this one, so waits only ever
        // point back in time.
        task.stream->wait(task.number);
        break;
    case Task::Kind::Launch:
        runLaunch(*task.launch, stream, number);
        break;
    }
}

} // namespace

uint64_t Stream::submit(Task &&task) {
    bool wake = false;
    uint64_t number = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (count_ == ring_.size()) {
            std::vector<Task> bigger(ring_.empty() ? 16 : ring_.size() * 2);
            for (size_t i = 0; i < count_; ++i) {
                bigger[i] = std::move(ring_[(head_ + i) & (ring_.size() - 1)]);
            }
            ring_.swap(bigger);
            head_ = 0;
        }
        if (!worker_.joinable()) {
            worker_ = std::thread([this] { run(); });
        }
        push(std::move(task));
        number = submitted_.load(std::memory_order_relaxed) + 1;
        submitted_.store(number, std::memory_order_release);
        wake = worker_sleeping_;
    }
    if (wake) {
        work_ready_.notify_one();
    }
    return number;
}

void Stream::push(Task &&task) {
    ring_[(head_ + count_) & (ring_.size() - 1)] = std::move(task);
    ++count_;
}

Task Stream::pop() noexcept {
    Task task = std::move(ring_[head_]);
    head_ = (head_ + 1) & (ring_.size() - 1);
    --count_;
    return task;
}

void Stream::run() noexcept {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        if (count_ == 0 && !stopping_) {
            lock.unlock();
            spinUntil([this] {
                return submitted_.load(std::memory_order_acquire) > completed_.load(std::memory_order_relaxed);
            });
            lock.lock();
        }
        while (count_ == 0 && !stopping_) {
            worker_sleeping_ = true;
            work_ready_.wait(lock);
            worker_sleeping_ = false;
        }
        if (count_ == 0) {
            return;
        }
        Task task = pop();
        lock.unlock();
        // Only this thread advances completed_, so the task's number is known here.
        execute(task, *this, completed_.load(std::memory_order_relaxed) + 1);
        // Drop the task's references before retaking the lock: the last reference to an event,
        // to another stream or to a module (dlclose) may go here.
        task = Task();
        lock.lock();
        completed_.store(completed_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
        if (waiters_ > 0) {
            progress_.notify_all();
        }
    }
}

void Stream::wait(uint64_t number) {
    if (reached(number) || spinUntil([&] { return reached(number); })) {
        return;
    }
    std::unique_lock<std::mutex> lock(mutex_);
    ++waiters_;
    progress_.wait(lock, [&] { return completed_.load(std::memory_order_relaxed) >= number; });
    --waiters_;
}

void Stream::shutdown() {
    std::unique_lock<std::mutex> lock(mutex_);
    ++waiters_;
    progress_.wait(lock, [&] {
        return completed_.load(std::memory_order_relaxed) >= submitted_.load(std::memory_order_relaxed);
    });
    --waiters_;
    stopping_ = true;
    lock.unlock();
    work_ready_.notify_one();
    if (worker_.joinable()) {
        worker_.join();
    }
}

void Stream::noteFailure(uint64_t number, const char *text) noexcept {
    std::lock_guard<std::mutex> lock(failure_mutex_);
    if (has_failure_.load(std::memory_order_relaxed)) {
        return;
    }
    failure_number_ = number;
    std::snprintf(failure_text_, sizeof failure_text_, "%s", text);
    has_failure_.store(true, std::memory_order_release);
}

infiniStatus_t Stream::takeFailure(uint64_t up_to, const char *entry) noexcept {
    if (!has_failure_.load(std::memory_order_acquire)) {
        return INFINI_STATUS_SUCCESS;
    }
    std::lock_guard<std::mutex> lock(failure_mutex_);
    if (!has_failure_.load(std::memory_order_relaxed) || failure_number_ > up_to) {
        return INFINI_STATUS_SUCCESS;
    }
    has_failure_.store(false, std::memory_order_relaxed);
    return common::fail(INFINI_STATUS_DRIVER_ERROR, "%s: %s", entry, failure_text_);
}

Stream &resolveStream(int device, void *stream) {
    if (stream != nullptr) {
        return *static_cast<Stream *>(stream);
    }
    Device &dev = deviceState(device);
    Stream *existing = dev.default_stream.load(std::memory_order_acquire);
    if (existing != nullptr) {
        return *existing;
    }
    std::lock_guard<std::mutex> lock(dev.default_stream_mutex);
    existing = dev.default_stream.load(std::memory_order_relaxed);
    if (existing == nullptr) {
        auto created = std::make_shared<Stream>(device);
        {
            std::lock_guard<std::mutex> streams_lock(dev.streams_mutex);
            dev.streams.push_back(created);
        }
        existing = created.get();
        dev.default_stream.store(existing, std::memory_order_release);
    }
    return *existing;
}

Stream *existingDefaultStream(int device) noexcept {
    return deviceState(device).default_stream.load(std::memory_order_acquire);
}

// ---- entries -----------------------------------------------------------------------------

infiniStatus_t streamCreateWithPriority(int device, int priority, void **stream) {
    auto created = std::make_shared<Stream>(device, priority);
    Device &dev = deviceState(device);
    {
        std::lock_guard<std::mutex> lock(dev.streams_mutex);
        dev.streams.push_back(created);
    }
    *stream = created.get();
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamCreate(int device, void **stream) { return streamCreateWithPriority(device, 0, stream); }

infiniStatus_t deviceGetStreamPriorityRange(int, int *least, int *greatest) {
    *least = 0;
    *greatest = Stream::kGreatestPriority;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamDestroy(int device, void *stream) {
    Device &dev = deviceState(device);
    std::shared_ptr<Stream> doomed;
    {
        std::lock_guard<std::mutex> lock(dev.streams_mutex);
        auto it = std::find_if(dev.streams.begin(), dev.streams.end(),
                               [&](const std::shared_ptr<Stream> &s) { return s.get() == stream; });
        if (it == dev.streams.end() || it->get() == dev.default_stream.load(std::memory_order_acquire)) {
            return common::fail(INFINI_STATUS_INVALID_HANDLE, "stream_destroy: %p is not a stream of cpu:%d",
                                stream, device);
        }
        doomed = *it;
    }
    // Drained while still listed, so a concurrent device_synchronize waits for it too.
    doomed->shutdown();
    std::lock_guard<std::mutex> lock(dev.streams_mutex);
    dev.streams.erase(std::find(dev.streams.begin(), dev.streams.end(), doomed));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t streamSynchronize(int device, void *stream) {
    Stream *target = stream != nullptr ? static_cast<Stream *>(stream) : existingDefaultStream(device);
    if (target == nullptr) {
        return INFINI_STATUS_SUCCESS;
    }
    const uint64_t reached = target->synchronize();
    return target->takeFailure(reached, "stream_synchronize");
}

infiniStatus_t streamQuery(int device, void *stream) {
    Stream *target = stream != nullptr ? static_cast<Stream *>(stream) : existingDefaultStream(device);
    return target == nullptr || target->idle() ? INFINI_STATUS_SUCCESS : INFINI_STATUS_NOT_READY;
}

infiniStatus_t streamWaitEvent(int device, void *stream, void *event) {
    Event::Recording awaited = static_cast<Event *>(event)->current();
    if (awaited.stream == nullptr || awaited.stream->reached(awaited.number)) {
        return INFINI_STATUS_SUCCESS;
    }
    Stream &waiter = resolveStream(device, stream);
    if (&waiter == awaited.stream.get()) {
        return INFINI_STATUS_SUCCESS; // in-order already
    }
    Task task;
    task.kind = Task::Kind::Wait;
    task.stream = std::move(awaited.stream);
    task.number = awaited.number;
    waiter.submit(std::move(task));
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::cpu

INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::cpu::streamQuery);
INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::cpu::streamWaitEvent);
