#include "device_caching_allocator.hpp"

#include "infinicore/error.hpp"
#include "memory_stat_ops.hpp"
#include "out_of_memory.hpp"

#include <algorithm>
#include <cstdio>

namespace infinicore::detail {

namespace {

// Requests above this cannot be rounded without overflowing; no device has that much memory.
constexpr size_t kMaxRequest = SIZE_MAX / 2;

std::atomic<uint64_t> g_next_id{1};

// Which allocators exist, so that a thread exiting after an allocator died does not touch it.
// Leaked: threads may exit while static destructors run.
struct LiveAllocators {
    std::mutex mutex;
    std::unordered_map<uint64_t, DeviceCachingAllocator *> by_id;
};
LiveAllocators &liveAllocators() {
    static auto *live = new LiveAllocators;
    return *live;
}

// The fast path reads this first: trivially destructible, so no TLS wrapper call, and
// initial-exec so that no __tls_get_addr call either.
struct Memo {
    uint64_t id;
    ThreadCache *cache;
};
#if defined(__GNUC__)
__attribute__((tls_model("initial-exec")))
#endif
thread_local Memo t_memo{0, nullptr};
thread_local bool t_exiting = false;

// Every cache this thread has, retired when the thread exits.
struct ThreadTable {
    std::vector<std::pair<uint64_t, ThreadCache *>> entries;
    ~ThreadTable() {
        t_exiting = true;
        t_memo = Memo{0, nullptr};
        LiveAllocators &live = liveAllocators();
        std::lock_guard<std::mutex> lock(live.mutex);
        for (auto &[id, cache] : entries) {
            auto it = live.by_id.find(id);
            if (it != live.by_id.end()) {
                it->second->retire(cache);
            }
        }
    }
};
thread_local ThreadTable t_table;

uintptr_t address(const void *ptr) { return reinterpret_cast<uintptr_t>(ptr); }

size_t roundUp(size_t n, size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

// A thread publishes its share of the allocated bytes when it moves by 1/512 of the device's memory
// (at least 1 MiB): the peak's bound with several threads (memory_stats.hpp), and what keeps the
// cache-hit allocate and free of a block smaller than that free of shared writes.
int64_t sharedByteThreshold(RawDevice &device) {
    constexpr int64_t kFloor = int64_t(1) << 20;
    size_t free_bytes = 0, total_bytes = 0;
    if (device.memInfo(&free_bytes, &total_bytes) != INFINI_STATUS_SUCCESS) {
        return kFloor;
    }
    return std::max(kFloor, static_cast<int64_t>(std::min<size_t>(total_bytes / 512, size_t(1) << 40)));
}

// Once per process, whichever allocator finds it first.
void warnNoVirtualMemory(const Device &device, const std::string &why) {
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true)) {
        std::fprintf(stderr,
                     "infinicore: warning: INFINICORE_ALLOC_CONF asks for expandable_segments, but %s has no virtual "
                     "memory (%s): its allocator uses segments of their own\n",
                     device.toString().c_str(), why.c_str());
    }
}

} // namespace

DeviceCachingAllocator::DeviceCachingAllocator(std::shared_ptr<RawDevice> device, AllocatorConfig config)
    : id_(g_next_id.fetch_add(1)), device_(std::move(device)), config_(config),
      allocated_bytes_(sharedByteThreshold(*device_)), expandable_(config.expandable_segments) {
    LiveAllocators &live = liveAllocators();
    std::lock_guard<std::mutex> lock(live.mutex);
    live.by_id.emplace(id_, this);
}

DeviceCachingAllocator::~DeviceCachingAllocator() {
    {
        LiveAllocators &live = liveAllocators();
        std::lock_guard<std::mutex> lock(live.mutex);
        live.by_id.erase(id_);
    }
    // No thread can retire a cache any more; the threads' tables keep dangling entries that no
    // live allocator id matches.
    for (ThreadCache *cache : caches_) {
        delete cache;
    }
    events_.waitAndDestroyLocked();
    for (auto &[at, head] : segment_heads_) {
        if (head->expandable == nullptr) {
            (void)device_->free(head->ptr);
        }
        for (Block *b = head; b != nullptr;) {
            Block *next = b->next;
            delete b;
            b = next;
        }
    }
    ranges_.clear(); // unmaps what is mapped and frees the ranges
}

