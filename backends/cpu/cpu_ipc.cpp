// Memory shared between processes on the host (docs/memory.md, "Between processes"). A shareable
// physical allocation is a memfd (cpu_virtual_memory.h); its handle names the exporting process's
// descriptor of it (common/shared_descriptor.hpp: process, descriptor and the file's identity) and
// the mapping's place in it. The opener copies the descriptor (pidfd_getfd, or /proc/<pid>/fd/<fd>
// where that is refused) and maps it MAP_SHARED; so processes started independently (spawned,
// not only forked) of the same user share it. The exporter's descriptor must stay open: it does
// while the physical allocation lives.
#include "cpu_backend.h"
#include "cpu_virtual_memory.h"

#include "common/host_services.hpp"
#include "common/shared_descriptor.hpp"

#include <cerrno>
#include <cstring>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace infinirt::cpu {

namespace {

// The plugin's part of a memory handle.
struct MemPayload {
    common::SharedDescriptor file; // the exporter's memfd
    uint64_t offset;               // the mapping's place in the memfd
    uint64_t size;
};
static_assert(sizeof(MemPayload) <= sizeof(infinirtIpcMemHandle_t) - INFINIRT_PLUGIN_IPC_HEADER_BYTES,
              "the payload fits in the plugin's part of the handle");

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
    MemPayload p{};
    const infiniStatus_t st = common::nameDescriptor(m->fd, &p.file);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    p.offset = mem_offset;
    p.size = size;
    std::memcpy(payload, &p, sizeof p);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t ipcOpenMemHandle(int, const void *payload, size_t, size_t size, void **ptr) {
    MemPayload p{};
    std::memcpy(&p, payload, sizeof p);
    if (p.size != size) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "the handle names %llu bytes of a memfd, its header %zu: not a cpu "
                                                     "memory handle",
                            static_cast<unsigned long long>(p.size), size);
    }
    int fd = -1;
    struct stat st{};
    const infiniStatus_t copied = common::copySharedDescriptor(p.file, true, &fd, &st);
    if (copied != INFINI_STATUS_SUCCESS) {
        return copied;
    }
    if (p.offset > static_cast<uint64_t>(st.st_size) || p.size > static_cast<uint64_t>(st.st_size) - p.offset) {
        close(fd);
        return common::fail(INFINI_STATUS_INVALID_HANDLE,
                            "descriptor %d of process %d is no longer the exported memory (it is smaller)",
                            static_cast<int>(p.file.fd), static_cast<int>(p.file.pid));
    }
    void *at = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(p.offset));
    const int err = errno;
    close(fd); // the mapping keeps the memory
    if (at == MAP_FAILED) {
        return common::fail(err == ENOMEM ? INFINI_STATUS_OUT_OF_MEMORY : INFINI_STATUS_INTERNAL_ERROR,
                            "mmap(MAP_SHARED) of %zu bytes of process %d's memory failed: %s (%d)", size,
                            static_cast<int>(p.file.pid), std::strerror(err), err);
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
