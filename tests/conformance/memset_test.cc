// Memset and MemsetAsync: the value is converted to unsigned char; async ones are stream-ordered.
#include "device_test.h"

#include <cstring>

namespace infinirt_test {
namespace {

class Memset : public DeviceTest {};

constexpr size_t kSize = 256 * 1024;

TEST_P(Memset, SetsWholeAndPartialRanges) {
    void *d = nullptr;
    ASSERT_OK(infinirtMalloc(&d, kSize));
    Defer free_d([&] { infinirtFree(d); });
    ASSERT_OK(infinirtMemset(d, 0xab, kSize));
    ASSERT_OK(infinirtMemset(static_cast<uint8_t *>(d) + 1001, 0x11, 999));
    std::vector<uint8_t> back(kSize, 0);
    ASSERT_OK(infinirtMemcpy(back.data(), d, kSize, INFINIRT_MEMCPY_D2H));
    for (size_t i = 0; i < kSize; ++i) {
        ASSERT_EQ(back[i], (i >= 1001 && i < 2000) ? 0x11 : 0xab) << "at byte " << i;
    }
}

TEST_P(Memset, ValueIsConvertedToUnsignedChar) {
    void *d = nullptr;
    ASSERT_OK(infinirtMalloc(&d, 64));
    Defer free_d([&] { infinirtFree(d); });
    std::vector<uint8_t> back(64, 0);
    ASSERT_OK(infinirtMemset(d, 0x1fe, 32));
    ASSERT_OK(infinirtMemset(static_cast<uint8_t *>(d) + 32, -1, 32));
    ASSERT_OK(infinirtMemcpy(back.data(), d, 64, INFINIRT_MEMCPY_D2H));
    for (size_t i = 0; i < 64; ++i) {
        ASSERT_EQ(back[i], i < 32 ? 0xfe : 0xff) << "at byte " << i;
    }
}

TEST_P(Memset, AsyncIsOrderedWithCopies) {
    infinirtStream_t s = nullptr;
    ASSERT_OK(infinirtStreamCreate(&s));
    Defer destroy_s([&] { infinirtStreamDestroy(s); });
    void *d = nullptr;
    ASSERT_OK(infinirtMalloc(&d, kSize));
    Defer free_d([&] { infinirtFree(d); });
    void *first = nullptr;
    void *second = nullptr;
    ASSERT_OK(infinirtMallocHost(&first, kSize));
    Defer free_first([&] { infinirtFreeHost(first); });
    ASSERT_OK(infinirtMallocHost(&second, kSize));
    Defer free_second([&] { infinirtFreeHost(second); });

    BusyWork busy;
    Defer free_busy([&] {
        infinirtStreamSynchronize(s);
        FreeBusyWork(busy);
    });
    ASSERT_TRUE(EnqueueBusyWork(s, kBusyBytes, kBusyRounds, &busy));
    ASSERT_OK(infinirtMemsetAsync(d, 0x21, kSize, s));
    ASSERT_OK(infinirtMemcpyAsync(first, d, kSize, INFINIRT_MEMCPY_D2H, s));
    ASSERT_OK(infinirtMemsetAsync(static_cast<uint8_t *>(d) + 10, 0x42, 20, s));
    ASSERT_OK(infinirtMemcpyAsync(second, d, kSize, INFINIRT_MEMCPY_D2H, s));
    ASSERT_OK(infinirtStreamSynchronize(s));
    const auto *f = static_cast<const uint8_t *>(first);
    const auto *g = static_cast<const uint8_t *>(second);
    for (size_t i = 0; i < kSize; ++i) {
        ASSERT_EQ(f[i], 0x21) << "first copy, byte " << i;
        ASSERT_EQ(g[i], (i >= 10 && i < 30) ? 0x42 : 0x21) << "second copy, byte " << i;
    }
}

TEST_P(Memset, AsyncOnDefaultStream) {
    void *d = nullptr;
    ASSERT_OK(infinirtMalloc(&d, kSize));
    Defer free_d([&] { infinirtFree(d); });
    ASSERT_OK(infinirtMemsetAsync(d, 0x5e, kSize, nullptr));
    ASSERT_OK(infinirtStreamSynchronize(nullptr));
    std::vector<uint8_t> back(kSize, 0);
    ASSERT_OK(infinirtMemcpy(back.data(), d, kSize, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(back, std::vector<uint8_t>(kSize, 0x5e));
}

INSTANTIATE_ON_ALL_DEVICES(Memset);

} // namespace
} // namespace infinirt_test