// ---- per-thread caches ------------------------------------------------------------------------

inline ThreadCache *DeviceCachingAllocator::localCache() {
    if (t_memo.id == id_) {
        return t_memo.cache;
    }
    return registerThread();
}

ThreadCache *DeviceCachingAllocator::registerThread() {
    if (t_exiting) {
        return nullptr;
    }
    ThreadTable &table = t_table;
    for (auto &[id, cache] : table.entries) {
        if (id == id_) {
            t_memo = Memo{id_, cache};
            return cache;
        }
    }
    {
        // Forget the caches of allocators that have died since (they deleted them).
        LiveAllocators &live = liveAllocators();
        std::lock_guard<std::mutex> lock(live.mutex);
        table.entries.erase(std::remove_if(table.entries.begin(), table.entries.end(),
                                           [&](const auto &entry) { return live.by_id.count(entry.first) == 0; }),
                            table.entries.end());
    }
    auto cache = std::make_unique<ThreadCache>(config_.thread_cache_bytes, config_.thread_cache_depth);
    table.entries.reserve(table.entries.size() + 1);
    {
        std::lock_guard<std::mutex> lock(registry_mutex_);
        caches_.push_back(cache.get());
    }
    table.entries.emplace_back(id_, cache.get());
    t_memo = Memo{id_, cache.get()};
    return cache.release();
}

void DeviceCachingAllocator::retire(ThreadCache *cache) noexcept {
    returnToPool(cache->drain());
    std::lock_guard<std::mutex> lock(registry_mutex_);
    caches_.erase(std::find(caches_.begin(), caches_.end(), cache));
    retired_thread_cache_hits_ += cache->thread_cache_hits.get();
    retired_pool_hits_ += cache->pool_hits.get();
    retired_device_allocs_ += cache->device_allocs.get();
    retired_frees_ += cache->frees.get();
    allocated_bytes_.publish(cache->unpublished_bytes);
    allocated_blocks_.publish(cache->unpublished_blocks);
    delete cache;
}

size_t DeviceCachingAllocator::threadCachedBytes() const {
    std::lock_guard<std::mutex> lock(registry_mutex_);
    size_t bytes = 0;
    for (const ThreadCache *cache : caches_) {
        bytes += cache->cachedBytes();
    }
    return bytes;
}

void DeviceCachingAllocator::drainThreadCaches() noexcept {
    std::lock_guard<std::mutex> lock(registry_mutex_);
    for (ThreadCache *cache : caches_) {
        returnToPool(cache->drainFromAnyThread());
    }
}

// ---- allocation -------------------------------------------------------------------------------

[[gnu::always_inline]] inline DeviceCachingAllocator::Block *
DeviceCachingAllocator::handOut(ThreadCache *cache, Block *block, Source source) {
    switch (source) {
    case Source::ThreadCache: cache->thread_cache_hits.add(1); break;
    case Source::Pool: cache->pool_hits.add(1); break;
    case Source::Device: cache->device_allocs.add(1); break;
    }
    allocated_bytes_.increase(cache->unpublished_bytes, static_cast<int64_t>(block->size));
    allocated_blocks_.increase(cache->unpublished_blocks, 1);
    block->place.store(BlockPlace::Caller, std::memory_order_relaxed);
    return block;
}

DeviceCachingAllocator::Block *DeviceCachingAllocator::allocateWith(ThreadCache *cache, size_t size,
                                                                    infinirtStream_t stream) {
    const size_t rounded = roundSize(size);
    if (Block *block = cache->pop(stream, rounded)) {
        return handOut(cache, block, Source::ThreadCache);
    }
    return allocateFromPool(cache, size, rounded, stream);
}

DeviceCachingAllocator::Block *DeviceCachingAllocator::allocate(size_t size, infinirtStream_t stream) {
    // The fast path calls nothing but in its tail. The memo names this allocator only with the
    // thread's (live) cache.
    if (t_memo.id == id_ && size <= kMaxRequest) {
        ThreadCache *cache = t_memo.cache;
        if (Block *block = cache->popRecent(stream, roundSize(size))) {
            return handOut(cache, block, Source::ThreadCache);
        }
        return allocateWith(cache, size, stream);
    }
    return allocateSlow(size, stream);
}

