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
// publish only when their private share reaches the threshold either way. current = published +
// the sum of every thread's unpublished share (exact when read); peak is maintained by each writer
// as published + its own share, so it is exact for one thread and off by at most the threshold per
// other concurrently active thread. The threshold is `Threshold`, or when that is 0 the one given
// to the constructor.
template <int64_t Threshold = 0>
class SharedPeak {
public:
    SharedPeak() : SharedPeak(Threshold) { static_assert(Threshold > 0, "SharedPeak<0> takes its threshold"); }
    explicit SharedPeak(int64_t threshold) : bias_(static_cast<uint64_t>(threshold - 1)), span_(2 * bias_) {}

    // Called by the thread owning `unpublished` only; delta >= 0.
    void increase(OwnedCounter &unpublished, int64_t delta) {
        const int64_t mine = unpublished.get() + delta;
        if (!withinThreshold(mine)) {
            raisePeak(publishShare(unpublished, mine));
            return;
        }
        unpublished.set(mine);
        const int64_t seen = published_.load(std::memory_order_relaxed) + mine;
        if (seen > peak_.load(std::memory_order_relaxed)) {
            raisePeak(seen);
        }
    }
    // Called by the thread owning `unpublished` only; delta >= 0.
    void decrease(OwnedCounter &unpublished, int64_t delta) {
        const int64_t mine = unpublished.get() - delta;
        if (!withinThreshold(mine)) {
            (void)publishShare(unpublished, mine);
            return;
        }
        unpublished.set(mine);
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
    // -threshold < share < threshold, in one unsigned comparison.
    bool withinThreshold(int64_t share) const {
        if constexpr (Threshold > 0) {
            return static_cast<uint64_t>(share) + static_cast<uint64_t>(Threshold - 1) <=
                   static_cast<uint64_t>(2 * Threshold - 2);
        }
        return static_cast<uint64_t>(share) + bias_ <= span_;
    }
    // Moves the thread's whole share `mine` into published_; the published value it made.
    int64_t publishShare(OwnedCounter &unpublished, int64_t mine) {
        unpublished.set(0);
        return published_.fetch_add(mine, std::memory_order_relaxed) + mine;
    }

    // Separate lines: published_ is written only when a thread publishes, peak_ only on a new
    // peak; keeping them apart keeps the readers of one from being invalidated by the other.
    const uint64_t bias_; // threshold - 1 (threshold >= 1), when Threshold is 0
    const uint64_t span_; // 2 * (threshold - 1)
    alignas(64) std::atomic<int64_t> published_{0};
    alignas(64) std::atomic<int64_t> peak_{0};
};

} // namespace infinicore::detail

#endif // INFINICORE_CORE_THREAD_COUNTERS_HPP
