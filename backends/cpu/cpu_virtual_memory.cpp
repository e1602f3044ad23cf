// Virtual memory on the host (cpu_virtual_memory.h). Every cpu device is the same address space,
// so access set for one device holds for all of them (mprotect has no notion of a device).
#include "cpu_backend.h"
#include "cpu_device.h"
#include "cpu_virtual_memory.h"

#include "common/host_services.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <sys/mman.h>
#include <unistd.h>

namespace infinirt::cpu {

namespace {

constexpr size_t kRecommendedGranularity = size_t{2} << 20;

size_t pageSize() noexcept {
    static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    return page;
}

infiniStatus_t systemFailure(const char *call, int err, const char *what, void *ptr, size_t size) {
    return common::fail(err == ENOMEM ? INFINI_STATUS_OUT_OF_MEMORY : INFINI_STATUS_INTERNAL_ERROR,
                        "%s failed: %s (%d), %s %p + %zu bytes", call, std::strerror(err), err, what, ptr, size);
}

// An inaccessible, unbacked range over [ptr, ptr + size) (MAP_FIXED when ptr is not NULL).
void *inaccessible(void *ptr, size_t size) noexcept {
    return mmap(ptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (ptr != nullptr ? MAP_FIXED : 0),
                -1, 0);
}

} // namespace

infiniStatus_t memGetGranularity(int, infinirtMemGranularity_t which, size_t *granularity) {
    *granularity = which == INFINIRT_MEM_GRANULARITY_RECOMMENDED ? kRecommendedGranularity : pageSize();
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memAddressReserve(int, void **ptr, size_t size, size_t alignment) {
    // Over-reserve by the alignment and trim both ends.
    const size_t extra = alignment > pageSize() ? alignment : 0;
    if (size > SIZE_MAX - extra) {
        return common::fail(INFINI_STATUS_OUT_OF_MEMORY, "cannot reserve %zu bytes aligned to %zu", size, alignment);
    }
    void *raw = inaccessible(nullptr, size + extra);
    if (raw == MAP_FAILED) {
        return systemFailure("mmap(PROT_NONE)", errno, "reserving", nullptr, size + extra);
    }
    const uintptr_t lo = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = extra != 0 ? (lo + alignment - 1) & ~(uintptr_t{alignment} - 1) : lo;
    if (aligned > lo) {
        munmap(raw, aligned - lo);
    }
    const uintptr_t end = lo + size + extra;
    if (end > aligned + size) {
        munmap(reinterpret_cast<void *>(aligned + size), end - (aligned + size));
    }
    *ptr = reinterpret_cast<void *>(aligned);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memAddressFree(int, void *ptr, size_t size) {
    if (munmap(ptr, size) != 0) {
        return systemFailure("munmap", errno, "freeing the reservation", ptr, size);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memCreate(int device, void **mem, size_t size, uint32_t flags) {
    const Config &cfg = config();
    if (size > cfg.system_memory) {
        return outOfMemory("mem_create", device, size, systemAvailableMemory(), "more than the %s of physical memory",
                           sizeText(cfg.system_memory).c_str());
    }
    const int fd = memfd_create("infinirt-cpu", MFD_CLOEXEC);
    if (fd < 0) {
        return allocationFailure("mem_create", "memfd_create", errno, device, size);
    }
    if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
        const int err = errno;
        close(fd);
        return allocationFailure("mem_create", "ftruncate", err, device, size);
    }
    *mem = new PhysicalMemory{fd, size, device, flags};
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memRelease(int, void *mem) {
    auto *m = static_cast<PhysicalMemory *>(mem);
    close(m->fd);
    delete m;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memMap(int, void *ptr, size_t size, void *mem, size_t offset) {
    const auto *m = static_cast<const PhysicalMemory *>(mem);
    if (mmap(ptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, m->fd, static_cast<off_t>(offset)) ==
        MAP_FAILED) {
        return systemFailure("mmap(MAP_FIXED | MAP_SHARED)", errno, "mapping at", ptr, size);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memUnmap(int device, void *ptr, size_t size) {
    drainDevice(device);
    // Back to an inaccessible part of the reservation (munmap would open a hole anyone could map).
    if (inaccessible(ptr, size) == MAP_FAILED) {
        return systemFailure("mmap(PROT_NONE, MAP_FIXED)", errno, "unmapping", ptr, size);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t memSetAccess(int, void *ptr, size_t size, int, uint32_t access) {
    const int prot = access == INFINIRT_MEM_ACCESS_READWRITE ? PROT_READ | PROT_WRITE
                     : access == INFINIRT_MEM_ACCESS_READ    ? PROT_READ
                                                             : PROT_NONE;
    if (mprotect(ptr, size, prot) != 0) {
        return systemFailure("mprotect", errno, "setting access of", ptr, size);
    }
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::cpu