DeviceCachingAllocator::Block *DeviceCachingAllocator::allocateSlow(size_t size, infinirtStream_t stream) {
    if (size > kMaxRequest) {
        throwOutOfMemory(size, false, "the request is larger than any device");
    }
    if (ThreadCache *cache = localCache()) {
        return allocateWith(cache, size, stream);
    }
    std::lock_guard<std::mutex> lock(orphan_mutex_);
    return allocateWith(&orphan_, size, stream);
}

DeviceCachingAllocator::Block *DeviceCachingAllocator::allocateFromPool(ThreadCache *cache, size_t size,
                                                                        size_t rounded, infinirtStream_t stream) {
    // A miss means the thread now wants sizes its cache does not hold: what the cache holds
    // goes back to the pool, where it coalesces and can be split for this request. The cache
    // thus only keeps blocks for as long as the thread keeps asking for the same sizes, and
    // never fragments memory more than the pool alone would.
    Block *mine = cache->drain();
    PoolRequest request(size, rounded, stream);
    std::unique_lock<std::mutex> pool_lock(mutex_);
    releaseChainLocked(mine);
    if (!events_.emptyLocked()) {
        processEventsLocked(false);
    }
    // The pool lock is held throughout, except inside the two steps given it: they drop it while
    // they drain the thread caches.
    // clang-format off
    const bool served =
        takeFreeLocked(request)                                         // take from the pool,
        || (drainCachesToPool(pool_lock) && takeFreeLocked(request))    // or drain the caches and take;
        || growLocked(request)                                          // else grow,
        || (reclaimFreedBlocks(pool_lock) && takeFreeLocked(request))   // or reclaim all that was freed and take,
        || (releaseUnusedSegmentsLocked() && retryGrowLocked(request)); // or release unused segments and grow.
    // clang-format on
    if (!served) {
        ++ooms_;
        pool_lock.unlock();
        throwOutOfMemory(size, true, request.device_error);
    }
    Block *block = claimLocked(request);
    pool_lock.unlock();
    return handOut(cache, block, request.source);
}

bool DeviceCachingAllocator::takeFreeLocked(PoolRequest &request) {
    FreeSet &set = request.small ? small_free_ : large_free_;
    Block key;
    key.stream = request.stream;
    key.size = request.rounded;
    auto it = set.lower_bound(&key);
    if (it == set.end() || (*it)->stream != request.stream) {
        return false;
    }
    Block *block = *it;
    const size_t max_split = config_.max_split_size;
    if (max_split != SIZE_MAX) {
        // Unsplittable huge blocks serve only requests of about their size.
        if (request.rounded < max_split && block->size >= max_split) {
            return false;
        }
        if (request.rounded >= max_split && block->size - request.rounded >= kLargeSegment) {
            return false;
        }
    }
    eraseFreeLocked(block);
    request.block = block;
    return true;
}

bool DeviceCachingAllocator::drainCachesToPool(std::unique_lock<std::mutex> &pool_lock) {
    // Before the device grows the reservation, give back what the threads' caches hoard (blocks
    // of other sizes cannot serve this request from there, but coalesced in the pool they may):
    // the caches then never make the footprint larger than without them.
    pool_lock.unlock();
    const bool any = threadCachedBytes() > 0;
    if (any) {
        drainThreadCaches();
    }
    pool_lock.lock();
    return any;
}

bool DeviceCachingAllocator::growLocked(PoolRequest &request) {
    if (expandable_) {
        if (ExpandableSegment *range = expandableSegmentLocked(request)) {
            return growExpandableLocked(request, *range);
        }
        if (expandable_) {
            return false; // no address space left for the range
        }
    }
    const int64_t above_peak =
        reserved_bytes_.current + static_cast<int64_t>(request.segment_size) - reserved_bytes_.peak;
    if (config_.release_before_growth && above_peak > 0) {
        // The new segment would raise the high-water mark: unused segments go first.
        releaseSegmentsLocked(above_peak);
    }
    void *ptr = nullptr;
    if (infiniStatus_t status = device_->malloc(&ptr, request.segment_size)) {
        return growthFailed(status, request, "infinirtMalloc(" + formatBytes(request.segment_size) + ")");
    }
    request.block = newSegmentLocked(ptr, request.segment_size, request.stream, request.small);
    request.source = Source::Device;
    return true;
}

