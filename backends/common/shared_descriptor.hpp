// shared_descriptor.hpp - a file descriptor of this process named in plain bytes, so that another
// process of the same user, started any way (spawned, not only forked), can copy it: how the cpu
// backend shares its memfds and the gpu backends the POSIX file descriptors of their shareable
// physical allocations (docs/memory.md, "Between processes"). Part of the header-only
// plugin-support layer (backends/common/, namespace infinirt::common).
//
// The copy is pidfd_open + pidfd_getfd (Linux 5.6): the same open file, which needs ptrace access
// to the exporter (the same user; where /proc/sys/kernel/yama/ptrace_scope is 1, an ancestor of
// the exporter, or a process the exporter allowed with prctl(PR_SET_PTRACER)). Where that is
// refused, a file that may be opened again by its path (a memfd) is opened through
// /proc/<pid>/fd/<fd> instead. The exporter keeps the descriptor open for as long as it may be
// copied; the name carries the file's identity (device and inode numbers), so a descriptor
// number reused for another file is refused.
#ifndef INFINIRT_COMMON_SHARED_DESCRIPTOR_HPP
#define INFINIRT_COMMON_SHARED_DESCRIPTOR_HPP

#include "host_services.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace infinirt::common {

// The name of descriptor `fd` of process `pid`: plain data, 24 bytes.
struct SharedDescriptor {
    int32_t pid;
    int32_t fd;
    uint64_t file_device; // st_dev and st_ino of the open file
    uint64_t file_inode;
};

// Names descriptor `fd` of this process in *out. On failure (fstat refused) sets the error
// detail and returns INTERNAL_ERROR, *out untouched.
inline infiniStatus_t nameDescriptor(int fd, SharedDescriptor *out) noexcept {
    struct stat st{};
    if (fstat(fd, &st) != 0) {
        const int err = errno;
        return fail(INFINI_STATUS_INTERNAL_ERROR, "fstat of descriptor %d failed: %s (%d)", fd, std::strerror(err),
                    err);
    }
    *out = SharedDescriptor{static_cast<int32_t>(getpid()), fd, static_cast<uint64_t>(st.st_dev),
                            static_cast<uint64_t>(st.st_ino)};
    return INFINI_STATUS_SUCCESS;
}

namespace detail {
// A descriptor of this process for descriptor `fd` of process `pid`, or -1 with errno set.
inline int copyDescriptor(pid_t pid, int fd, bool reopen_by_path) noexcept {
    int err = ENOSYS;
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
    const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    if (pidfd < 0 && errno == ESRCH) {
        return -1;
    }
    err = errno;
    if (pidfd >= 0) {
        const int copy = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, fd, 0)); // close-on-exec
        err = errno;
        close(pidfd);
        if (copy >= 0 || err == EBADF) {
            errno = err;
            return copy;
        }
    }
#endif
    if (!reopen_by_path) {
        errno = err;
        return -1;
    }
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/fd/%d", static_cast<int>(pid), fd);
    return open(path, O_RDWR | O_CLOEXEC);
}
} // namespace detail

// Copies the descriptor `name` names into this process (close-on-exec; the caller closes it) and
// checks it is still the named file; `reopen_by_path` allows the /proc fallback, for files that
// may be opened again (a memfd, not a driver's file). Writes the copy to *fd and its fstat to *st.
// On failure sets the error detail and returns, *fd untouched: BAD_PARAM for a name that names no
// descriptor; INVALID_HANDLE when the process has exited, the descriptor is closed or it is now
// another file; NOT_IMPLEMENTED when the kernel lacks pidfd_getfd and no fallback is allowed;
// INTERNAL_ERROR when access is refused (the detail says what the exporter must allow).
inline infiniStatus_t copySharedDescriptor(const SharedDescriptor &name, bool reopen_by_path, int *fd,
                                           struct stat *st) noexcept {
    if (name.pid <= 0 || name.fd < 0) {
        return fail(INFINI_STATUS_BAD_PARAM, "the handle names descriptor %d of process %d: not a shared descriptor",
                    static_cast<int>(name.fd), static_cast<int>(name.pid));
    }
    const int copy = detail::copyDescriptor(static_cast<pid_t>(name.pid), name.fd, reopen_by_path);
    if (copy < 0) {
        const int err = errno;
        const bool gone = err == ESRCH || err == ENOENT || err == EBADF;
        const infiniStatus_t status = gone             ? INFINI_STATUS_INVALID_HANDLE
                                      : err == ENOSYS ? INFINI_STATUS_NOT_IMPLEMENTED
                                                      : INFINI_STATUS_INTERNAL_ERROR;
        return fail(status, "cannot copy descriptor %d of process %d: %s (%d)%s", static_cast<int>(name.fd),
                    static_cast<int>(name.pid), std::strerror(err), err,
                    gone             ? ": the exporting process has exited or released the memory"
                    : err == ENOSYS ? ": the kernel has no pidfd_getfd (Linux 5.6)"
                                    : ": pidfd_getfd needs ptrace access to the exporter (the same user; where "
                                      "/proc/sys/kernel/yama/ptrace_scope is 1, the exporter must allow it with "
                                      "prctl(PR_SET_PTRACER))");
    }
    struct stat s{};
    if (fstat(copy, &s) != 0 || static_cast<uint64_t>(s.st_dev) != name.file_device ||
        static_cast<uint64_t>(s.st_ino) != name.file_inode) {
        close(copy);
        return fail(INFINI_STATUS_INVALID_HANDLE,
                    "descriptor %d of process %d is no longer the exported memory (released, and the descriptor "
                    "reused)",
                    static_cast<int>(name.fd), static_cast<int>(name.pid));
    }
    *fd = copy;
    *st = s;
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::common

#endif // INFINIRT_COMMON_SHARED_DESCRIPTOR_HPP
