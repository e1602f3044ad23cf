// ThreadCache: the blocks one thread freed recently, kept for that thread's next requests of the
// same size on the same stream, in front of the allocator's shared pool.
//
// Ownership: created and owned by a DeviceCachingAllocator, one per (allocator, thread). The
// blocks in it stay out of the shared pool (they are neither coalesced nor counted as allocated)
// until popped, evicted, or drained. The allocator drains a thread's cache whenever that thread
// misses it, so blocks stay only while the thread keeps asking for the same sizes.
//
// Thread safety: pop(), popRecent(), push(), tryPush() and drain() are called by the owning thread
// only (or, for a cache shared by threads, under a lock of the caller's); drainFromAnyThread() by
// any thread (trim, out-of-memory). They exclude each other with a Dekker pair of flags: the owner
// raises `owner_in_` and checks `foreign_in_`, another thread raises `foreign_in_` and waits for
// `owner_in_` to fall. The fence between the owner's store and load is asymmetric
// (common/process_barrier.h): a compiler barrier on the owner's side, so that its side runs no
// locked instruction, and a process-wide barrier on the other thread's. The counters are written
// by the owner only and read by anyone.
//
// Bounds: at most `depth` blocks per (stream, size class) and `capacity` bytes in all; pushing
// beyond evicts the oldest blocks (least recently freed), which push() returns to its caller for
// the shared pool.
#ifndef INFINICORE_CORE_THREAD_CACHE_HPP
#define INFINICORE_CORE_THREAD_CACHE_HPP

#include "caching_block.hpp"
#include "thread_counters.hpp"

#include <atomic>
#include <memory>
#include <vector>

namespace infinicore::detail {

class ThreadCache {
public:
    ThreadCache(size_t capacity, size_t depth);
    ~ThreadCache();
    ThreadCache(const ThreadCache &) = delete;
    ThreadCache &operator=(const ThreadCache &) = delete;

    // A cached block of `stream` for a request of `rounded` bytes (a small block of exactly that
    // size, or a large one less than kSmallSize bigger), or nullptr.
    CachingBlock *pop(infinirtStream_t stream, size_t rounded);
    // pop() from the stream of the thread's last push or pop only, and for a large request
    // (rounded > kSmallSize) only when the most recently freed large block is the one pop() takes:
    // it fits and is either exactly `rounded` bytes or the only large block. nullptr otherwise
    // (pop() then finds the block, if any), and while another thread drains the cache. Calls
    // nothing.
    CachingBlock *popRecent(infinirtStream_t stream, size_t rounded) {
        if (!tryEnter()) {
            return nullptr;
        }
        CachingBlock *found = nullptr;
        StreamBins *bins = last_bins_;
        if (bins != nullptr && bins->stream == stream) {
            if (rounded <= kSmallSize) {
                found = takeHead(bins->small[rounded / kMinBlockSize]);
            } else if (CachingBlock *head = bins->large.head;
                       head != nullptr && fitsLarge(head, rounded) &&
                       (head->size == rounded || head->class_next == nullptr)) {
                found = takeHead(bins->large);
            }
        }
        leave();
        return found;
    }
    // Caches `block`. Returns the blocks (chained through class_next) that must go back to the
    // pool: the ones evicted to make room, or `block` itself when it can never fit.
    CachingBlock *push(CachingBlock *block);
    // Caches `block` if that evicts nothing and its stream is that of the thread's last push or
    // pop, and no other thread is draining the cache; else does nothing and returns false (push()
    // then caches it). Calls nothing.
    bool tryPush(CachingBlock *block) {
        if (!tryEnter()) {
            return false;
        }
        StreamBins *bins = last_bins_;
        if (bins != nullptr && bins->stream == block->stream) {
            ClassList &list = listFor(*bins, block);
            const size_t bytes = bytes_ + block->size;
            if (list.count < depth_ && bytes <= capacity_) {
                link(list, block);
                setBytes(bytes);
                leave();
                return true;
            }
        }
        leave();
        return false;
    }
    // Takes every block out, chained through class_next: drain() by the owner, drainFromAnyThread()
    // by any thread (it waits for the owner to leave the cache; a heavy fence each call).
    CachingBlock *drain();
    CachingBlock *drainFromAnyThread();

    size_t cachedBytes() const { return cached_bytes_.load(std::memory_order_relaxed); }