ExpandableSegment *DeviceCachingAllocator::expandableSegmentLocked(PoolRequest &request) {
    const auto key = std::make_pair(request.stream, request.small);
    if (auto it = ranges_.find(key); it != ranges_.end()) {
        return it->second.get();
    }
    if (page_ == 0) {
        size_t granularity = 0;
        const infiniStatus_t status = device_->memGranularity(&granularity);
        if (status == INFINI_STATUS_NOT_IMPLEMENTED) {
            expandable_ = false;
            warnNoVirtualMemory(device(), device_->lastError());
            return nullptr;
        }
        if (status != INFINI_STATUS_SUCCESS) {
            throw Error(status, "infinirtMemGetAllocationGranularity on " + device().toString(), device_->lastError());
        }
        size_t free_bytes = 0, total_bytes = 0;
        if (infiniStatus_t st = device_->memInfo(&free_bytes, &total_bytes)) {
            throw Error(st, "infinirtGetMemInfo on " + device().toString(), device_->lastError());
        }
        page_ = roundUp(kSmallSegment, granularity);
        // As large as the device: a range never fills before the device does.
        range_size_ = roundUp(std::max(total_bytes, page_), page_);
    }
    std::unique_ptr<ExpandableSegment> range;
    const infiniStatus_t status =
        ExpandableSegment::create(*device_, request.stream, request.small, page_, range_size_, &range);
    if (status == INFINI_STATUS_NOT_IMPLEMENTED) {
        expandable_ = false;
        warnNoVirtualMemory(device(), device_->lastError());
        return nullptr;
    }
    if (status != INFINI_STATUS_SUCCESS) {
        (void)growthFailed(status, request, "infinirtMemAddressReserve(" + formatBytes(range_size_) + ")");
        return nullptr;
    }
    auto whole = std::make_unique<Block>();
    whole->ptr = range->base();
    whole->size = range->size();
    whole->stream = request.stream;
    whole->small = request.small;
    whole->expandable = range.get();
    whole->place.store(BlockPlace::Unmapped, std::memory_order_relaxed);
    const uintptr_t base = address(range->base());
    segment_heads_.emplace(base, whole.get());
    unmapped_.emplace(base, whole.release());
    add(segments_, 1);
    return ranges_.emplace(key, std::move(range)).first->second.get();
}

bool DeviceCachingAllocator::growExpandableLocked(PoolRequest &request, ExpandableSegment &range) {
    // The lowest unmapped stretch that, with the free block just below it, holds the request.
    Block *stretch = nullptr, *below = nullptr;
    const uintptr_t end = address(range.base()) + range.size();
    for (auto it = unmapped_.lower_bound(address(range.base())); it != unmapped_.end() && it->first < end; ++it) {
        Block *gap = it->second;
        Block *free = gap->prev != nullptr && gap->prev->place.load(std::memory_order_relaxed) == BlockPlace::Pool
                          ? gap->prev
                          : nullptr;
        if (gap->size + (free != nullptr ? free->size : 0) >= request.rounded) {
            stretch = gap;
            below = free;
            break;
        }
    }
    if (stretch == nullptr) {
        request.device_error = "the " + formatBytes(range.size()) + " reserved for the stream's " +
                                (request.small ? "small" : "large") + " pool are all in use";
        return false;
    }
    const size_t bytes = roundUp(request.rounded - (below != nullptr ? below->size : 0), page_);
    const int64_t above_peak = reserved_bytes_.current + static_cast<int64_t>(bytes) - reserved_bytes_.peak;
    if (config_.release_before_growth && above_peak > 0) {
        // Unmapping elsewhere never removes `stretch` (the lower block of a merge stays).
        releaseSegmentsLocked(above_peak, below);
    }
    if (infiniStatus_t status = range.map(static_cast<char *>(stretch->ptr), bytes)) {
        return growthFailed(status, request, "infinirtMemMap(" + formatBytes(bytes) + ")");
    }
    unmapped_.erase(address(stretch->ptr));
    if (bytes < stretch->size) {
        Block *rest = splitOffLocked(stretch, bytes);
        rest->place.store(BlockPlace::Unmapped, std::memory_order_relaxed);
        unmapped_.emplace(address(rest->ptr), rest);
    }
    add(reserved_bytes_, static_cast<int64_t>(bytes));
    ++device_allocs_;
    releaseLocked(stretch); // merges into `below`
    Block *grown = below != nullptr ? below : stretch;
    eraseFreeLocked(grown);
    request.block = grown;
    request.source = Source::Device;
    return true;
}

