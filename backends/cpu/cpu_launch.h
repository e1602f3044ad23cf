// A cpu launch: one Launch task of a stream. The stream's worker runs it: a 1-block launch (or any
// launch when there is one worker) on its own; otherwise it posts the launch to a slot of the
// device's pool and runs blocks alongside the pool's threads, blocks handed out in chunks by an
// atomic counter, until the last one is done. Each thread has its BlockBuffers (the stream's for
// its worker, the pool's for each pool thread), reused for every block it runs.
#ifndef INFINIRT_CPU_LAUNCH_H
#define INFINIRT_CPU_LAUNCH_H

#include <cstddef>
#include <cstdint>
#include <memory>

namespace infinirt::cpu {

class Stream;
struct LaunchRecord;

// The buffers one thread uses to run a launch's blocks (cpu_launch.cpp): the scratch
// (dynamic_shared_bytes + LOCAL sizes) and the argument pointer array (the args, then one void *
// per LOCAL argument). Grown when a launch needs more, never shrunk. Owned by whoever owns the
// thread -- a stream (its worker is a launch's owner) or the device's pool (one per pool thread)
// -- not thread_local, so that no thread's TLS holds heap memory (LeakSanitizer then scans TLS
// without trouble).
struct BlockBuffers {
    void *scratch = nullptr;
    size_t scratch_capacity = 0;
    void **slots = nullptr;
    size_t slot_capacity = 0;

    BlockBuffers() = default;
    BlockBuffers(const BlockBuffers &) = delete;
    BlockBuffers &operator=(const BlockBuffers &) = delete;
    ~BlockBuffers();
    // Room for `scratch_bytes` of scratch and `slot_count` pointers; false if memory ran out.
    bool reserve(size_t scratch_bytes, size_t slot_count) noexcept;
};

// A launch's copy of its config and arguments, in one allocation (cpu_launch.cpp). Owned by its
// task; holds a reference to the kernel's module.
struct LaunchDeleter {
    void operator()(LaunchRecord *launch) const noexcept;
};
using LaunchPtr = std::unique_ptr<LaunchRecord, LaunchDeleter>;

// Called by the stream's worker for task `number`. Returns after the launch's last block.
void runLaunch(const LaunchRecord &launch, Stream &stream, uint64_t number) noexcept;

} // namespace infinirt::cpu

#endif // INFINIRT_CPU_LAUNCH_H
