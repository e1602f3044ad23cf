// The event logic of both caching allocators, against a fake device whose events complete only
// when the test says so: blocks used on other streams are never reused before the work of those
// streams has run, and a slow stream holds back only its own blocks.
#include "device_caching_allocator.hpp"
#include "device_pinned_host_allocator.hpp"
#include "fake_device.hpp"

#include <gtest/gtest.h>

namespace infinicore::test {
namespace {

using detail::AllocatorConfig;
using detail::DeviceCachingAllocator;
using detail::DevicePinnedHostAllocator;
using State = MemoryBlockInfo::State;

constexpr size_t KiB = 1024, MiB = 1024 * 1024;

State stateOf(const DeviceCachingAllocator &alloc, void *ptr) {
    for (const auto &segment : alloc.snapshot().segments) {
        for (const auto &block : segment.blocks) {
            if (block.address == reinterpret_cast<uintptr_t>(ptr)) {
                return block.state;
            }
        }
    }
    ADD_FAILURE() << "no block at " << ptr;
    return State::Free;
}

TEST(CachingAllocatorEvents, BlockUsedOnAnotherStreamIsNotReusedBeforeItsEventCompletes) {
    auto fake = std::make_shared<FakeDevice>();
    DeviceCachingAllocator alloc(fake, AllocatorConfig{}); // thread cache on: must be bypassed
    const auto s1 = fakeStream(1), s2 = fakeStream(2);
    auto *a = alloc.allocate(64 * KiB, s1);
    void *p = DeviceCachingAllocator::data(a);
    alloc.recordStream(a, s2);
    alloc.deallocate(a);
    EXPECT_EQ(fake->records(), 1u);
    EXPECT_EQ(stateOf(alloc, p), State::PendingEvents);
    MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.allocated_bytes.current, 0);
    EXPECT_EQ(stats.active_bytes.current, int64_t(64 * KiB));