bool DeviceCachingAllocator::growthFailed(infiniStatus_t status, PoolRequest &request, const std::string &call) {
    if (status != INFINI_STATUS_OUT_OF_MEMORY) {
        throw Error(status, call + " on " + device().toString(), device_->lastError());
    }
    request.device_error = device_->lastError();
    return false;
}

bool DeviceCachingAllocator::reclaimFreedBlocks(std::unique_lock<std::mutex> &pool_lock) {
    // The device is out of memory: whatever is cached anywhere may make room, the threads'
    // caches and the blocks waiting for events first (they may fit in the pool as they are),
    // whole unused segments after that (releaseUnusedSegmentsLocked).
    pool_lock.unlock();
    drainThreadCaches();
    pool_lock.lock();
    processEventsLocked(true);
    return true;
}

bool DeviceCachingAllocator::releaseUnusedSegmentsLocked() {
    releaseSegmentsLocked();
    releaseEmptyRangesLocked();
    return true;
}

bool DeviceCachingAllocator::retryGrowLocked(PoolRequest &request) {
    ++retries_;
    return growLocked(request);
}

DeviceCachingAllocator::Block *DeviceCachingAllocator::claimLocked(PoolRequest &request) {
    // Marked before the pool mutex is released, so that no free of a neighbour merges it.
    request.block->place.store(BlockPlace::Caller, std::memory_order_relaxed);
    Block *block = splitLocked(request.block, request.rounded);
    held_.emplace(block->ptr, block);
    return block;
}

void DeviceCachingAllocator::throwOutOfMemory(size_t size, bool retried, const std::string &why) {
    const MemoryStats now = stats();
    OutOfMemoryReport report;
    report.memory = "memory on " + device().toString();
    report.requested = size;
    report.allocated = static_cast<size_t>(std::max<int64_t>(now.allocated_bytes.current, 0));
    report.reserved = static_cast<size_t>(now.reserved_bytes.current);
    size_t free_bytes = 0, total_bytes = 0;
    if (device_->memInfo(&free_bytes, &total_bytes) == INFINI_STATUS_SUCCESS) {
        report.free_bytes = free_bytes;
    }
    report.retried = retried;
    report.detail = why;
    detail::throwOutOfMemory("DeviceCachingAllocator::allocate", report);
}

// ---- free -------------------------------------------------------------------------------------

void DeviceCachingAllocator::deallocate(Block *block) noexcept {
    if (t_memo.id == id_ && block->stream_uses.empty()) {
        // The fast path calls nothing but in its tail.
        ThreadCache *cache = t_memo.cache;
        countFree(cache, block);
        if (!cache->tryPush(block)) {
            pushOrReturn(cache, block);
        }
        return;
    }
    deallocateSlow(block);
}

void DeviceCachingAllocator::pushOrReturn(ThreadCache *cache, Block *block) noexcept {
    if (Block *back = cache->push(block)) {
        returnToPool(back);
    }
}

void DeviceCachingAllocator::deallocateSlow(Block *block) noexcept {
    ThreadCache *cache = nullptr;
    try {
        cache = localCache();
    } catch (...) {
        cache = nullptr; // no memory for a cache: count this free with the orphans
    }
    if (cache == nullptr) {
        std::lock_guard<std::mutex> lock(orphan_mutex_);
        deallocateWith(&orphan_, block);
        return;
    }
    deallocateWith(cache, block);
}

[[gnu::always_inline]] inline void DeviceCachingAllocator::countFree(ThreadCache *cache, const Block *block) noexcept {
    cache->frees.add(1);
    allocated_bytes_.decrease(cache->unpublished_bytes, static_cast<int64_t>(block->size));
    allocated_blocks_.decrease(cache->unpublished_blocks, 1);
}

void DeviceCachingAllocator::deallocateWith(ThreadCache *cache, Block *block) noexcept {
    countFree(cache, block);
    if (!block->stream_uses.empty()) {
        freeWithEvents(block);
        return;
    }
    pushOrReturn(cache, block);
}

