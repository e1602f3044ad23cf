#include "expandable_segment.hpp"

#include <algorithm>

namespace infinicore::detail {

infiniStatus_t ExpandableSegment::create(RawDevice &device, infinirtStream_t stream, bool small, size_t page,
                                         size_t size, std::unique_ptr<ExpandableSegment> *out) {
    void *base = nullptr;
    if (infiniStatus_t st = device.memReserve(&base, size)) {
        return st;
    }
    out->reset(new ExpandableSegment(device, stream, small, page, static_cast<char *>(base), size));
    return INFINI_STATUS_SUCCESS;
}

ExpandableSegment::ExpandableSegment(RawDevice &device, infinirtStream_t stream, bool small, size_t page, char *base,
                                     size_t size)
    : device_(device), stream_(stream), small_(small), page_(page), base_(base), size_(size),
      mapped_(size / page, false) {}

ExpandableSegment::~ExpandableSegment() {
    (void)unmapPages(0, mapped_.size());
    (void)device_.memFreeReservation(base_, size_);
}

infiniStatus_t ExpandableSegment::map(char *ptr, size_t bytes) {
    const size_t first = pageIndex(ptr), last = first + bytes / page_;
    for (size_t i = first; i < last; ++i) {
        if (infiniStatus_t st = device_.memMap(base_ + i * page_, page_)) {
            (void)unmapPages(first, i);
            return st;
        }
        mapped_[i] = true;
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t ExpandableSegment::unmap(char *ptr, size_t bytes) {
    // Blocks freed on the stream may still be used by its queued work.
    if (device_.streamSynchronize(stream_) != INFINI_STATUS_SUCCESS) {
        if (infiniStatus_t st = device_.synchronize()) {
            return st;
        }
    }
    const size_t first = pageIndex(ptr);
    return unmapPages(first, first + bytes / page_);
}

infiniStatus_t ExpandableSegment::unmapPages(size_t first, size_t last) {
    infiniStatus_t result = INFINI_STATUS_SUCCESS;
    size_t i = first;
    while (i < last) {
        if (!mapped_[i]) {
            ++i;
            continue;
        }
        size_t end = i;
        while (end < last && mapped_[end]) {
            ++end;
        }
        if (infiniStatus_t st = device_.memUnmap(base_ + i * page_, (end - i) * page_)) {
            result = st;
        } else {
            std::fill(mapped_.begin() + static_cast<std::ptrdiff_t>(i), mapped_.begin() + static_cast<std::ptrdiff_t>(end),
                      false);
        }
        i = end;
    }
    return result;
}

} // namespace infinicore::detail
