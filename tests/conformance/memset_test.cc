// Memset and MemsetAsync: the value is converted to unsigned char; async ones are stream-ordered.
#include "device_test.h"
#include "resources.h"

#include <cstring>

namespace infinirt_test {
namespace {

class Memset : public DeviceTest {
protected:
    Memset() : DeviceTest({Feature::kMemory}) {}
};

constexpr size_t kSize = 256 * 1024;

TEST_P(Memset, SetsWholeAndPartialRanges) {
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    ASSERT_OK(infinirtMemset(d, 0xab, kSize));
    ASSERT_OK(infinirtMemset(static_cast<uint8_t *>(d.get()) + 1001, 0x11, 999));
    std::vector<uint8_t> back(kSize, 0);
    ASSERT_OK(infinirtMemcpy(back.data(), d, kSize, INFINIRT_MEMCPY_D2H));
    for (size_t i = 0; i < kSize; ++i) {
        ASSERT_EQ(back[i], (i >= 1001 && i < 2000) ? 0x11 : 0xab) << "at byte " << i;
    }
}

TEST_P(Memset, ValueIsConvertedToUnsignedChar) {
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(64));
    std::vector<uint8_t> back(64, 0);
    ASSERT_OK(infinirtMemset(d, 0x1fe, 32));
    ASSERT_OK(infinirtMemset(static_cast<uint8_t *>(d.get()) + 32, -1, 32));
    ASSERT_OK(infinirtMemcpy(back.data(), d, 64, INFINIRT_MEMCPY_D2H));
    for (size_t i = 0; i < 64; ++i) {
        ASSERT_EQ(back[i], i < 32 ? 0xfe : 0xff) << "at byte " << i;
    }
}

TEST_P(Memset, AsyncIsOrderedWithCopies) {
    REQUIRE_FEATURES(Feature::kStreams);
    ScopedStream s;
    ASSERT_OK(s.Create());
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    PinnedBuffer first;
    PinnedBuffer second;
    ASSERT_OK(first.MallocHost(kSize));
    ASSERT_OK(second.MallocHost(kSize));

    ScopedBusyWork busy(s);
    ASSERT_TRUE(busy.Enqueue());
    ASSERT_OK(infinirtMemsetAsync(d, 0x21, kSize, s));
    ASSERT_OK(infinirtMemcpyAsync(first, d, kSize, INFINIRT_MEMCPY_D2H, s));
    ASSERT_OK(infinirtMemsetAsync(static_cast<uint8_t *>(d.get()) + 10, 0x42, 20, s));
    ASSERT_OK(infinirtMemcpyAsync(second, d, kSize, INFINIRT_MEMCPY_D2H, s));
    ASSERT_OK(infinirtStreamSynchronize(s));
    const auto *f = static_cast<const uint8_t *>(first.get());
    const auto *g = static_cast<const uint8_t *>(second.get());
    for (size_t i = 0; i < kSize; ++i) {
        ASSERT_EQ(f[i], 0x21) << "first copy, byte " << i;
        ASSERT_EQ(g[i], (i >= 10 && i < 30) ? 0x42 : 0x21) << "second copy, byte " << i;
    }
}

TEST_P(Memset, AsyncOnDefaultStream) {
    REQUIRE_FEATURES(Feature::kStreams);
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    ASSERT_OK(infinirtMemsetAsync(d, 0x5e, kSize, nullptr));
    ASSERT_OK(infinirtStreamSynchronize(nullptr));
    std::vector<uint8_t> back(kSize, 0);
    ASSERT_OK(infinirtMemcpy(back.data(), d, kSize, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(back, std::vector<uint8_t>(kSize, 0x5e));
}

INSTANTIATE_ON_ALL_DEVICES(Memset);

} // namespace
} // namespace infinirt_test