void DeviceCachingAllocator::returnToPool(Block *chain) noexcept {
    if (chain == nullptr) {
        return;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    releaseChainLocked(chain);
}

void DeviceCachingAllocator::freeWithEvents(Block *block) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.recordLocked(block, block->stream_uses);
    block->stream_uses.clear();
    if (block->pending_events == 0) {
        releaseLocked(block);
        return;
    }
    block->place.store(BlockPlace::PendingEvents, std::memory_order_relaxed);
    pending_bytes_ += static_cast<int64_t>(block->size);
    active_peak_ = std::max(active_peak_, allocated_bytes_.published() + pending_bytes_);
}

void DeviceCachingAllocator::processEventsLocked(bool wait) {
    events_.processLocked(wait, [this](Block *block) {
        pending_bytes_ -= static_cast<int64_t>(block->size);
        releaseLocked(block);
    });
}

void DeviceCachingAllocator::processEvents() {
    std::lock_guard<std::mutex> lock(mutex_);
    processEventsLocked(false);
}

// ---- the pool ---------------------------------------------------------------------------------

void DeviceCachingAllocator::insertFreeLocked(Block *block) {
    block->place.store(BlockPlace::Pool, std::memory_order_relaxed);
    (block->small ? small_free_ : large_free_).insert(block);
    if (block->isSplit()) {
        add(inactive_split_bytes_, static_cast<int64_t>(block->size));
    }
}

void DeviceCachingAllocator::eraseFreeLocked(Block *block) {
    (block->small ? small_free_ : large_free_).erase(block);
    if (block->isSplit()) {
        add(inactive_split_bytes_, -static_cast<int64_t>(block->size));
    }
}

DeviceCachingAllocator::Block *DeviceCachingAllocator::newSegmentLocked(void *ptr, size_t size,
                                                                        infinirtStream_t stream, bool small) {
    auto block = std::make_unique<Block>();
    block->ptr = ptr;
    block->size = size;
    block->stream = stream;
    block->small = small;
    segment_heads_.emplace(reinterpret_cast<uintptr_t>(ptr), block.get());
    add(reserved_bytes_, static_cast<int64_t>(size));
    add(segments_, 1);
    ++device_allocs_;
    return block.release();
}

DeviceCachingAllocator::Block *DeviceCachingAllocator::splitLocked(Block *block, size_t rounded) {
    const size_t remaining = block->size - rounded;
    // Pages mapped into a range cost no new segment: expandable blocks split as small ones do.
    const bool split = block->small || block->expandable != nullptr
                           ? remaining >= kMinBlockSize
                           : block->size <= config_.max_split_size && remaining > kSmallSize;
    if (split) {
        insertFreeLocked(splitOffLocked(block, rounded));
    }
    return block;
}

DeviceCachingAllocator::Block *DeviceCachingAllocator::splitOffLocked(Block *block, size_t offset) {
    auto rest = std::make_unique<Block>();
    rest->ptr = static_cast<char *>(block->ptr) + offset;
    rest->size = block->size - offset;
    rest->stream = block->stream;
    rest->small = block->small;
    rest->expandable = block->expandable;
    rest->prev = block;
    rest->next = block->next;
    if (block->next != nullptr) {
        block->next->prev = rest.get();
    }
    block->next = rest.get();
    block->size = offset;
    return rest.release();
}

void DeviceCachingAllocator::absorbNextLocked(Block *block) {
    Block *next = block->next;
    block->size += next->size;
    block->next = next->next;
    if (next->next != nullptr) {
        next->next->prev = block;
    }
    delete next;
}

void DeviceCachingAllocator::releaseLocked(Block *block) {
    held_.erase(block->ptr);
    block->stream_uses.clear();
    // Keep the lower block of a merged pair: segment heads then never move.
    if (Block *prev = block->prev; prev != nullptr && prev->place.load(std::memory_order_relaxed) == BlockPlace::Pool) {
        eraseFreeLocked(prev);
        absorbNextLocked(prev);
        block = prev;
    }
    if (Block *next = block->next; next != nullptr && next->place.load(std::memory_order_relaxed) == BlockPlace::Pool) {
        eraseFreeLocked(next);
        absorbNextLocked(block);
    }
    insertFreeLocked(block);
}

void DeviceCachingAllocator::releaseChainLocked(Block *chain) {
    while (chain != nullptr) {
        Block *next = chain->class_next;
        releaseLocked(chain);
        chain = next;
    }
}

