// Allocation, pinned host memory, stream-ordered allocation, memory info and pointer attributes.
#include "device_test.h"
#include "resources.h"

#include <cstddef>
#include <cstring>

namespace infinirt_test {
namespace {

class Memory : public DeviceTest {};

constexpr size_t kSize = 1 << 20;

TEST_P(Memory, MallocFreeManySizes) {
    REQUIRE_FEATURES(Feature::kMemory);
    for (size_t size : {size_t{1}, size_t{7}, size_t{4096}, size_t{65537}, size_t{3} << 20}) {
        void *d = nullptr;
        ASSERT_OK(infinirtMalloc(&d, size));
        ASSERT_NE(d, nullptr) << "size " << size;
        EXPECT_OK(infinirtFree(d));
    }
}

TEST_P(Memory, FreeNullIsANoOp) {
    EXPECT_OK(infinirtFree(nullptr));
    EXPECT_OK(infinirtFreeHost(nullptr));
}

TEST_P(Memory, PinnedHostIsHostAccessibleAndCopies) {
    REQUIRE_FEATURES(Feature::kMemory);
    PinnedBuffer h;
    ASSERT_OK(h.MallocHost(kSize));
    ASSERT_NE(h.get(), nullptr);
    const std::vector<uint8_t> src = Pattern(kSize, 21);
    std::memcpy(h, src.data(), kSize);
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    ASSERT_OK(infinirtMemcpy(d, h, kSize, INFINIRT_MEMCPY_H2D));
    std::memset(h, 0, kSize);
    ASSERT_OK(infinirtMemcpy(h, d, kSize, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(0, std::memcmp(h, src.data(), kSize));
}

// Memory from MallocAsync is usable by later work on the stream; FreeAsync waits for earlier
// work, so a reallocation on the same stream (which may reuse the block) cannot clobber a copy
// that was queued before the free.
TEST_P(Memory, MallocAsyncFreeAsyncAreStreamOrdered) {
    REQUIRE_FEATURES(Feature::kMemory, Feature::kStreams, Feature::kStreamOrderedAlloc);
    ScopedStream s;
    ASSERT_OK(s.Create());
    void *src = nullptr;
    void *out1 = nullptr;
    void *out2 = nullptr;
    for (void **p : {&src, &out1, &out2}) {
        ASSERT_OK(infinirtMallocHost(p, kSize));
    }
    Defer free_host([&] {
        for (void *p : {src, out1, out2}) {
            infinirtFreeHost(p);
        }
    });
    const std::vector<uint8_t> pattern = Pattern(kSize, 22);
    std::memcpy(src, pattern.data(), kSize);
    std::memset(out1, 0, kSize);
    std::memset(out2, 0xff, kSize);

    ScopedBusyWork busy(s);
    ASSERT_TRUE(busy.Enqueue());
    void *p = nullptr;
    ASSERT_OK(infinirtMallocAsync(&p, kSize, s));
    ASSERT_NE(p, nullptr);
    ASSERT_OK(infinirtMemcpyAsync(p, src, kSize, INFINIRT_MEMCPY_H2D, s));
    ASSERT_OK(infinirtMemcpyAsync(out1, p, kSize, INFINIRT_MEMCPY_D2H, s));
    ASSERT_OK(infinirtFreeAsync(p, s));
    void *q = nullptr;
    ASSERT_OK(infinirtMallocAsync(&q, kSize, s));
    ASSERT_OK(infinirtMemsetAsync(q, 0, kSize, s));
    ASSERT_OK(infinirtMemcpyAsync(out2, q, kSize, INFINIRT_MEMCPY_D2H, s));
    ASSERT_OK(infinirtFreeAsync(q, s));
    ASSERT_OK(infinirtStreamSynchronize(s));
    EXPECT_EQ(0, std::memcmp(out1, pattern.data(), kSize));
    const std::vector<uint8_t> zeros(kSize, 0);
    EXPECT_EQ(0, std::memcmp(out2, zeros.data(), kSize));
}

TEST_P(Memory, MallocAsyncOnDefaultStreamFreedSynchronously) {
    REQUIRE_FEATURES(Feature::kMemory, Feature::kStreams, Feature::kStreamOrderedAlloc);
    void *p = nullptr;
    ASSERT_OK(infinirtMallocAsync(&p, kSize, nullptr));
    ASSERT_OK(infinirtMemsetAsync(p, 0x66, kSize, nullptr));
    ASSERT_OK(infinirtStreamSynchronize(nullptr));
    std::vector<uint8_t> back(kSize, 0);
    ASSERT_OK(infinirtMemcpy(back.data(), p, kSize, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(back, std::vector<uint8_t>(kSize, 0x66));
    EXPECT_OK(infinirtFree(p));
}

// Free waits for the owning device's pending work: a copy queued from the buffer has run by the
// time Free returns (checked without synchronising the stream).
TEST_P(Memory, FreeWaitsForPendingWork) {
    REQUIRE_FEATURES(Feature::kMemory, Feature::kStreams);
    ScopedStream s;
    ASSERT_OK(s.Create());
    void *h = nullptr;
    ASSERT_OK(infinirtMallocHost(&h, kSize));
    Defer free_h([&] {
        infinirtStreamSynchronize(s);
        infinirtFreeHost(h);
    });
    std::memset(h, 0, kSize);
    void *d = nullptr;
    ASSERT_OK(infinirtMalloc(&d, kSize));
    ScopedBusyWork busy(s);
    ASSERT_TRUE(busy.Enqueue());
    ASSERT_OK(infinirtMemsetAsync(d, 0x3a, kSize, s));
    ASSERT_OK(infinirtMemcpyAsync(h, d, kSize, INFINIRT_MEMCPY_D2H, s));
    ASSERT_OK(infinirtFree(d));
    const std::vector<uint8_t> expected(kSize, 0x3a);
    EXPECT_EQ(0, std::memcmp(h, expected.data(), kSize));
}

TEST_P(Memory, GetMemInfo) {
    REQUIRE_FEATURES(Feature::kMemory);
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    ASSERT_OK(infinirtGetMemInfo(type(), id(), &free_bytes, &total_bytes));
    EXPECT_GT(total_bytes, 0u);
    EXPECT_LE(free_bytes, total_bytes);
}

TEST_P(Memory, ResourceSnapshotHasMemoryCapacity) {
    REQUIRE_FEATURES(Feature::kResourceSnapshot);
    infinirtDeviceResourceSnapshot_t snapshot{};
    ASSERT_OK(infinirtGetDeviceResourceSnapshot(type(), id(), &snapshot));
    EXPECT_EQ(snapshot.device_type, type());
    EXPECT_EQ(snapshot.device_id, id());
    ASSERT_TRUE(snapshot.valid_fields & INFINIRT_RESOURCE_FIELD_MEMORY_CAPACITY)
        << "valid_fields = " << snapshot.valid_fields;
    EXPECT_GT(snapshot.total_bytes, 0u);
    EXPECT_LE(snapshot.free_bytes, snapshot.total_bytes);
}

TEST_P(Memory, PointerAttributesOfDeviceMemory) {
    REQUIRE_FEATURES(Feature::kMemory);
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    for (size_t offset : {size_t{0}, size_t{1}, kSize / 2, kSize - 1}) {
        infinirtPointerAttributes_t attr{};
        attr.struct_size = sizeof(attr);
        ASSERT_OK(infinirtPointerGetAttributes(&attr, static_cast<uint8_t *>(d.get()) + offset));
        EXPECT_EQ(attr.kind, INFINIRT_MEMORY_DEVICE) << "offset " << offset;
        EXPECT_EQ(attr.device_type, type()) << "offset " << offset;
        EXPECT_EQ(attr.device_id, id()) << "offset " << offset;
        EXPECT_EQ(attr.base, d.get()) << "offset " << offset;
        EXPECT_EQ(attr.size, kSize) << "offset " << offset;
    }
}

// A caller built against a shorter infinirtPointerAttributes_t (without base and size).
TEST_P(Memory, PointerAttributesRespectsAShorterStructSize) {
    REQUIRE_FEATURES(Feature::kMemory);
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    infinirtPointerAttributes_t attr;
    std::memset(&attr, 0xcd, sizeof(attr));
    attr.struct_size = offsetof(infinirtPointerAttributes_t, base);
    const infiniStatus_t status = infinirtPointerGetAttributes(&attr, d);
    ASSERT_TRUE(status == INFINI_STATUS_SUCCESS || status == INFINI_STATUS_BAD_PARAM) << infinirtGetErrorName(status);
    const auto *bytes = reinterpret_cast<const unsigned char *>(&attr);
    for (size_t i = offsetof(infinirtPointerAttributes_t, base); i < sizeof(attr); ++i) {
        ASSERT_EQ(bytes[i], 0xcd) << "byte " << i << " past struct_size was written";
    }
    if (status == INFINI_STATUS_SUCCESS) {
        EXPECT_EQ(attr.kind, INFINIRT_MEMORY_DEVICE);
        EXPECT_EQ(attr.device_type, type());
    }
}

TEST_P(Memory, PointerAttributesOfPinnedHostMemory) {
    REQUIRE_FEATURES(Feature::kMemory);
    PinnedBuffer h;
    ASSERT_OK(h.MallocHost(kSize));
    infinirtPointerAttributes_t attr{};
    attr.struct_size = sizeof(attr);
    ASSERT_OK(infinirtPointerGetAttributes(&attr, static_cast<uint8_t *>(h.get()) + 100));
    EXPECT_EQ(attr.kind, INFINIRT_MEMORY_PINNED_HOST);
    EXPECT_EQ(attr.base, h.get());
    EXPECT_EQ(attr.size, kSize);
}

// A stack pointer is UNKNOWN, or HOST where a backend's driver recognises all host memory
// (e.g. CUDA with HMM); never device or pinned memory.
TEST_P(Memory, PointerAttributesOfUnknownPointer) {
    int on_stack = 0;
    infinirtPointerAttributes_t attr{};
    attr.struct_size = sizeof(attr);
    ASSERT_OK(infinirtPointerGetAttributes(&attr, &on_stack));
    ASSERT_TRUE(attr.kind == INFINIRT_MEMORY_UNKNOWN || attr.kind == INFINIRT_MEMORY_HOST) << attr.kind;
    if (attr.kind == INFINIRT_MEMORY_UNKNOWN) {
        EXPECT_EQ(attr.base, nullptr);
        EXPECT_EQ(attr.size, 0u);
    }
}

TEST_P(Memory, FreedPointerIsNoLongerDeviceMemory) {
    REQUIRE_FEATURES(Feature::kMemory);
    void *d = nullptr;
    ASSERT_OK(infinirtMalloc(&d, kSize));
    ASSERT_OK(infinirtFree(d));
    infinirtPointerAttributes_t attr{};
    attr.struct_size = sizeof(attr);
    ASSERT_OK(infinirtPointerGetAttributes(&attr, d));
    EXPECT_NE(attr.kind, INFINIRT_MEMORY_DEVICE);
}

INSTANTIATE_ON_ALL_DEVICES(Memory);

} // namespace
} // namespace infinirt_test
