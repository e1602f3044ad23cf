// FakeDevice: a RawDevice whose memory is host memory with an optional capacity, and whose
// events complete only when the test says so, so that the allocators' event logic can be
// checked deterministically. Streams are any distinct pointer values the test picks.
#ifndef INFINICORE_TESTS_FAKE_DEVICE_HPP
#define INFINICORE_TESTS_FAKE_DEVICE_HPP

#include "raw_device.hpp"

#include <cstdlib>
#include <map>
#include <mutex>
#include <set>

namespace infinicore::test {

class FakeDevice final : public detail::RawDevice {
public:
    explicit FakeDevice(size_t capacity = SIZE_MAX) : capacity_(capacity) {}
    ~FakeDevice() override {
        for (auto &[event, state] : events_) {
            delete static_cast<char *>(event);
        }
    }

    Device device() const override { return Device(Device::Type::NVIDIA, 0); }

    infiniStatus_t malloc(void **ptr, size_t size) override {
        std::lock_guard<std::mutex> lock(mutex_);
        if (size > capacity_ - used_) {
            error_ = "fake malloc: out of memory";
            return INFINI_STATUS_OUT_OF_MEMORY;
        }
        *ptr = std::aligned_alloc(512, size);
        used_ += size;
        sizes_[*ptr] = size;
        ++mallocs_;
        return INFINI_STATUS_SUCCESS;
    }
    infiniStatus_t free(void *ptr) override {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = sizes_.find(ptr);
        if (it == sizes_.end()) {
            return INFINI_STATUS_BAD_PARAM;
        }
        used_ -= it->second;
        sizes_.erase(it);
        std::free(ptr);
        ++frees_;
        return INFINI_STATUS_SUCCESS;
    }
    infiniStatus_t mallocHost(void **ptr, size_t size) override { return malloc(ptr, size); }
    infiniStatus_t freeHost(void *ptr) override { return free(ptr); }
    infiniStatus_t memInfo(size_t *free_bytes, size_t *total_bytes) override {
        std::lock_guard<std::mutex> lock(mutex_);
        *free_bytes = capacity_ - used_;
        *total_bytes = capacity_;
        return INFINI_STATUS_SUCCESS;
    }
    infiniStatus_t synchronize() override {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto &[event, state] : events_) {
            if (foreign_streams_.count(state.stream) == 0) {
                state.complete = true; // another device's streams are not this device's work
            }
        }
        return INFINI_STATUS_SUCCESS;
    }
    infiniStatus_t streamSynchronize(infinirtStream_t stream) override {
        std::lock_guard<std::mutex> lock(mutex_);
        if (broken_streams_.count(stream) != 0) {
            error_ = "fake stream synchronize: stream gone";
            return INFINI_STATUS_INVALID_HANDLE;
        }
        ++stream_syncs_[stream];
        for (auto &[event, state] : events_) {
            if (state.stream == stream) {
                state.complete = true;
            }
        }
        return INFINI_STATUS_SUCCESS;
    }
    infiniStatus_t eventCreate(infinirtEvent_t *event) override {
        std::lock_guard<std::mutex> lock(mutex_);
        *event = new char;
        events_[*event] = State{};
        return INFINI_STATUS_SUCCESS;
    }
    infiniStatus_t eventDestroy(infinirtEvent_t event) override {
        std::lock_guard<std::mutex> lock(mutex_);
        events_.erase(event);
        delete static_cast<char *>(event);
        return INFINI_STATUS_SUCCESS;
    }
    infiniStatus_t eventRecord(infinirtEvent_t event, infinirtStream_t stream) override {
        std::lock_guard<std::mutex> lock(mutex_);
        if (broken_streams_.count(stream) != 0) {
            error_ = "fake record: stream gone";
            return INFINI_STATUS_INVALID_HANDLE;
        }
        if (foreign_streams_.count(stream) != 0) {
            error_ = "fake record: the event belongs to nvidia:0 but the stream to nvidia:1";
            return INFINI_STATUS_BAD_PARAM;
        }
        events_[event] = State{stream, false};
        ++records_;
        return INFINI_STATUS_SUCCESS;
    }
    infiniStatus_t eventQuery(infinirtEvent_t event, bool *complete) override {
        std::lock_guard<std::mutex> lock(mutex_);
        *complete = events_[event].complete;
        return INFINI_STATUS_SUCCESS;
    }
    infiniStatus_t eventSynchronize(infinirtEvent_t event) override {
        std::lock_guard<std::mutex> lock(mutex_);
        events_[event].complete = true; // waiting lets the work finish
        return INFINI_STATUS_SUCCESS;
    }
    // An event "of the stream's device" for a foreign stream; refused for a broken stream and
    // for this device's own streams (the allocators only ask after a refused eventRecord).
    infiniStatus_t eventRecordOnStreamsDevice(infinirtEvent_t *event, infinirtStream_t stream) override {
        std::lock_guard<std::mutex> lock(mutex_);
        if (broken_streams_.count(stream) != 0 || foreign_streams_.count(stream) == 0) {
            error_ = "fake foreign record: no such stream of another device";
            return INFINI_STATUS_INVALID_HANDLE;
        }
        *event = new char;
        events_[*event] = State{stream, false};
        ++foreign_records_;
        return INFINI_STATUS_SUCCESS;
    }
    // No virtual memory: expandable segments fall back to segments of their own.
    infiniStatus_t memGranularity(size_t *) override { return noVirtualMemory(); }
    infiniStatus_t memReserve(void **, size_t) override { return noVirtualMemory(); }
    infiniStatus_t memFreeReservation(void *, size_t) override { return noVirtualMemory(); }
    infiniStatus_t memMap(void *, size_t) override { return noVirtualMemory(); }
    infiniStatus_t memUnmap(void *, size_t) override { return noVirtualMemory(); }
    std::string lastError() const override { return error_; }

