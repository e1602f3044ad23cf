#include "thread_cache.hpp"

#include "process_barrier.h"

#include <thread>

namespace infinicore::detail {

ThreadCache::ThreadCache(size_t capacity, size_t depth) : capacity_(capacity), depth_(depth) {}

ThreadCache::~ThreadCache() = default;

namespace {
void backOff(int &spins) {
    if (++spins > 64) {
        std::this_thread::yield();
    }
}
} // namespace

void ThreadCache::enterContended() {
    int spins = 0;
    do {
        while (foreign_in_.load(std::memory_order_relaxed)) {
            backOff(spins);
        }
    } while (!tryEnter());
}

void ThreadCache::enterForeign() {
    int spins = 0;
    while (foreign_in_.exchange(true, std::memory_order_seq_cst)) {
        backOff(spins);
    }
    infinirt::common::processWideBarrier();
    while (owner_in_.load(std::memory_order_seq_cst)) {
        backOff(spins);
    }
}

ThreadCache::StreamBins *ThreadCache::findBins(infinirtStream_t stream) {
    if (last_bins_ != nullptr && last_bins_->stream == stream) {
        return last_bins_;
    }
    for (auto &bins : bins_) {
        if (bins->stream == stream) {
            last_bins_ = bins.get();
            return last_bins_;
        }
    }
    return nullptr;
}

ThreadCache::StreamBins *ThreadCache::binsOf(infinirtStream_t stream) {
    if (StreamBins *bins = findBins(stream)) {
        return bins;
    }
    bins_.push_back(std::make_unique<StreamBins>());
    last_bins_ = bins_.back().get();
    last_bins_->stream = stream;
    return last_bins_;
}

void ThreadCache::unlink(ClassList &list, CachingBlock *block) {
    (block->class_prev ? block->class_prev->class_next : list.head) = block->class_next;
    (block->class_next ? block->class_next->class_prev : list.tail) = block->class_prev;
    --list.count;
    (block->lru_prev ? block->lru_prev->lru_next : lru_head_) = block->lru_next;
    (block->lru_next ? block->lru_next->lru_prev : lru_tail_) = block->lru_prev;
    bytes_ -= block->size;
}

CachingBlock *ThreadCache::popLarge(StreamBins &bins, size_t rounded) {
    // Few large blocks: take the tightest fit (the most recently freed of equals).
    CachingBlock *found = nullptr;
    for (CachingBlock *b = bins.large.head; b != nullptr; b = b->class_next) {
        if (fitsLarge(b, rounded) && (found == nullptr || b->size < found->size)) {
            found = b;
            if (b->size == rounded) {
                break;
            }
        }
    }
    if (found != nullptr) {
        unlink(bins.large, found);
        cached_bytes_.store(bytes_, std::memory_order_relaxed);
    }
    return found;
}

CachingBlock *ThreadCache::pop(infinirtStream_t stream, size_t rounded) {
    enter();
    CachingBlock *found = nullptr;
    if (StreamBins *bins = findBins(stream)) {
        found = rounded <= kSmallSize ? takeHead(bins->small[rounded / kMinBlockSize]) : popLarge(*bins, rounded);
    }
    leave();
    return found;
}

CachingBlock *ThreadCache::push(CachingBlock *block) {
    if (block->size > capacity_ || depth_ == 0) {
        block->class_next = nullptr;
        return block;
    }
    enter();
    ClassList &list = listFor(*binsOf(block->stream), block);
    link(list, block);
    bytes_ += block->size;
    CachingBlock *evicted = evictBeyondBounds(list);
    leave();
    return evicted;
}

CachingBlock *ThreadCache::evict(CachingBlock *victim, CachingBlock *chain) {
    StreamBins *bins = findBins(victim->stream);
    unlink(listFor(*bins, victim), victim);
    victim->class_next = chain;
    return victim;
}

CachingBlock *ThreadCache::evictBeyondBounds(ClassList &list) {
    CachingBlock *evicted = nullptr;
    if (list.count > depth_) {
        evicted = evict(list.tail, evicted);
    }
    while (bytes_ > capacity_) {
        evicted = evict(lru_tail_, evicted);
    }
    cached_bytes_.store(bytes_, std::memory_order_relaxed);
    return evicted;
}

CachingBlock *ThreadCache::takeAll() {
    CachingBlock *chain = nullptr;
    // Unlinked one by one: cheaper than resetting every size class when few blocks are cached.
    while (lru_tail_ != nullptr) {
        chain = evict(lru_tail_, chain);
    }
    cached_bytes_.store(0, std::memory_order_relaxed);
    return chain;
}

CachingBlock *ThreadCache::drain() {
    enter();
    CachingBlock *chain = takeAll();
    leave();
    return chain;
}

CachingBlock *ThreadCache::drainFromAnyThread() {
    enterForeign();
    CachingBlock *chain = takeAll();
    leaveForeign();
    return chain;
}

} // namespace infinicore::detail
