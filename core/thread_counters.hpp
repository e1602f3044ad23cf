// Statistics kept per thread and merged on read, so that the allocation fast path never writes
// a cache line another thread writes.
#ifndef INFINICORE_CORE_THREAD_COUNTERS_HPP
#define INFINICORE_CORE_THREAD_COUNTERS_HPP

#include <atomic>
#include <cstdint>

namespace infinicore::detail {

// A counter with one writing thread and any number of readers: relaxed load + store instead of
// a locked read-modify-write, because nobody else writes it.
class OwnedCounter {
public:
    void add(int64_t delta) { value_.store(value_.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed); }
    void set(int64_t value) { value_.store(value, std::memory_order_relaxed); }
    int64_t get() const { return value_.load(std::memory_order_relaxed); }

private:
    std::atomic<int64_t> value_{0};
};

// A process-wide quantity (e.g. allocated bytes) whose changes threads accumulate privately and
// publish only when their private share reaches `threshold`. current = published + the sum of
// every thread's unpublished share (exact when read); peak is maintained by each writer as
// published + its own share, so it is exact for one thread and off by at most `threshold` per
// other concurrently active thread.
class SharedPeak {
public:
    explicit SharedPeak(int64_t threshold) : threshold_(threshold) {}

    // Called by the thread owning `unpublished` only.
    void add(OwnedCounter &unpublished, int64_t delta) {
        int64_t mine = unpublished.get() + delta;
        int64_t seen;
        if (mine >= threshold_ || mine <= -threshold_) {
            seen = published_.fetch_add(mine, std::memory_order_relaxed) + mine;
            unpublished.set(0);
        } else {
            unpublished.set(mine);
            seen = published_.load(std::memory_order_relaxed) + mine;
        }
        if (delta > 0) {
            raisePeak(seen);
        }
    }
    // Folds a departing thread's share in.
    void publish(OwnedCounter &unpublished) {
        published_.fetch_add(unpublished.get(), std::memory_order_relaxed);
        unpublished.set(0);
    }
    int64_t published() const { return published_.load(std::memory_order_relaxed); }
    int64_t peak() const { return peak_.load(std::memory_order_relaxed); }
    void raisePeak(int64_t value) {
        int64_t peak = peak_.load(std::memory_order_relaxed);
        while (value > peak && !peak_.compare_exchange_weak(peak, value, std::memory_order_relaxed)) {
        }
    }
    void resetPeak(int64_t current) { peak_.store(current, std::memory_order_relaxed); }

private:
    const int64_t threshold_;
    // Separate lines: published_ is written only when a thread publishes, peak_ only on a new
    // peak; keeping them apart keeps the readers of one from being invalidated by the other.
    alignas(64) std::atomic<int64_t> published_{0};
    alignas(64) std::atomic<int64_t> peak_{0};
};

} // namespace infinicore::detail

#endif // INFINICORE_CORE_THREAD_COUNTERS_HPP
