// Launches: the record of one launch, the per-device worker pool that runs its blocks, and the
// launch entry (see cpu_launch.h).
//
// How a launch runs. The stream's worker thread (the owner) takes a free slot of the device's pool,
// publishes the launch there and wakes as many sleeping pool threads as there are other blocks.
// Owner and pool threads then claim chunks of consecutive blocks with one fetch_add on the launch's
// counter until none are left. The owner closes the slot and waits until no pool thread is still
// inside it; only then does the launch complete, so the next task (an event's marker, a copy)
// sees every block's writes. A 1-block launch, or any launch when there is one worker or no free
// slot, runs on the owner alone without touching the pool.
//
// Nothing is allocated or locked per block: each thread keeps its scratch buffer and argument
// pointer array (BlockBuffers, owned by its stream or by the pool, grown when a launch needs
// more), and pool threads poll for new work for kPoolSpin before sleeping on a futex.
#include "cpu_backend.h"
#include "cpu_device.h"
#include "cpu_launch.h"
#include "cpu_memory.h"
#include "cpu_module.h"
#include "cpu_stream.h"

#include "common/host_services.hpp"
#include "common/text.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <linux/futex.h>
#include <new>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace infinirt::cpu {

namespace {

// How long a pool thread that ran out of blocks polls for the next launch before sleeping:
// back-to-back launches then find the pool awake.
constexpr std::chrono::microseconds kPoolSpin(100);
// Launches that can use one device's pool at the same time (one per stream running a launch);
// a launch that finds every slot taken runs on its stream's worker alone.
constexpr int kSlots = 8;
// More blocks than this in one launch are refused (the counters must not overflow).
constexpr uint64_t kMaxBlocks = uint64_t{1} << 62;
// Each argument copy and each LOCAL part of the scratch starts at a multiple of this.
constexpr size_t kArgAlignment = 16;

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) && std::atomic<uint32_t>::is_always_lock_free,
              "futex words are std::atomic<uint32_t>");

