// vulkan_host_copy.h - the host's share of a pageable copy: moving bytes between the caller's
// pageable memory and a staging chunk, split over a pool of host threads.
//
// One core copies far less than a GPU's DMA moves from pinned memory, so a staged copy done by
// the calling thread alone runs at the speed of that core. hostCopy splits a large copy
// over the calling thread and the pool's threads, which start on first need and sleep between
// copies. The pool serves one copy at a time; a caller that finds it busy copies alone.
//
// INFINIRT_VULKAN_COPY_THREADS: the pool's size, 0 for none (every copy on the calling thread);
// default: the CPUs this process may run on, less one, at most 15. Read once, at first need; a
// value that is not a number from 0 to 64 is ignored with a warning.
#pragma once

#include <cstddef>

namespace infinirt::vulkan {

// memcpy(dst, src, size) (the ranges must not overlap), by the pool where `size` is large enough
// to gain from it. Complete on return.
void hostCopy(void *dst, const void *src, size_t size);

} // namespace infinirt::vulkan