    // Completes every event recorded on `stream` so far.
    void complete(infinirtStream_t stream) {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto &[event, state] : events_) {
            if (state.stream == stream) {
                state.complete = true;
            }
        }
    }
    void completeAll() {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto &[event, state] : events_) {
            state.complete = true;
        }
    }
    // Recording on `stream` fails from now on, as for a destroyed stream.
    void breakStream(infinirtStream_t stream) {
        std::lock_guard<std::mutex> lock(mutex_);
        broken_streams_.insert(stream);
    }
    // `stream` belongs to another device: recording this device's events on it fails (BAD_PARAM,
    // as the C ABI answers), and this device's synchronize() does not wait for it.
    void makeForeign(infinirtStream_t stream) {
        std::lock_guard<std::mutex> lock(mutex_);
        foreign_streams_.insert(stream);
    }
    size_t streamSyncs(infinirtStream_t stream) {
        std::lock_guard<std::mutex> lock(mutex_);
        return stream_syncs_[stream];
    }

    size_t mallocs() const { return mallocs_; }
    size_t frees() const { return frees_; }
    size_t records() const { return records_; }
    size_t foreignRecords() const { return foreign_records_; }
    // Events that exist now (created and not destroyed).
    size_t liveEvents() {
        std::lock_guard<std::mutex> lock(mutex_);
        return events_.size();
    }
    size_t used() const { return used_; }

private:
    infiniStatus_t noVirtualMemory() {
        std::lock_guard<std::mutex> lock(mutex_);
        error_ = "fake device: no virtual memory";
        return INFINI_STATUS_NOT_IMPLEMENTED;
    }

    struct State {
        infinirtStream_t stream = nullptr;
        bool complete = true; // never recorded: complete
    };
    std::mutex mutex_;
    size_t capacity_;
    size_t used_ = 0;
    size_t mallocs_ = 0, frees_ = 0, records_ = 0, foreign_records_ = 0;
    std::map<void *, size_t> sizes_;
    std::map<void *, State> events_;
    std::set<infinirtStream_t> broken_streams_;
    std::set<infinirtStream_t> foreign_streams_;
    std::map<infinirtStream_t, size_t> stream_syncs_;
    std::string error_;
};

// Distinct fake stream handles.
inline infinirtStream_t fakeStream(int n) { return reinterpret_cast<infinirtStream_t>(uintptr_t(0x1000) * n); }

} // namespace infinicore::test

#endif // INFINICORE_TESTS_FAKE_DEVICE_HPP
