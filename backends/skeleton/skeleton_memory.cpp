// skeleton_memory.cpp - allocation, copies and fills: the entries a vendor fills with its memory
// API (contracts in skeleton_backend.h). Until then each answers NOT_IMPLEMENTED, naming itself.
#include "skeleton_backend.h"

namespace infinirt::skeleton {

infiniStatus_t mallocDevice(int, void **, size_t) { return notImplemented("malloc_device"); }

infiniStatus_t freeDevice(int, void *) { return notImplemented("free_device"); }

infiniStatus_t mallocHost(int, void **, size_t) { return notImplemented("malloc_host"); }

infiniStatus_t freeHost(int, void *) { return notImplemented("free_host"); }

infiniStatus_t memcpySync(int, void *, const void *, size_t, infinirtMemcpyKind_t) {
    return notImplemented("memcpy_sync");
}

infiniStatus_t memcpyAsync(int, void *, const void *, size_t, infinirtMemcpyKind_t, void *) {
    return notImplemented("memcpy_async");
}

infiniStatus_t memsetSync(int, void *, int, size_t) { return notImplemented("memset_sync"); }

infiniStatus_t memsetAsync(int, void *, int, size_t, void *) { return notImplemented("memset_async"); }

} // namespace infinirt::skeleton
