// Copies of every kind, synchronous and asynchronous, with the data checked on the host.
#include "device_test.h"
#include "resources.h"

#include <cstring>

namespace infinirt_test {
namespace {

class Memcpy : public DeviceTest {
protected:
    Memcpy() : DeviceTest({Feature::kMemory}) {}
};

constexpr size_t kSize = 1 << 20;

TEST_P(Memcpy, HostToHost) {
    const std::vector<uint8_t> src = Pattern(kSize, 1);
    std::vector<uint8_t> dst(kSize, 0);
    ASSERT_OK(infinirtMemcpy(dst.data(), src.data(), kSize, INFINIRT_MEMCPY_H2H));
    EXPECT_EQ(dst, src);
}

TEST_P(Memcpy, HostToDeviceToHost) {
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    const std::vector<uint8_t> src = Pattern(kSize, 2);
    std::vector<uint8_t> back(kSize, 0);
    ASSERT_OK(infinirtMemcpy(d, src.data(), kSize, INFINIRT_MEMCPY_H2D));
    ASSERT_OK(infinirtMemcpy(back.data(), d, kSize, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(back, src);
}

TEST_P(Memcpy, DeviceToDevice) {
    DeviceBuffer a;
    DeviceBuffer b;
    ASSERT_OK(a.Malloc(kSize));
    ASSERT_OK(b.Malloc(kSize));
    const std::vector<uint8_t> src = Pattern(kSize, 3);
    std::vector<uint8_t> back(kSize, 0);
    ASSERT_OK(infinirtMemcpy(a, src.data(), kSize, INFINIRT_MEMCPY_H2D));
    ASSERT_OK(infinirtMemcpy(b, a, kSize, INFINIRT_MEMCPY_D2D));
    ASSERT_OK(infinirtMemcpy(back.data(), b, kSize, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(back, src);
}

TEST_P(Memcpy, InteriorPointersAndPartialSizes) {
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    const std::vector<uint8_t> src = Pattern(kSize, 4);
    ASSERT_OK(infinirtMemset(d, 0, kSize));
    auto *base = static_cast<uint8_t *>(d.get());
    const size_t offset = 4093; // deliberately unaligned
    const size_t length = 12345;
    ASSERT_OK(infinirtMemcpy(base + offset, src.data(), length, INFINIRT_MEMCPY_H2D));
    std::vector<uint8_t> back(kSize, 0xee);
    ASSERT_OK(infinirtMemcpy(back.data(), d, kSize, INFINIRT_MEMCPY_D2H));
    for (size_t i = 0; i < kSize; ++i) {
        const uint8_t expected = (i >= offset && i < offset + length) ? src[i - offset] : 0;
        ASSERT_EQ(back[i], expected) << "at byte " << i;
    }
}

TEST_P(Memcpy, DefaultKindInfersDirection) {
    DeviceBuffer a;
    DeviceBuffer b;
    ASSERT_OK(a.Malloc(kSize));
    ASSERT_OK(b.Malloc(kSize));
    const std::vector<uint8_t> src = Pattern(kSize, 5);
    std::vector<uint8_t> back(kSize, 0);
    std::vector<uint8_t> host_copy(kSize, 0);
    ASSERT_OK(infinirtMemcpy(a, src.data(), kSize, INFINIRT_MEMCPY_DEFAULT));
    ASSERT_OK(infinirtMemcpy(b, a, kSize, INFINIRT_MEMCPY_DEFAULT));
    ASSERT_OK(infinirtMemcpy(back.data(), b, kSize, INFINIRT_MEMCPY_DEFAULT));
    EXPECT_EQ(back, src);
    ASSERT_OK(infinirtMemcpy(host_copy.data(), back.data(), kSize, INFINIRT_MEMCPY_DEFAULT));
    EXPECT_EQ(host_copy, src);
}

TEST_P(Memcpy, SizeZeroIsANoOp) {
    REQUIRE_FEATURES(Feature::kStreams);
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(64));
    std::vector<uint8_t> host(64, 0x77);
    EXPECT_OK(infinirtMemcpy(d, host.data(), 0, INFINIRT_MEMCPY_H2D));
    EXPECT_OK(infinirtMemcpy(host.data(), d, 0, INFINIRT_MEMCPY_D2H));
    EXPECT_OK(infinirtMemcpyAsync(host.data(), d, 0, INFINIRT_MEMCPY_D2H, nullptr));
    ASSERT_OK(infinirtStreamSynchronize(nullptr));
    EXPECT_EQ(host, std::vector<uint8_t>(64, 0x77));
}

TEST_P(Memcpy, AsyncEveryKindWithPinnedHost) {
    REQUIRE_FEATURES(Feature::kStreams);
    ScopedStream s;
    ASSERT_OK(s.Create());
    PinnedBuffer pinned_src;
    PinnedBuffer pinned_dst;
    ASSERT_OK(pinned_src.MallocHost(kSize));
    ASSERT_OK(pinned_dst.MallocHost(kSize));
    DeviceBuffer a;
    DeviceBuffer b;
    ASSERT_OK(a.Malloc(kSize));
    ASSERT_OK(b.Malloc(kSize));

    const std::vector<uint8_t> src = Pattern(kSize, 6);
    std::memcpy(pinned_src, src.data(), kSize);
    std::memset(pinned_dst, 0, kSize);
    std::vector<uint8_t> h2h(kSize, 0);
    Defer drain([&] { infinirtStreamSynchronize(s); });

    ASSERT_OK(infinirtMemcpyAsync(a, pinned_src, kSize, INFINIRT_MEMCPY_H2D, s));
    ASSERT_OK(infinirtMemcpyAsync(b, a, kSize, INFINIRT_MEMCPY_D2D, s));
    ASSERT_OK(infinirtMemcpyAsync(pinned_dst, b, kSize, INFINIRT_MEMCPY_D2H, s));
    ASSERT_OK(infinirtMemcpyAsync(h2h.data(), pinned_dst, kSize, INFINIRT_MEMCPY_H2H, s));
    ASSERT_OK(infinirtStreamSynchronize(s));
    EXPECT_EQ(0, std::memcmp(pinned_dst, src.data(), kSize));
    EXPECT_EQ(h2h, src);
}

TEST_P(Memcpy, AsyncDefaultKindAndPageableHost) {
    REQUIRE_FEATURES(Feature::kStreams);
    ScopedStream s;
    ASSERT_OK(s.Create());
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    const std::vector<uint8_t> src = Pattern(kSize, 7);
    std::vector<uint8_t> back(kSize, 0);
    Defer drain([&] { infinirtStreamSynchronize(s); });
    ASSERT_OK(infinirtMemcpyAsync(d, src.data(), kSize, INFINIRT_MEMCPY_DEFAULT, s));
    ASSERT_OK(infinirtMemcpyAsync(back.data(), d, kSize, INFINIRT_MEMCPY_DEFAULT, s));
    ASSERT_OK(infinirtStreamSynchronize(s));
    EXPECT_EQ(back, src);
}

TEST_P(Memcpy, AsyncOnDefaultStream) {
    REQUIRE_FEATURES(Feature::kStreams);
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    const std::vector<uint8_t> src = Pattern(kSize, 8);
    std::vector<uint8_t> back(kSize, 0);
    Defer drain([&] { infinirtStreamSynchronize(nullptr); });
    ASSERT_OK(infinirtMemcpyAsync(d, src.data(), kSize, INFINIRT_MEMCPY_H2D, nullptr));
    ASSERT_OK(infinirtMemcpyAsync(back.data(), d, kSize, INFINIRT_MEMCPY_D2H, nullptr));
    ASSERT_OK(infinirtStreamSynchronize(nullptr));
    EXPECT_EQ(back, src);
}

// Later copies on one stream must observe earlier ones: a is overwritten only after b took its
// first content, so b and c end up holding different patterns.
TEST_P(Memcpy, InOrderOnOneStream) {
    REQUIRE_FEATURES(Feature::kStreams);
    ScopedStream s;
    ASSERT_OK(s.Create());
    void *first = nullptr;
    void *second = nullptr;
    void *result_b = nullptr;
    void *result_c = nullptr;
    for (void **p : {&first, &second, &result_b, &result_c}) {
        ASSERT_OK(infinirtMallocHost(p, kSize));
    }
    Defer free_host([&] {
        for (void *p : {first, second, result_b, result_c}) {
            infinirtFreeHost(p);
        }
    });
    void *a = nullptr;
    void *b = nullptr;
    void *c = nullptr;
    for (void **p : {&a, &b, &c}) {
        ASSERT_OK(infinirtMalloc(p, kSize));
    }
    Defer free_dev([&] {
        for (void *p : {a, b, c}) {
            infinirtFree(p);
        }
    });
    const std::vector<uint8_t> p1 = Pattern(kSize, 9);
    const std::vector<uint8_t> p2 = Pattern(kSize, 10);
    std::memcpy(first, p1.data(), kSize);
    std::memcpy(second, p2.data(), kSize);

    ScopedBusyWork busy(s);
    ASSERT_TRUE(busy.Enqueue());
    ASSERT_OK(infinirtMemcpyAsync(a, first, kSize, INFINIRT_MEMCPY_H2D, s));
    ASSERT_OK(infinirtMemcpyAsync(b, a, kSize, INFINIRT_MEMCPY_D2D, s));
    ASSERT_OK(infinirtMemcpyAsync(a, second, kSize, INFINIRT_MEMCPY_H2D, s));
    ASSERT_OK(infinirtMemcpyAsync(c, a, kSize, INFINIRT_MEMCPY_D2D, s));
    ASSERT_OK(infinirtMemcpyAsync(result_b, b, kSize, INFINIRT_MEMCPY_D2H, s));
    ASSERT_OK(infinirtMemcpyAsync(result_c, c, kSize, INFINIRT_MEMCPY_D2H, s));
    ASSERT_OK(infinirtStreamSynchronize(s));
    EXPECT_EQ(0, std::memcmp(result_b, p1.data(), kSize));
    EXPECT_EQ(0, std::memcmp(result_c, p2.data(), kSize));
}

// A synchronous copy is ordered after work already queued on the device's default stream.
TEST_P(Memcpy, SyncCopyWaitsForDefaultStream) {
    REQUIRE_FEATURES(Feature::kStreams);
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    ScopedBusyWork busy(nullptr);
    ASSERT_TRUE(busy.Enqueue());
    ASSERT_OK(infinirtMemsetAsync(d, 0x3c, kSize, nullptr));
    std::vector<uint8_t> back(kSize, 0);
    ASSERT_OK(infinirtMemcpy(back.data(), d, kSize, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(back, std::vector<uint8_t>(kSize, 0x3c));
}

INSTANTIATE_ON_ALL_DEVICES(Memcpy);

} // namespace
} // namespace infinirt_test