void futexWait(std::atomic<uint32_t> &word, uint32_t expected) noexcept {
    syscall(SYS_futex, reinterpret_cast<uint32_t *>(&word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}

void futexWake(std::atomic<uint32_t> &word, int count) noexcept {
    syscall(SYS_futex, reinterpret_cast<uint32_t *>(&word), FUTEX_WAKE_PRIVATE, count, nullptr, nullptr, 0);
}

constexpr size_t alignUp(size_t value, size_t alignment) noexcept {
    return (value + alignment - 1) & ~(alignment - 1);
}

} // namespace

// ---- the launch record -------------------------------------------------------------------------

namespace {

struct ArgEntry {
    infinirtKernelArgKind_t kind;
    uint32_t local;  // LOCAL: its index among the LOCAL arguments
    size_t offset;   // VALUE, POINTER: into LaunchRecord::bytes; LOCAL: into the scratch
};

} // namespace

// One allocation: this header, then the argument entries, then the argument bytes.
struct LaunchRecord {
    std::shared_ptr<Module> module; // keeps the kernel's code loaded until the launch has run
    const Kernel *kernel = nullptr;
    uint32_t grid[3] = {};
    uint32_t block[3] = {};
    uint64_t blocks = 0;         // grid[0] * grid[1] * grid[2]
    size_t shared_bytes = 0;     // dynamic_shared_bytes, then each LOCAL (16-aligned): the scratch
    uint32_t num_args = 0;
    uint32_t num_locals = 0;
    const ArgEntry *entries = nullptr;
    const unsigned char *bytes = nullptr;
};

void LaunchDeleter::operator()(LaunchRecord *launch) const noexcept {
    launch->~LaunchRecord();
    std::free(launch);
}

// ---- running blocks ------------------------------------------------------------------------------

namespace {

// One launch being run: the block counter and the first failure. Lives on the owner's stack.
struct RunState {
    const LaunchRecord *launch = nullptr;
    int level = 0; // the stream's priority as a level: 0 the least, higher levels first
    uint64_t chunk = 1; // blocks claimed per fetch_add
    uint32_t worker_count = 1;
    alignas(64) std::atomic<uint64_t> next{0};
    alignas(64) std::atomic<bool> failed{false};
    // Written by the thread that set `failed`; read by the owner once every thread has left.
    uint32_t failed_block[3] = {};
    int failed_value = 0;           // what the kernel returned
    size_t failed_scratch_bytes = 0; // non-zero: the block could not run, no scratch of this size
};


// Keeps the first failure and makes the other threads stop claiming blocks.
void noteBlockFailure(RunState &run, const uint32_t block_id[3], int value, size_t scratch_bytes) noexcept {
    if (!run.failed.exchange(true, std::memory_order_acq_rel)) {
        std::memcpy(run.failed_block, block_id, sizeof run.failed_block);
        run.failed_value = value;
        run.failed_scratch_bytes = scratch_bytes;
    }
    run.next.store(run.launch->blocks, std::memory_order_relaxed);
}

// Whether a launch of a level above `level` is posted to the pool (`posted`: the pool's count of
// posted launches per level).
bool higherPosted(const std::atomic<uint32_t> *posted, int level) noexcept {
    for (int l = level + 1; l < Stream::kLevels; ++l) {
        if (posted[l].load(std::memory_order_relaxed) != 0) {
            return true;
        }
    }
    return false;
}

// Claims and runs blocks of `run` as worker `worker`, with that thread's `buffers`, until none
// are left, or, for a pool thread (`posted` non-NULL), until a launch of a higher level is
// posted: it leaves the rest to the others and goes there. Returns false if it ran none (the
// launch had no blocks left to claim).
bool runBlocks(RunState &run, uint32_t worker, BlockBuffers &buffers,
               const std::atomic<uint32_t> *posted = nullptr) noexcept {
    const LaunchRecord &rec = *run.launch;
    const uint64_t total = rec.blocks;
    if (run.next.load(std::memory_order_relaxed) >= total) {
        return false;
    }
    if (!buffers.reserve(rec.shared_bytes, size_t{rec.num_args} + rec.num_locals)) {
        if (worker != 0) {
            return false; // the others run the blocks; the owner reports if it cannot either
        }
        const uint64_t first = run.next.load(std::memory_order_relaxed);
        const uint32_t block_id[3] = {static_cast<uint32_t>(first % rec.grid[0]),
                                      static_cast<uint32_t>(first / rec.grid[0] % rec.grid[1]),
                                      static_cast<uint32_t>(first / rec.grid[0] / rec.grid[1])};
        noteBlockFailure(run, block_id, 0, std::max<size_t>(rec.shared_bytes, 1));
        return true;
    }
    void **args = buffers.slots;
    void **locals = args + rec.num_args;
    auto *scratch = static_cast<unsigned char *>(buffers.scratch);
    for (uint32_t i = 0; i < rec.num_args; ++i) {
        const ArgEntry &entry = rec.entries[i];
        if (entry.kind == INFINIRT_KERNEL_ARG_LOCAL) {
            locals[entry.local] = scratch + entry.offset;
            args[i] = &locals[entry.local];
        } else {
            args[i] = const_cast<unsigned char *>(rec.bytes + entry.offset);
        }
    }
    infinirtCpuLaunch_t launch{};
    launch.struct_size = sizeof launch;
    std::memcpy(launch.grid, rec.grid, sizeof launch.grid);
    std::memcpy(launch.block, rec.block, sizeof launch.block);
    launch.shared = rec.shared_bytes != 0 ? scratch : nullptr;
    launch.shared_bytes = rec.shared_bytes;
    launch.worker = worker;
    launch.worker_count = run.worker_count;
    const infinirtCpuKernel_t function = rec.kernel->function;
    bool ran = false;
    while (!run.failed.load(std::memory_order_relaxed)) {
        const uint64_t begin = run.next.fetch_add(run.chunk, std::memory_order_relaxed);
        if (begin >= total) {
            break;
        }
        const uint64_t end = std::min(begin + run.chunk, total);
        const uint64_t row = begin / rec.grid[0];
        uint32_t x = static_cast<uint32_t>(begin % rec.grid[0]);
        uint32_t y = static_cast<uint32_t>(row % rec.grid[1]);
        uint32_t z = static_cast<uint32_t>(row / rec.grid[1]);
        ran = true;
        for (uint64_t b = begin; b < end; ++b) {
            launch.block_id[0] = x;
            launch.block_id[1] = y;
            launch.block_id[2] = z;
            if (const int value = function(&launch, args); value != 0) {
                noteBlockFailure(run, launch.block_id, value, 0);
                return true;
            }
            if (++x == rec.grid[0]) {
                x = 0;
                if (++y == rec.grid[1]) {
                    y = 0;
                    ++z;
                }
            }
        }
        if (posted != nullptr && higherPosted(posted, run.level)) {
            break;
        }
    }
    return ran;
}

} // namespace

BlockBuffers::~BlockBuffers() {
    std::free(scratch);
    std::free(slots);
}

bool BlockBuffers::reserve(size_t scratch_bytes, size_t slot_count) noexcept {
    if (scratch_bytes > scratch_capacity) {
        void *grown = nullptr;
        const size_t capacity = alignUp(scratch_bytes, 4096);
        if (posix_memalign(&grown, kAlignment, capacity) != 0) {
            return false;
        }
        std::free(scratch);
        scratch = grown;
        scratch_capacity = capacity;
    }
    if (slot_count > slot_capacity) {
        const size_t capacity = std::max<size_t>(slot_count, 16);
        void *grown = std::malloc(capacity * sizeof(void *));
        if (grown == nullptr) {
            return false;
        }
        std::free(slots);
        slots = static_cast<void **>(grown);
        slot_capacity = capacity;
    }
    return true;
}

// ---- the pool ----------------------------------------------------------------------------------

namespace {

// One launch posted to the pool. `taken` belongs to the owner from acquire() to release(); pool
// threads enter only while `active`, counting themselves in `users`, and the owner waits for
// `users` to drop to 0 after clearing `active` (seq_cst on both sides: a thread either is counted
// before the owner looks, or sees the slot closed).
struct alignas(64) Slot {
    std::atomic<bool> taken{false};
    std::atomic<int> level{0}; // the posted launch's (written before `active`)
    std::atomic<uint32_t> active{0};
    std::atomic<uint32_t> users{0};         // futex word the owner sleeps on
    std::atomic<uint32_t> owner_waiting{0};
    std::atomic<RunState *> run{nullptr};
};

} // namespace

// The device's kernel worker pool: threads() detached threads (worker indices 1..threads()), started
// by the first launch that can use them, never stopped (lifetime rule in cpu_backend.h).
class Pool {
public:
    // Throws std::bad_alloc (the buffers).
    Pool(int device, int wanted) : buffers_(new BlockBuffers[wanted > 0 ? wanted : 1]) {
        const size_t stack = deviceState(device).pool_stack_bytes.load(std::memory_order_relaxed);
        for (int i = 0; i < wanted; ++i) {
            if (const int rc = start(static_cast<uint32_t>(i + 1), stack)) {
                common::logMessage(INFINIRT_LOG_WARN, "cpu:%d: started %d of %d kernel pool threads: %s", device, i,
                                   wanted, std::strerror(rc));
                break;
            }
            threads_.store(i + 1, std::memory_order_release);
        }
    }

    int threads() const noexcept { return threads_.load(std::memory_order_acquire); }

    // Runs `run` on the owner (with the owner's `buffers`) and the pool; false if every slot is
    // taken (nothing was run).
    bool run(RunState &run, BlockBuffers &buffers) noexcept {
        Slot *slot = nullptr;
        for (Slot &candidate : slots_) {
            bool expected = false;
            if (candidate.taken.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
                slot = &candidate;
                break;
            }
        }
        if (slot == nullptr) {
            return false;
        }
        slot->run.store(&run, std::memory_order_relaxed);
        slot->level.store(run.level, std::memory_order_relaxed);
        posted_[run.level].fetch_add(1, std::memory_order_relaxed);
        slot->active.store(1, std::memory_order_seq_cst);
        epoch_.fetch_add(1, std::memory_order_seq_cst);
        if (sleepers_.load(std::memory_order_seq_cst) > 0) {
            const uint64_t others = run.launch->blocks - 1;
            futexWake(epoch_, static_cast<int>(std::min<uint64_t>(others, static_cast<uint64_t>(threads()))));
        }
        runBlocks(run, 0, buffers);
        slot->active.store(0, std::memory_order_seq_cst);
        posted_[run.level].fetch_sub(1, std::memory_order_relaxed);
        if (!spinUntil([slot] { return slot->users.load(std::memory_order_acquire) == 0; })) {
            for (;;) {
                slot->owner_waiting.store(1, std::memory_order_seq_cst);
                const uint32_t users = slot->users.load(std::memory_order_seq_cst);
                if (users == 0) {
                    break;
                }
                futexWait(slot->users, users);
            }
            slot->owner_waiting.store(0, std::memory_order_relaxed);
        }
        slot->taken.store(false, std::memory_order_release);
        return true;
    }

private:
    struct Start {
        Pool *pool;
        uint32_t index;
    };

    // Starts detached pool thread `index` with `stack` bytes of stack (0: the default); an errno.
    int start(uint32_t index, size_t stack) noexcept {
        Start *arg = new (std::nothrow) Start{this, index};
        if (arg == nullptr) {
            return ENOMEM;
        }
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int rc = stack != 0 ? pthread_attr_setstacksize(&attr, stack) : 0;
        pthread_t thread;
        if (rc == 0) {
            rc = pthread_create(&thread, &attr, &Pool::entry, arg);
        }
        pthread_attr_destroy(&attr);
        if (rc != 0) {
            delete arg;
        }
        return rc;
    }

    static void *entry(void *p) {
        const Start s = *static_cast<Start *>(p);
        delete static_cast<Start *>(p);
        s.pool->work(s.index);
        return nullptr;
    }

    // The highest level with a launch posted (0 when none is).
    int topLevel() const noexcept {
        for (int l = Stream::kLevels - 1; l > 0; --l) {
            if (posted_[l].load(std::memory_order_relaxed) != 0) {
                return l;
            }
        }
        return 0;
    }

    // Pool threads take the launches of the highest level posted first, and leave a launch when
    // one of a higher level is posted (runBlocks).
    void work(uint32_t index) noexcept {
        for (;;) {
            const uint32_t seen = epoch_.load(std::memory_order_acquire);
            bool ran = false;
            const int top = topLevel();
            for (int k = 0; k < kSlots; ++k) {
                Slot &slot = slots_[(index + static_cast<uint32_t>(k)) % kSlots];
                if (slot.active.load(std::memory_order_acquire) == 0 ||
                    slot.level.load(std::memory_order_relaxed) < top) {
                    continue;
                }
                slot.users.fetch_add(1, std::memory_order_seq_cst);
                if (slot.active.load(std::memory_order_seq_cst) != 0) {
                    ran |= runBlocks(*slot.run.load(std::memory_order_relaxed), index, buffers_[index - 1], posted_);
                }
                if (slot.users.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
                    slot.owner_waiting.load(std::memory_order_seq_cst) != 0) {
                    futexWake(slot.users, 1);
                }
            }
            if (ran || spinUntil([&] { return epoch_.load(std::memory_order_acquire) != seen; }, kPoolSpin)) {
                continue;
            }
            sleepers_.fetch_add(1, std::memory_order_seq_cst);
            if (epoch_.load(std::memory_order_seq_cst) == seen) {
                futexWait(epoch_, seen);
            }
            sleepers_.fetch_sub(1, std::memory_order_seq_cst);
        }
    }

    std::atomic<int> threads_{0};
    // Pool thread `index` uses buffers_[index - 1]; never freed, like the pool.
    std::unique_ptr<BlockBuffers[]> buffers_;
    Slot slots_[kSlots];
    alignas(64) std::atomic<uint32_t> epoch_{0}; // bumped by every posted launch; futex word
    std::atomic<uint32_t> sleepers_{0};
    std::atomic<uint32_t> posted_[Stream::kLevels] = {}; // launches posted, per level
};

namespace {

Pool &ensurePool(int device) {
    Device &dev = deviceState(device);
    Pool *pool = dev.pool.load(std::memory_order_acquire);
    if (pool != nullptr) {
        return *pool;
    }
    std::lock_guard<std::mutex> lock(dev.pool_mutex);
    pool = dev.pool.load(std::memory_order_relaxed);
    if (pool == nullptr) {
        pool = new Pool(device, config().workers - 1);
        dev.pool.store(pool, std::memory_order_release);
    }
    return *pool;
}

} // namespace

void runLaunch(const LaunchRecord &launch, Stream &stream, uint64_t number) noexcept {
    RunState run;
    run.launch = &launch;
    run.level = -stream.priority();
    run.worker_count = static_cast<uint32_t>(config().workers);
    Pool *pool = launch.blocks > 1 ? deviceState(stream.device()).pool.load(std::memory_order_acquire) : nullptr;
    bool pooled = false;
    if (pool != nullptr && pool->threads() > 0) {
        // Chunks small enough for every thread to get ~16 of them, so the last ones balance out.
        const uint64_t participants = static_cast<uint64_t>(pool->threads()) + 1;
        run.chunk = std::clamp<uint64_t>(launch.blocks / (participants * 16), 1, 64);
        pooled = pool->run(run, stream.blockBuffers());
    }
    if (!pooled) {
        run.chunk = launch.blocks;
        runBlocks(run, 0, stream.blockBuffers());
    }
    if (!run.failed.load(std::memory_order_acquire)) {
        return;
    }
    char text[256];
    const uint32_t *b = run.failed_block;
    if (run.failed_scratch_bytes != 0) {
        std::snprintf(text, sizeof text, "kernel %s could not run block (%u,%u,%u): cannot allocate %s of scratch",
                      launch.kernel->name.c_str(), b[0], b[1], b[2], sizeText(run.failed_scratch_bytes).c_str());
    } else {
        std::snprintf(text, sizeof text, "kernel %s failed in block (%u,%u,%u) with %d", launch.kernel->name.c_str(),
                      b[0], b[1], b[2], run.failed_value);
    }
    stream.noteFailure(number, text);
}

// ---- entries -------------------------------------------------------------------------------------

namespace {

// The stack a pool thread started now gets: the value set, else the system's default.
size_t poolStack(int device) noexcept {
    const size_t set = deviceState(device).pool_stack_bytes.load(std::memory_order_relaxed);
    if (set != 0) {
        return set;
    }
    pthread_attr_t attr;
    size_t bytes = 0;
    pthread_attr_init(&attr);
    pthread_attr_getstacksize(&attr, &bytes);
    pthread_attr_destroy(&attr);
    return bytes;
}

infiniStatus_t onlyStackSize(const char *entry, infinirtLimit_t limit) {
    return common::fail(INFINI_STATUS_NOT_IMPLEMENTED,
                        "%s: the cpu backend does not implement %s (kernels are host code); it implements "
                        "INFINIRT_LIMIT_STACK_SIZE only",
                        entry, common::limitName(limit));
}

} // namespace

infiniStatus_t deviceGetLimit(int device, infinirtLimit_t limit, size_t *value) {
    if (limit != INFINIRT_LIMIT_STACK_SIZE) {
        return onlyStackSize("device_get_limit", limit);
    }
    *value = poolStack(device);
    return INFINI_STATUS_SUCCESS;
}

// The stack of the kernel pool's threads started after the call (the pool starts at the device's
// first launch of more than one block; threads already running keep theirs). Rounded up to
// whole pages, and to at least PTHREAD_STACK_MIN.
infiniStatus_t deviceSetLimit(int device, infinirtLimit_t limit, size_t value) {
    if (limit != INFINIRT_LIMIT_STACK_SIZE) {
        return onlyStackSize("device_set_limit", limit);
    }
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = alignUp(std::max<size_t>(value, PTHREAD_STACK_MIN), page);
    deviceState(device).pool_stack_bytes.store(bytes, std::memory_order_relaxed);
    return INFINI_STATUS_SUCCESS;
}

// ---- entry ---------------------------------------------------------------------------------------

infiniStatus_t launchKernel(int device, void *kernel, const infinirtLaunchConfig_t *launch_config,
                            const infinirtKernelArg_t *args, uint32_t num_args, void *stream) {
    const Kernel &k = *static_cast<const Kernel *>(kernel);
    const infinirtLaunchConfig_t &cfg = *launch_config;
    uint64_t blocks = 1;
    for (uint32_t extent : cfg.grid) {
        if (__builtin_mul_overflow(blocks, uint64_t{extent}, &blocks) || blocks > kMaxBlocks) {
            return common::fail(INFINI_STATUS_BAD_PARAM,
                                "launch_kernel: grid %u x %u x %u of kernel %s has more than 2^62 blocks", cfg.grid[0],
                                cfg.grid[1], cfg.grid[2], k.name.c_str());
        }
    }
    // Sizes: the scratch (dynamic part, then each LOCAL 16-aligned) and the argument copies.
    size_t shared = cfg.dynamic_shared_bytes;
    size_t bytes = 0;
    uint32_t locals = 0;
    for (uint32_t i = 0; i < num_args; ++i) {
        const size_t size = args[i].kind == INFINIRT_KERNEL_ARG_POINTER ? sizeof(void *) : args[i].size;
        if (args[i].kind == INFINIRT_KERNEL_ARG_LOCAL) {
            shared = alignUp(shared, kArgAlignment) + size;
            ++locals;
        } else {
            bytes = alignUp(bytes, kArgAlignment) + size;
        }
        if (shared > kMaxDynamicShared) { // the loader checks the kernel's limit, which is lower
            return common::fail(INFINI_STATUS_BAD_PARAM,
                                "launch_kernel: kernel %s: shared memory of %s up to argument %u is over the cpu "
                                "limit of %s",
                                k.name.c_str(), sizeText(shared).c_str(), i, sizeText(kMaxDynamicShared).c_str());
        }
    }
    const size_t entries_at = alignUp(sizeof(LaunchRecord), kAlignment);
    const size_t bytes_at = alignUp(entries_at + num_args * sizeof(ArgEntry), kAlignment);
    const size_t total = bytes_at + bytes;
    void *memory = nullptr;
    if (int err = posix_memalign(&memory, kAlignment, total)) {
        return allocationFailure("launch_kernel", "posix_memalign", err, device, total);
    }
    LaunchPtr record(new (memory) LaunchRecord());
    auto *base = static_cast<unsigned char *>(memory);
    auto *entries = reinterpret_cast<ArgEntry *>(base + entries_at);
    unsigned char *copies = base + bytes_at;
    size_t shared_at = cfg.dynamic_shared_bytes;
    size_t bytes_used = 0;
    uint32_t local = 0;
    for (uint32_t i = 0; i < num_args; ++i) {
        const infinirtKernelArg_t &arg = args[i];
        ArgEntry &entry = entries[i];
        entry.kind = arg.kind;
        entry.local = 0;
        if (arg.kind == INFINIRT_KERNEL_ARG_LOCAL) {
            shared_at = alignUp(shared_at, kArgAlignment);
            entry.local = local++;
            entry.offset = shared_at;
            shared_at += arg.size;
        } else {
            const size_t size = arg.kind == INFINIRT_KERNEL_ARG_POINTER ? sizeof(void *) : arg.size;
            bytes_used = alignUp(bytes_used, kArgAlignment);
            entry.offset = bytes_used;
            std::memcpy(copies + bytes_used, arg.value, size);
            bytes_used += size;
        }
    }
    record->kernel = &k;
    std::memcpy(record->grid, cfg.grid, sizeof record->grid);
    std::memcpy(record->block, cfg.block, sizeof record->block);
    record->blocks = blocks;
    record->shared_bytes = shared;
    record->num_args = num_args;
    record->num_locals = locals;
    record->entries = entries;
    record->bytes = copies;
    record->module = k.module->shared_from_this();
    Stream &target = resolveStream(device, stream);
    if (blocks > 1 && config().workers > 1) {
        ensurePool(device);
    }
    Task task;
    task.kind = Task::Kind::Launch;
    task.launch = std::move(record);
    target.submit(std::move(task));
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::cpu

INFINIRT_COMMON_HOT_ENTRY_HERE(infinirt::cpu::launchKernel);
