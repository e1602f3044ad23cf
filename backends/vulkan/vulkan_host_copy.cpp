// vulkan_host_copy.cpp - the pool of host threads for pageable copies (see the header).
#include "vulkan_host_copy.h"

#include "common/host_services.hpp"
#include "common/text.hpp"

#include <sched.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <system_error>
#include <thread>

namespace infinirt::vulkan {
namespace {

// Below this a copy stays on the calling thread: waking the pool costs more than it saves.
constexpr size_t kParallelLeast = size_t{1} << 20;
// Pieces are whole multiples of this (a page), so that no two threads write one cache line.
constexpr size_t kPieceAlign = 4096;
constexpr unsigned kMostThreads = 64;

unsigned readThreads() {
    const char *setting = std::getenv("INFINIRT_VULKAN_COPY_THREADS");
    if (setting != nullptr) {
        unsigned long long value = 0;
        if (common::parseCountUpTo(setting, kMostThreads, &value)) {
            return static_cast<unsigned>(value);
        }
        common::logMessage(INFINIRT_LOG_WARN,
                           "INFINIRT_VULKAN_COPY_THREADS=\"%s\" ignored: expected a number of threads from 0 to %u",
                           setting, kMostThreads);
    }
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    const unsigned cpus = sched_getaffinity(0, sizeof allowed, &allowed) == 0
                              ? static_cast<unsigned>(CPU_COUNT(&allowed))
                              : std::thread::hardware_concurrency();
    return std::min(cpus > 0 ? cpus - 1 : 0u, 15u);
}

// One copy in progress: its pieces are taken in turn by the caller and the woken threads.
struct Job {
    unsigned char *dst = nullptr;
    const unsigned char *src = nullptr;
    size_t size = 0;
    size_t piece = 0;
    size_t pieces = 0;
    std::atomic<size_t> next{0};
    std::atomic<size_t> done{0};
};

// The process's pool: started on first need, never joined (the plugin is never unloaded); a forked
// child gets a fresh one with no threads.
struct Pool {
    std::mutex busy;  // held by the caller whose copy the pool serves
    std::mutex mutex; // guards job, generation, inside and started
    std::condition_variable wake;
    std::condition_variable finished;
    Job *job = nullptr;
    unsigned long long generation = 0;
    unsigned inside = 0; // threads between taking the job and leaving work()
    unsigned started = 0;
};

std::atomic<Pool *> g_pool{nullptr};

Pool &pool() {
    Pool *p = g_pool.load(std::memory_order_acquire);
    if (p == nullptr) {
        static std::once_flag once;
        std::call_once(once, [] {
            g_pool.store(new Pool, std::memory_order_release); // leaked: lives until exit
            pthread_atfork(nullptr, nullptr, [] { g_pool.store(new Pool, std::memory_order_release); });
        });
        p = g_pool.load(std::memory_order_acquire);
    }
    return *p;
}

// Takes pieces of `job` until none is left; the last one done wakes the caller.
void work(Pool &p, Job &job) {
    for (size_t k = job.next.fetch_add(1, std::memory_order_relaxed); k < job.pieces;
         k = job.next.fetch_add(1, std::memory_order_relaxed)) {
        const size_t begin = k * job.piece;
        std::memcpy(job.dst + begin, job.src + begin, std::min(job.piece, job.size - begin));
        if (job.done.fetch_add(1, std::memory_order_acq_rel) + 1 == job.pieces) {
            std::lock_guard<std::mutex> lock(p.mutex);
            p.finished.notify_all();
        }
    }
}

void threadLoop(Pool *p) {
    unsigned long long seen = 0;
    std::unique_lock<std::mutex> lock(p->mutex);
    for (;;) {
        p->wake.wait(lock, [&] { return p->generation != seen && p->job != nullptr; });
        seen = p->generation;
        Job *job = p->job;
        ++p->inside;
        lock.unlock();
        work(*p, *job);
        lock.lock();
        if (--p->inside == 0) {
            p->finished.notify_all();
        }
    }
}

} // namespace

void hostCopy(void *dst, const void *src, size_t size) {
    static const unsigned threads = readThreads();
    Pool &p = pool();
    std::unique_lock<std::mutex> busy(p.busy, std::defer_lock);
    if (threads == 0 || size < kParallelLeast || !busy.try_lock()) {
        std::memcpy(dst, src, size);
        return;
    }
    Job job;
    job.dst = static_cast<unsigned char *>(dst);
    job.src = static_cast<const unsigned char *>(src);
    job.size = size;
    // About two pieces per thread (the caller included), so that a slow thread holds up little.
    const size_t ways = size_t{threads + 1} * 2;
    job.piece = std::max(kPieceAlign, (size / ways + kPieceAlign - 1) / kPieceAlign * kPieceAlign);
    job.pieces = (size + job.piece - 1) / job.piece;
    {
        std::lock_guard<std::mutex> lock(p.mutex);
        try {
            for (; p.started < threads; ++p.started) {
                std::thread(threadLoop, &p).detach();
            }
        } catch (const std::system_error &) {
            // No more threads: the copy goes on with those there are (the caller at least).
        }
        p.job = &job;
        ++p.generation;
    }
    p.wake.notify_all();
    work(p, job);
    std::unique_lock<std::mutex> lock(p.mutex);
    // Every piece is copied and every thread that took the job has left it; cleared under the
    // mutex, the job is seen by no thread that wakes later.
    p.finished.wait(lock, [&] { return job.done.load(std::memory_order_acquire) == job.pieces && p.inside == 0; });
    p.job = nullptr;
}

} // namespace infinirt::vulkan