    auto *b = alloc.allocate(64 * KiB, s1);
    EXPECT_NE(DeviceCachingAllocator::data(b), p); // still guarded
    fake->complete(s2);
    auto *c = alloc.allocate(64 * KiB, s1); // the pool checks events first
    EXPECT_EQ(DeviceCachingAllocator::data(c), p);
    EXPECT_EQ(alloc.stats().active_bytes.current, alloc.stats().allocated_bytes.current);
    alloc.deallocate(b);
    alloc.deallocate(c);
}

TEST(CachingAllocatorEvents, RecordingTheAllocationStreamAddsNoEvent) {
    auto fake = std::make_shared<FakeDevice>();
    DeviceCachingAllocator alloc(fake, AllocatorConfig{});
    auto *a = alloc.allocate(KiB, fakeStream(1));
    alloc.recordStream(a, fakeStream(1));
    alloc.deallocate(a);
    EXPECT_EQ(fake->records(), 0u);
}

TEST(CachingAllocatorEvents, EachStreamsEventsAreCheckedIndependently) {
    auto fake = std::make_shared<FakeDevice>();
    DeviceCachingAllocator alloc(fake, AllocatorConfig{});
    const auto s1 = fakeStream(1), slow = fakeStream(2), fast = fakeStream(3);
    auto *a = alloc.allocate(4 * KiB, s1);
    auto *b = alloc.allocate(4 * KiB, s1);
    auto *keep = alloc.allocate(4 * KiB, s1); // keeps a and b from coalescing with the tail
    void *pa = DeviceCachingAllocator::data(a), *pb = DeviceCachingAllocator::data(b);
    alloc.recordStream(a, slow); // freed first: first in line
    alloc.recordStream(b, fast);
    alloc.deallocate(a);
    alloc.deallocate(b);
    fake->complete(fast);
    alloc.processEvents();
    EXPECT_EQ(stateOf(alloc, pa), State::PendingEvents);
    EXPECT_EQ(stateOf(alloc, pb), State::Free);
    fake->complete(slow);
    alloc.processEvents();
    EXPECT_EQ(stateOf(alloc, pa), State::Free); // and merged with b
    alloc.deallocate(keep);
}

TEST(CachingAllocatorEvents, ABlockUsedOnTwoOtherStreamsWaitsForBoth) {
    auto fake = std::make_shared<FakeDevice>();
    DeviceCachingAllocator alloc(fake, AllocatorConfig{});
    auto *a = alloc.allocate(KiB, fakeStream(1));
    void *p = DeviceCachingAllocator::data(a);
    alloc.recordStream(a, fakeStream(2));
    alloc.recordStream(a, fakeStream(3));
    alloc.deallocate(a);
    fake->complete(fakeStream(2));
    alloc.processEvents();
    EXPECT_EQ(stateOf(alloc, p), State::PendingEvents);
    fake->complete(fakeStream(3));
    alloc.processEvents();
    EXPECT_EQ(stateOf(alloc, p), State::Free);
}

TEST(CachingAllocatorEvents, AStreamThatCannotBeRecordedOnMakesTheFreeWaitForTheDevice) {
    auto fake = std::make_shared<FakeDevice>();
    DeviceCachingAllocator alloc(fake, AllocatorConfig{});
    auto *a = alloc.allocate(KiB, fakeStream(1));
    void *p = DeviceCachingAllocator::data(a);
    alloc.recordStream(a, fakeStream(2));
    fake->breakStream(fakeStream(2));
    alloc.deallocate(a);
    EXPECT_EQ(stateOf(alloc, p), State::Free); // after a device-wide wait, nothing to guard
}

// recordStream with another device's stream. No event of this device can be recorded there, and
// this device's synchronisation does not cover it: an event of the stream's own device guards the
// block, so the free does not wait on the host and the block is not reused before that event
// completes; the event is destroyed then (it is not this device's, so not pooled).
TEST(CachingAllocatorEvents, AnotherDevicesStreamGuardsTheBlockWithItsOwnEvent) {
    auto fake = std::make_shared<FakeDevice>();
    DeviceCachingAllocator alloc(fake, AllocatorConfig{});
    const auto s1 = fakeStream(1), other = fakeStream(7);
    auto *a = alloc.allocate(64 * KiB, s1);
    void *p = DeviceCachingAllocator::data(a);
    fake->makeForeign(other);
    alloc.recordStream(a, other);
    alloc.deallocate(a);
    EXPECT_EQ(fake->streamSyncs(other), 0u) << "the free waited on the host";
    EXPECT_EQ(fake->foreignRecords(), 1u);
    EXPECT_EQ(stateOf(alloc, p), State::PendingEvents);
    auto *b = alloc.allocate(64 * KiB, s1);
    EXPECT_NE(DeviceCachingAllocator::data(b), p) << "reused before the other device's stream caught up";
    const size_t events_before = fake->liveEvents();
    fake->complete(other);
    auto *c = alloc.allocate(64 * KiB, s1);
    EXPECT_EQ(DeviceCachingAllocator::data(c), p);
    EXPECT_EQ(fake->liveEvents(), events_before - 1) << "the other device's event was not destroyed";
    alloc.deallocate(b);
    alloc.deallocate(c);
}

// A destroyed allocator waits for and destroys the other device's events it still holds.
TEST(CachingAllocatorEvents, AnotherDevicesEventsAreDestroyedWithTheAllocator) {
    auto fake = std::make_shared<FakeDevice>();
    {
        DeviceCachingAllocator alloc(fake, AllocatorConfig{});
        auto *a = alloc.allocate(KiB, fakeStream(1));
        fake->makeForeign(fakeStream(7));
        alloc.recordStream(a, fakeStream(7));
        alloc.deallocate(a);
        EXPECT_EQ(fake->foreignRecords(), 1u);
    }
    EXPECT_EQ(fake->liveEvents(), 0u);
}

// Where not even an event of the stream's device can be recorded (the stream is gone), the free
// waits on the host for the stream before the block can be reused.
TEST(CachingAllocatorEvents, AStreamNoEventCanGuardIsWaitedForOnTheHost) {
    auto fake = std::make_shared<FakeDevice>();
    DeviceCachingAllocator alloc(fake, AllocatorConfig{});
    auto *a = alloc.allocate(KiB, fakeStream(1));
    void *p = DeviceCachingAllocator::data(a);
    fake->makeForeign(fakeStream(7));
    fake->breakStream(fakeStream(7));
    alloc.recordStream(a, fakeStream(7));
    alloc.deallocate(a);
    EXPECT_EQ(stateOf(alloc, p), State::Free);
}

TEST(PinnedAllocatorEvents, AnotherDevicesStreamGuardsTheBlockWithItsOwnEvent) {
    auto fake = std::make_shared<FakeDevice>();
    DevicePinnedHostAllocator alloc(fake);
    auto *a = alloc.allocate(KiB);
    void *p = a->ptr;
    fake->makeForeign(fakeStream(7));
    alloc.recordStream(a, fakeStream(7));
    alloc.deallocate(a);
    EXPECT_EQ(fake->streamSyncs(fakeStream(7)), 0u) << "the free waited on the host";
    EXPECT_EQ(fake->foreignRecords(), 1u);
    auto *b = alloc.allocate(KiB);
    EXPECT_NE(b->ptr, p) << "reused before the other device's stream caught up";
    fake->complete(fakeStream(7));
    auto *c = alloc.allocate(KiB);
    EXPECT_EQ(c->ptr, p);
    alloc.deallocate(b);
    alloc.deallocate(c);
}

TEST(CachingAllocatorEvents, OutOfMemoryDrainsCachesReleasesSegmentsAndRetriesOnce) {
    auto fake = std::make_shared<FakeDevice>(64 * MiB);
    DeviceCachingAllocator alloc(fake, AllocatorConfig{});
    const auto s1 = fakeStream(1), s2 = fakeStream(2);
    auto *a = alloc.allocate(30 * MiB, s1);
    auto *b = alloc.allocate(20 * MiB, s2);
    alloc.recordStream(b, s1);
    alloc.deallocate(a); // into this thread's cache
    alloc.deallocate(b); // waiting for an event on s1
    EXPECT_EQ(alloc.stats().thread_cached_bytes, int64_t(30 * MiB));
    auto *c = alloc.allocate(60 * MiB, s1);
    ASSERT_NE(c, nullptr);
    MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.num_alloc_retries, 1u);
    EXPECT_EQ(stats.num_device_frees, 2u);
    EXPECT_EQ(stats.num_ooms, 0u);
    EXPECT_EQ(stats.reserved_bytes.current, int64_t(60 * MiB));
    EXPECT_EQ(stats.thread_cached_bytes, 0);

