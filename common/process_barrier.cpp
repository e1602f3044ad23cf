#include "process_barrier.h"

#include <atomic>
#include <linux/membarrier.h>
#include <mutex>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace infinirt::common {

namespace {
// MEMBARRIER_CMD_PRIVATE_EXPEDITED, registered once when the library loads; false where the kernel
// (or a seccomp filter) refuses it.
bool registerMembarrier() {
    const long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0);
    if (cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED)) {
        return false;
    }
    return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) == 0;
}
const bool g_membarrier = registerMembarrier();
} // namespace

void processWideBarrier() {
    if (g_membarrier && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0) == 0) {
        return;
    }
    // Full barriers on this thread around the change: a sequentially consistent read-modify-write
    // (ThreadSanitizer builds refuse std::atomic_thread_fence; this is one it understands).
    static std::atomic<unsigned> fence_word{0};
    static std::mutex mutex_storage; // constant-initialised, trivially destroyed: usable during exit
    std::mutex *const mutex = &mutex_storage;
    static void *page = [] {
        void *p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            mlock(p, 4096);
        }
        return p == MAP_FAILED ? nullptr : p;
    }();
    fence_word.fetch_add(1, std::memory_order_seq_cst);
    if (page != nullptr) {
        std::lock_guard<std::mutex> lock(*mutex);
        mprotect(page, 4096, PROT_READ | PROT_WRITE);
        static_cast<volatile char *>(page)[0] += 1; // the page is present and dirty: the change below flushes
        mprotect(page, 4096, PROT_READ);
    }
    fence_word.fetch_add(1, std::memory_order_seq_cst);
}

} // namespace infinirt::common
