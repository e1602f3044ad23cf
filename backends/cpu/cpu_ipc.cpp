// Memory shared between processes on the host (docs/memory.md, "Between processes"). A shareable
// physical allocation is a memfd (cpu_virtual_memory.h); its handle names the exporting process
// and descriptor (pid, fd), the file's identity (device and inode numbers) and the mapping's place
// in it. The opener copies the descriptor with pidfd_getfd (Linux 5.6), or opens
// /proc/<pid>/fd/<fd> where that is refused (older kernels, seccomp, Yama's ptrace scope), checks
// the identity and maps it MAP_SHARED; so processes started independently (spawned, not only
// forked) of the same user share it. The exporter's descriptor must stay open: it does while the
// physical allocation lives.
#include "cpu_backend.h"
#include "cpu_virtual_memory.h"

#include "common/host_services.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace infinirt::cpu {

namespace {

// The plugin's part of a memory handle.
struct MemPayload {
    int32_t pid;
    int32_t fd;
    uint64_t file_device; // st_dev and st_ino of the memfd
    uint64_t file_inode;
    uint64_t offset; // the mapping's place in the memfd
    uint64_t size;
};
static_assert(sizeof(MemPayload) <= sizeof(infinirtIpcMemHandle_t) - INFINIRT_PLUGIN_IPC_HEADER_BYTES,
              "the payload fits in the plugin's part of the handle");

// A descriptor of this process for descriptor `fd` of process `pid`, or -1 with errno set.
int copyDescriptor(pid_t pid, int fd) {
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
    const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    if (pidfd < 0 && errno == ESRCH) {
        return -1;
    }
    if (pidfd >= 0) {
        const int copy = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, fd, 0)); // close-on-exec
        const int err = errno;
        close(pidfd);
        if (copy >= 0 || err == EBADF) {
            errno = err;
            return copy;
        }
    }
#endif
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/fd/%d", static_cast<int>(pid), fd);
    return open(path, O_RDWR | O_CLOEXEC);
}

} // namespace

infiniStatus_t ipcGetMemHandle(int device, void *base, size_t size, void *mem, size_t mem_offset, void *payload,
                               size_t) {
    if (mem == nullptr) {
        return common::fail(INFINI_STATUS_NOT_IMPLEMENTED,
                            "%p is infinirtMalloc memory of cpu:%d, heap memory of this process that another process "
                            "cannot map: share memory of infinirtMemCreate(..., INFINIRT_MEM_CREATE_SHAREABLE) mapped "
                            "with infinirtMemMap instead",
                            base, device);
    }
    const auto *m = static_cast<const PhysicalMemory *>(mem);
    struct stat st{};
    if (fstat(m->fd, &st) != 0) {
        const int err = errno;
        return common::fail(INFINI_STATUS_INTERNAL_ERROR, "fstat of the memfd failed: %s (%d)", std::strerror(err),
                            err);
    }
    const MemPayload p{static_cast<int32_t>(getpid()), m->fd, static_cast<uint64_t>(st.st_dev),
                       static_cast<uint64_t>(st.st_ino), mem_offset, size};
    std::memcpy(payload, &p, sizeof p);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t ipcOpenMemHandle(int, const void *payload, size_t, size_t size, void **ptr) {
    MemPayload p{};
    std::memcpy(&p, payload, sizeof p);
    if (p.pid <= 0 || p.fd < 0 || p.size != size) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "the handle names process %d, descriptor %d, %llu bytes: not a "
                                                     "cpu memory handle",
                            static_cast<int>(p.pid), static_cast<int>(p.fd), static_cast<unsigned long long>(p.size));
    }
    const int fd = copyDescriptor(static_cast<pid_t>(p.pid), p.fd);
    if (fd < 0) {
        const int err = errno;
        const bool gone = err == ESRCH || err == ENOENT || err == EBADF;
        return common::fail(gone ? INFINI_STATUS_INVALID_HANDLE : INFINI_STATUS_INTERNAL_ERROR,
                            "cannot reach descriptor %d of process %d: %s (%d)%s", static_cast<int>(p.fd),
                            static_cast<int>(p.pid), std::strerror(err), err,
                            gone ? ": the exporting process has exited or released the memory"
                                 : "; both processes must run as the same user");
    }
    struct stat st{};
    if (fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_dev) != p.file_device ||
        static_cast<uint64_t>(st.st_ino) != p.file_inode ||
        p.offset > static_cast<uint64_t>(st.st_size) || p.size > static_cast<uint64_t>(st.st_size) - p.offset) {
        close(fd);
        return common::fail(INFINI_STATUS_INVALID_HANDLE,
                            "descriptor %d of process %d is no longer the exported memory (released, and the "
                            "descriptor reused)",
                            static_cast<int>(p.fd), static_cast<int>(p.pid));
    }
    void *at = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(p.offset));
    const int err = errno;
    close(fd); // the mapping keeps the memory
    if (at == MAP_FAILED) {
        return common::fail(err == ENOMEM ? INFINI_STATUS_OUT_OF_MEMORY : INFINI_STATUS_INTERNAL_ERROR,
                            "mmap(MAP_SHARED) of %zu bytes of process %d's memory failed: %s (%d)", size,
                            static_cast<int>(p.pid), std::strerror(err), err);
    }
    *ptr = at;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t ipcCloseMemHandle(int, void *ptr, size_t size) {
    if (munmap(ptr, size) != 0) {
        const int err = errno;
        return common::fail(INFINI_STATUS_INTERNAL_ERROR, "munmap of %p + %zu bytes failed: %s (%d)", ptr, size,
                            std::strerror(err), err);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t ipcGetEventHandle(int device, void *, void *, size_t) {
    return common::fail(INFINI_STATUS_NOT_IMPLEMENTED,
                        "events of cpu:%d are not shared between processes: a cpu event is the state of this "
                        "process's stream workers, which another process cannot wait on",
                        device);
}

} // namespace infinirt::cpu
