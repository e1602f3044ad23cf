// Streams: in-order queues run by one worker thread each (see Stream in cpu_backend.h).
#include "cpu_backend.h"

#include "common/host_services.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace infinirt::cpu {

namespace {

// How long a waiter, or a worker that ran out of work, polls before sleeping on its condition
// variable. Synchronising right after a small copy is common; a futex sleep and wake on each
// side costs tens of microseconds, a short poll catches most such handoffs. Never used on a
// single hardware thread, where polling only delays the thread being waited for.
constexpr std::chrono::microseconds kSpin(20);

inline void cpuRelax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

// Polls `done` for up to kSpin; true if it became true.
template <class Done>
bool spinUntil(Done done) noexcept {
    if (config().hardware_threads < 2) {
        return false;
    }
    const auto deadline = std::chrono::steady_clock::now() + kSpin;
    for (;;) {
        for (int i = 0; i < 64; ++i) {
            if (done()) {
                return true;
            }
            cpuRelax();
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return false;
        }
    }
}

void execute(Task &task) noexcept {
    switch (task.kind) {
    case Task::Kind::Copy:
        std::memmove(task.dst, task.src, task.size);
        break;
    case Task::Kind::Fill:
        std::memset(task.dst, task.value, task.size);
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
        execute(task);
        // Drop the task's references before retaking the lock: the last reference to an event
        // or to another stream may go here.
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

infiniStatus_t streamCreate(int device, void **stream) {
    auto created = std::make_shared<Stream>(device);
    Device &dev = deviceState(device);
    {
        std::lock_guard<std::mutex> lock(dev.streams_mutex);
        dev.streams.push_back(created);
    }
    *stream = created.get();
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
    if (target != nullptr) {
        target->synchronize();
    }
    return INFINI_STATUS_SUCCESS;
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