    try {
        alloc.allocate(10 * MiB, s1);
        FAIL() << "expected OutOfMemoryError";
    } catch (const OutOfMemoryError &e) {
        EXPECT_EQ(e.status(), INFINI_STATUS_OUT_OF_MEMORY);
        EXPECT_EQ(e.requested(), 10 * MiB);
        EXPECT_EQ(e.allocated(), 60 * MiB);
        EXPECT_EQ(e.reservedUnallocated(), 0u);
        EXPECT_EQ(e.freeBytes(), 4 * MiB);
        const std::string what = e.what();
        EXPECT_NE(what.find("reserved but unallocated"), std::string::npos) << what;
        EXPECT_NE(what.find("fake malloc: out of memory"), std::string::npos) << what;
    }
    EXPECT_EQ(alloc.stats().num_ooms, 1u);
    EXPECT_EQ(alloc.stats().num_alloc_retries, 2u);
    alloc.deallocate(c);
}

TEST(CachingAllocatorEvents, DestroyingTheAllocatorGivesEverySegmentBack) {
    auto fake = std::make_shared<FakeDevice>();
    {
        DeviceCachingAllocator alloc(fake, AllocatorConfig{});
        auto *a = alloc.allocate(KiB, fakeStream(1));
        auto *b = alloc.allocate(30 * MiB, fakeStream(1));
        alloc.deallocate(a);
        alloc.deallocate(b);
        EXPECT_EQ(fake->mallocs(), 2u);
    }
    EXPECT_EQ(fake->frees(), 2u);
    EXPECT_EQ(fake->used(), 0u);
}

TEST(PinnedAllocatorEvents, ASlowStreamHoldsBackOnlyItsOwnBlocks) {
    auto fake = std::make_shared<FakeDevice>();
    DevicePinnedHostAllocator alloc(fake);
    const auto slow = fakeStream(1), fast = fakeStream(2);
    auto *a = alloc.allocate(MiB);
    auto *b = alloc.allocate(MiB);
    void *pb = b->ptr;
    alloc.recordStream(a, slow);
    alloc.recordStream(b, fast);
    alloc.deallocate(a);
    alloc.deallocate(b);
    fake->complete(fast);
    auto *c = alloc.allocate(MiB); // drains the queues first: b is back, a is not
    EXPECT_EQ(c->ptr, pb);
    auto *d = alloc.allocate(MiB);
    EXPECT_NE(d->ptr, a->ptr);
    EXPECT_EQ(fake->mallocs(), 3u);
    fake->complete(slow);
    alloc.processEvents();
    MemoryStats stats = alloc.stats();
    EXPECT_EQ(stats.active_bytes.current, int64_t(2 * MiB));
    EXPECT_EQ(stats.reserved_bytes.current, int64_t(3 * MiB));
    alloc.deallocate(c);
    alloc.deallocate(d);
}

TEST(PinnedAllocatorEvents, OutOfMemoryReleasesCachedBlocksAndRetries) {
    auto fake = std::make_shared<FakeDevice>(4 * MiB);
    DevicePinnedHostAllocator alloc(fake);
    auto *a = alloc.allocate(2 * MiB);
    alloc.deallocate(a); // cached
    auto *b = alloc.allocate(4 * MiB);
    EXPECT_EQ(alloc.stats().num_alloc_retries, 1u);
    EXPECT_EQ(alloc.stats().num_device_frees, 1u);
    try {
        alloc.allocate(MiB);
        FAIL() << "expected OutOfMemoryError";
    } catch (const OutOfMemoryError &e) {
        EXPECT_EQ(e.requested(), MiB);
        EXPECT_EQ(e.allocated(), 4 * MiB);
    }
    EXPECT_EQ(alloc.stats().num_ooms, 1u);
    alloc.deallocate(b);
}

} // namespace
} // namespace infinicore::test