    // Owner-written statistics, merged by the allocator: the requests served from this cache,
    // from the shared pool and from new device memory, and the frees.
    OwnedCounter thread_cache_hits;
    OwnedCounter pool_hits;
    OwnedCounter device_allocs;
    OwnedCounter frees;
    OwnedCounter unpublished_bytes;
    OwnedCounter unpublished_blocks;

private:
    struct ClassList {
        CachingBlock *head = nullptr; // most recently freed
        CachingBlock *tail = nullptr;
        size_t count = 0;
    };
    // One per stream the thread freed blocks of; small lists indexed by size / kMinBlockSize.
    struct StreamBins {
        infinirtStream_t stream = nullptr;
        ClassList large;
        ClassList small[kSmallSize / kMinBlockSize + 1];
    };

    // The owner's side: in the cache unless another thread is (tryEnter() then returns false;
    // enter() waits for it, which is short and rare).
    bool tryEnter() {
        owner_in_.store(true, std::memory_order_relaxed);
        std::atomic_signal_fence(std::memory_order_seq_cst); // the light side: enterForeign's barrier
        if (__builtin_expect(foreign_in_.load(std::memory_order_seq_cst), false)) {
            leave();
            return false;
        }
        return true;
    }
    void enter() {
        if (!tryEnter()) {
            enterContended();
        }
    }
    void enterContended();
    void leave() { owner_in_.store(false, std::memory_order_release); }
    // Another thread's side: waits for other such threads and for the owner to leave.
    void enterForeign();
    void leaveForeign() { foreign_in_.store(false, std::memory_order_release); }
    // drain()'s body, in the cache.
    CachingBlock *takeAll();
    void setBytes(size_t bytes) {
        bytes_ = bytes;
        cached_bytes_.store(bytes, std::memory_order_relaxed);
    }
    // The bins of `stream` (remembered in last_bins_), or nullptr.
    StreamBins *findBins(infinirtStream_t stream);
    // The same, made if the thread has none for `stream` yet.
    StreamBins *binsOf(infinirtStream_t stream);
    static ClassList &listFor(StreamBins &bins, const CachingBlock *block) {
        return block->small ? bins.small[block->size / kMinBlockSize] : bins.large;
    }
    // The head of `list` (the most recently freed), taken out of both lists, or nullptr.
    CachingBlock *takeHead(ClassList &list) {
        CachingBlock *block = list.head;
        if (block == nullptr) {
            return nullptr;
        }
        list.head = block->class_next;
        (block->class_next ? block->class_next->class_prev : list.tail) = nullptr;
        --list.count;
        (block->lru_prev ? block->lru_prev->lru_next : lru_head_) = block->lru_next;
        (block->lru_next ? block->lru_next->lru_prev : lru_tail_) = block->lru_prev;
        setBytes(bytes_ - block->size);
        return block;
    }
    // Puts `block` at the head of `list` and of the age list; bytes_ is the caller's to update.
    void link(ClassList &list, CachingBlock *block) {
        block->class_prev = nullptr;
        block->class_next = list.head;
        (list.head ? list.head->class_prev : list.tail) = block;
        list.head = block;
        ++list.count;
        block->lru_prev = nullptr;
        block->lru_next = lru_head_;
        (lru_head_ ? lru_head_->lru_prev : lru_tail_) = block;
        lru_head_ = block;
        block->place.store(BlockPlace::ThreadCached, std::memory_order_relaxed);
    }
    void unlink(ClassList &list, CachingBlock *block);
    // Whether large `block` may serve a request of `rounded` bytes: it holds it and wastes less
    // than kSmallSize (the pool would have split a block wasting more).
    static bool fitsLarge(const CachingBlock *block, size_t rounded) {
        return block->size - rounded < kSmallSize; // unsigned: also false when block->size < rounded
    }
    // The tightest large block for `rounded`, unlinked, or nullptr.
    CachingBlock *popLarge(StreamBins &bins, size_t rounded);
    CachingBlock *evict(CachingBlock *victim, CachingBlock *chain);
    // After a push into `list`: evicts the oldest blocks until depth_ and capacity_ hold; they are
    // returned, chained.
    CachingBlock *evictBeyondBounds(ClassList &list);

    std::atomic<bool> owner_in_{false};   // written by the owner only
    std::atomic<bool> foreign_in_{false}; // held by one other thread at a time
    const size_t capacity_;
    const size_t depth_;
    size_t bytes_ = 0;
    std::atomic<size_t> cached_bytes_{0};
    StreamBins *last_bins_ = nullptr;
    std::vector<std::unique_ptr<StreamBins>> bins_;
    CachingBlock *lru_head_ = nullptr; // most recently freed
    CachingBlock *lru_tail_ = nullptr;
};

} // namespace infinicore::detail

#endif // INFINICORE_CORE_THREAD_CACHE_HPP
