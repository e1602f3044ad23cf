#include "thread_cache.hpp"

#include <thread>

namespace infinicore::detail {

ThreadCache::ThreadCache(size_t capacity, size_t depth) : capacity_(capacity), depth_(depth) {}

ThreadCache::~ThreadCache() = default;

void ThreadCache::lock() {
    // Contended only while another thread drains this cache, which is short and rare.
    for (int spins = 0; locked_.exchange(true, std::memory_order_acquire); ++spins) {
        if (spins > 64) {
            std::this_thread::yield();
        }
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

ThreadCache::ClassList &ThreadCache::listFor(StreamBins &bins, const CachingBlock *block) {
    return block->small ? bins.small[block->size / kMinBlockSize] : bins.large;
}

void ThreadCache::unlink(ClassList &list, CachingBlock *block) {
    (block->class_prev ? block->class_prev->class_next : list.head) = block->class_next;
    (block->class_next ? block->class_next->class_prev : list.tail) = block->class_prev;
    --list.count;
    (block->lru_prev ? block->lru_prev->lru_next : lru_head_) = block->lru_next;
    (block->lru_next ? block->lru_next->lru_prev : lru_tail_) = block->lru_prev;
    bytes_ -= block->size;
}

CachingBlock *ThreadCache::pop(infinirtStream_t stream, size_t rounded) {
    lock();
    CachingBlock *found = nullptr;
    if (StreamBins *bins = findBins(stream)) {
        if (rounded <= kSmallSize) {
            ClassList &list = bins->small[rounded / kMinBlockSize];
            found = list.head;
            if (found != nullptr) {
                unlink(list, found);
            }
        } else {
            // Few large blocks: take the tightest fit, and never waste kSmallSize or more on a
            // request (the pool would have split such a block).
            for (CachingBlock *b = bins->large.head; b != nullptr; b = b->class_next) {
                if (b->size >= rounded && b->size - rounded < kSmallSize && (found == nullptr || b->size < found->size)) {
                    found = b;
                    if (b->size == rounded) {
                        break;
                    }
                }
            }
            if (found != nullptr) {
                unlink(bins->large, found);
            }
        }
        if (found != nullptr) {
            cached_bytes_.store(bytes_, std::memory_order_relaxed);
        }
    }
    unlock();
    return found;
}

CachingBlock *ThreadCache::evict(CachingBlock *victim, CachingBlock *chain) {
    StreamBins *bins = findBins(victim->stream);
    unlink(listFor(*bins, victim), victim);
    victim->class_next = chain;
    return victim;
}

CachingBlock *ThreadCache::push(CachingBlock *block) {
    if (block->size > capacity_ || depth_ == 0) {
        block->class_next = nullptr;
        return block;
    }
    lock();
    StreamBins *bins = findBins(block->stream);
    if (bins == nullptr) {
        bins_.push_back(std::make_unique<StreamBins>());
        bins = bins_.back().get();
        bins->stream = block->stream;
        last_bins_ = bins;
    }
    ClassList &list = listFor(*bins, block);
    block->class_prev = nullptr;
    block->class_next = list.head;
    (list.head ? list.head->class_prev : list.tail) = block;
    list.head = block;
    ++list.count;
    block->lru_prev = nullptr;
    block->lru_next = lru_head_;
    (lru_head_ ? lru_head_->lru_prev : lru_tail_) = block;
    lru_head_ = block;
    bytes_ += block->size;
    block->place.store(BlockPlace::ThreadCached, std::memory_order_relaxed);

    CachingBlock *evicted = nullptr;
    if (list.count > depth_) {
        evicted = evict(list.tail, evicted);
    }
    while (bytes_ > capacity_) {
        evicted = evict(lru_tail_, evicted);
    }
    cached_bytes_.store(bytes_, std::memory_order_relaxed);
    unlock();
    return evicted;
}

CachingBlock *ThreadCache::drain() {
    lock();
    CachingBlock *chain = nullptr;
    // Unlinked one by one: cheaper than resetting every size class when few blocks are cached.
    while (lru_tail_ != nullptr) {
        chain = evict(lru_tail_, chain);
    }
    cached_bytes_.store(0, std::memory_order_relaxed);
    unlock();
    return chain;
}

} // namespace infinicore::detail