void DeviceCachingAllocator::releaseSegmentsLocked(int64_t needed, const Block *keep) {
    std::vector<Block *> whole, mapped;
    for (FreeSet *set : {&small_free_, &large_free_}) {
        for (Block *block : *set) {
            if (block->expandable != nullptr) {
                if (block != keep) {
                    mapped.push_back(block);
                }
            } else if (!block->isSplit()) {
                whole.push_back(block);
            }
        }
    }
    // Smallest first: the large ones are the hardest to get back.
    std::sort(whole.begin(), whole.end(), [](const Block *a, const Block *b) { return a->size < b->size; });
    size_t released = 0;
    for (Block *block : whole) {
        if (static_cast<int64_t>(released) >= needed) {
            break;
        }
        eraseFreeLocked(block);
        segment_heads_.erase(reinterpret_cast<uintptr_t>(block->ptr));
        (void)device_->free(block->ptr);
        add(reserved_bytes_, -static_cast<int64_t>(block->size));
        add(segments_, -1);
        ++device_frees_;
        released += block->size;
        delete block;
    }
    // Unmapping merges only unmapped blocks: the free blocks listed stay.
    for (Block *block : mapped) {
        if (static_cast<int64_t>(released) >= needed) {
            break;
        }
        released += unmapFreeBlockLocked(block);
    }
}

size_t DeviceCachingAllocator::unmapFreeBlockLocked(Block *block) {
    ExpandableSegment &range = *block->expandable;
    const uintptr_t base = address(range.base()), start = address(block->ptr), end = start + block->size;
    const uintptr_t lo = base + roundUp(start - base, page_), hi = base + (end - base) / page_ * page_;
    if (hi <= lo || range.unmap(reinterpret_cast<char *>(lo), hi - lo) != INFINI_STATUS_SUCCESS) {
        return 0;
    }
    eraseFreeLocked(block);
    Block *gap = block;
    if (lo > start) {
        gap = splitOffLocked(block, lo - start);
        insertFreeLocked(block);
    }
    if (hi < end) {
        insertFreeLocked(splitOffLocked(gap, hi - lo));
    }
    gap->place.store(BlockPlace::Unmapped, std::memory_order_relaxed);
    // Keep the lower block of a merged pair: range heads then never move.
    if (Block *prev = gap->prev; prev != nullptr && prev->place.load(std::memory_order_relaxed) == BlockPlace::Unmapped) {
        unmapped_.erase(address(prev->ptr));
        absorbNextLocked(prev);
        gap = prev;
    }
    if (Block *next = gap->next; next != nullptr && next->place.load(std::memory_order_relaxed) == BlockPlace::Unmapped) {
        unmapped_.erase(address(next->ptr));
        absorbNextLocked(gap);
    }
    unmapped_.emplace(address(gap->ptr), gap);
    add(reserved_bytes_, -static_cast<int64_t>(hi - lo));
    ++device_frees_;
    return hi - lo;
}

void DeviceCachingAllocator::releaseEmptyRangesLocked() {
    for (auto it = ranges_.begin(); it != ranges_.end();) {
        const uintptr_t base = address(it->second->base());
        auto head = segment_heads_.find(base);
        Block *whole = head->second;
        if (whole->place.load(std::memory_order_relaxed) != BlockPlace::Unmapped || whole->next != nullptr) {
            ++it;
            continue;
        }
        unmapped_.erase(base);
        segment_heads_.erase(head);
        delete whole;
        add(segments_, -1);
        it = ranges_.erase(it); // frees the range
    }
}

// ---- streams, trim, statistics --------------------------------------------------------------

void DeviceCachingAllocator::recordStream(Block *block, infinirtStream_t stream) {
    if (stream == block->stream ||
        std::find(block->stream_uses.begin(), block->stream_uses.end(), stream) != block->stream_uses.end()) {
        return;
    }
    block->stream_uses.push_back(stream);
}

bool DeviceCachingAllocator::recordStream(const void *ptr, infinirtStream_t stream) {
    Block *block = nullptr;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = held_.find(const_cast<void *>(ptr));
        if (it == held_.end() || it->second->place.load(std::memory_order_relaxed) != BlockPlace::Caller) {
            return false;
        }
        block = it->second;
    }
    recordStream(block, stream);
    return true;
}

void DeviceCachingAllocator::trim(bool wait) {
    drainThreadCaches();
    std::lock_guard<std::mutex> lock(mutex_);
    processEventsLocked(wait);
    releaseSegmentsLocked();
    releaseEmptyRangesLocked();
}

