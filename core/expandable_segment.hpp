// ExpandableSegment: one reserved address range of a device, into which the caching allocator
// maps pages as a pool grows and from which it unmaps them when it gives memory back
// (expandable_segments in INFINICORE_ALLOC_CONF). Each page is a physical allocation of its own,
// so that any page can go back on its own.
//
// Contract: the range belongs to the blocks of one stream and one pool (small or large). Unmapping
// waits for that stream's work first. The owner serializes every call (the allocator's pool
// mutex). Destroying the segment unmaps whatever is still mapped and frees the range, without a
// wait of its own beyond infinirtMemUnmap's (the stream may be gone by then).
#ifndef INFINICORE_CORE_EXPANDABLE_SEGMENT_HPP
#define INFINICORE_CORE_EXPANDABLE_SEGMENT_HPP

#include "raw_device.hpp"

#include <cstddef>
#include <memory>
#include <vector>

namespace infinicore::detail {

class ExpandableSegment {
public:
    // Reserves `size` bytes (a multiple of `page`, itself a multiple of the device's granularity)
    // for work on `stream`. Returns the device's status; on failure *out is left empty.
    static infiniStatus_t create(RawDevice &device, infinirtStream_t stream, bool small, size_t page, size_t size,
                                 std::unique_ptr<ExpandableSegment> *out);
    ~ExpandableSegment();
    ExpandableSegment(const ExpandableSegment &) = delete;
    ExpandableSegment &operator=(const ExpandableSegment &) = delete;

    char *base() const { return base_; }
    size_t size() const { return size_; }
    size_t page() const { return page_; }
    infinirtStream_t stream() const { return stream_; }
    bool small() const { return small_; }

    // Maps the pages of [ptr, ptr + bytes): ptr and bytes are multiples of the page, inside the
    // range, and unmapped. All or nothing: on failure nothing new is mapped.
    infiniStatus_t map(char *ptr, size_t bytes);
    // Unmaps the mapped pages of [ptr, ptr + bytes) (multiples of the page, inside the range),
    // after the stream's work.
    infiniStatus_t unmap(char *ptr, size_t bytes);

private:
    ExpandableSegment(RawDevice &device, infinirtStream_t stream, bool small, size_t page, char *base, size_t size);
    size_t pageIndex(const char *ptr) const { return static_cast<size_t>(ptr - base_) / page_; }
    // Unmaps the runs of mapped pages in [first, last) and marks them unmapped.
    infiniStatus_t unmapPages(size_t first, size_t last);

    RawDevice &device_;
    const infinirtStream_t stream_;
    const bool small_;
    const size_t page_;
    char *const base_;
    const size_t size_;
    std::vector<bool> mapped_; // per page
};

} // namespace infinicore::detail

#endif // INFINICORE_CORE_EXPANDABLE_SEGMENT_HPP