bool DeviceCachingAllocator::expandable() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return expandable_;
}

MemoryStats DeviceCachingAllocator::stats() const {
    MemoryStats s;
    int64_t allocated = 0, blocks = 0;
    {
        std::lock_guard<std::mutex> lock(registry_mutex_);
        uint64_t thread_hits = retired_thread_cache_hits_, pool_hits = retired_pool_hits_,
                 device_allocs = retired_device_allocs_, frees = retired_frees_;
        int64_t unpublished_bytes = 0, unpublished_blocks = 0, cached = 0;
        auto merge = [&](const ThreadCache &cache) {
            thread_hits += cache.thread_cache_hits.get();
            pool_hits += cache.pool_hits.get();
            device_allocs += cache.device_allocs.get();
            frees += cache.frees.get();
            unpublished_bytes += cache.unpublished_bytes.get();
            unpublished_blocks += cache.unpublished_blocks.get();
            cached += static_cast<int64_t>(cache.cachedBytes());
        };
        for (const ThreadCache *cache : caches_) {
            merge(*cache);
        }
        merge(orphan_);
        allocated = allocated_bytes_.published() + unpublished_bytes;
        blocks = allocated_blocks_.published() + unpublished_blocks;
        s.num_allocs = thread_hits + pool_hits + device_allocs;
        s.num_frees = frees;
        s.num_cache_hits = thread_hits + pool_hits;
        s.num_thread_cache_hits = thread_hits;
        s.thread_cached_bytes = cached;
    }
    s.allocated_bytes = {allocated, std::max(allocated_bytes_.peak(), allocated)};
    s.allocations = {blocks, std::max(allocated_blocks_.peak(), blocks)};
    std::lock_guard<std::mutex> lock(mutex_);
    s.reserved_bytes = reserved_bytes_;
    s.segments = segments_;
    s.inactive_split_bytes = inactive_split_bytes_;
    int64_t active = allocated + pending_bytes_;
    s.active_bytes = {active, std::max({active_peak_, s.allocated_bytes.peak, active})};
    s.num_device_allocs = device_allocs_;
    s.num_device_frees = device_frees_;
    s.num_alloc_retries = retries_;
    s.num_ooms = ooms_;
    return s;
}

void DeviceCachingAllocator::resetPeakStats() {
    MemoryStats now = stats();
    allocated_bytes_.resetPeak(now.allocated_bytes.current);
    allocated_blocks_.resetPeak(now.allocations.current);
    std::lock_guard<std::mutex> lock(mutex_);
    resetPeak(reserved_bytes_);
    resetPeak(segments_);
    resetPeak(inactive_split_bytes_);
    active_peak_ = now.active_bytes.current;
}

MemorySnapshot DeviceCachingAllocator::snapshot() const {
    MemorySnapshot snapshot;
    std::lock_guard<std::mutex> lock(mutex_);
    snapshot.segments.reserve(segment_heads_.size());
    for (const auto &[at, head] : segment_heads_) {
        MemorySegmentInfo segment;
        segment.stream = head->stream;
        segment.small_pool = head->small;
        for (const Block *b = head; b != nullptr; b = b->next) {
            const BlockPlace place = b->place.load(std::memory_order_relaxed);
            if (place == BlockPlace::Unmapped) {
                continue;
            }
            MemoryBlockInfo info;
            info.address = reinterpret_cast<uintptr_t>(b->ptr);
            info.size = b->size;
            switch (place) {
            case BlockPlace::Caller: info.state = MemoryBlockInfo::State::Allocated; break;
            case BlockPlace::ThreadCached: info.state = MemoryBlockInfo::State::ThreadCached; break;
            case BlockPlace::PendingEvents: info.state = MemoryBlockInfo::State::PendingEvents; break;
            case BlockPlace::Pool: info.state = MemoryBlockInfo::State::Free; break;
            case BlockPlace::Unmapped: break;
            }
            segment.size += b->size;
            segment.blocks.push_back(info);
        }
        // An expandable range: from its first mapped block (a range with none is left out).
        if (!segment.blocks.empty()) {
            segment.address = segment.blocks.front().address;
            snapshot.segments.push_back(std::move(segment));
        }
    }
    return snapshot;
}

} // namespace infinicore::detail
