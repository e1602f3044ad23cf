/* Registering a very large range of first-touched host memory (cuMemHostRegister): the driver
 * documents no size limit, so infinirt registers it in one call; this test checks that holds on
 * the machine it runs on. INFINIRT_TEST_REGISTER_GIB sets the size (default 16 GiB); the test
 * skips, saying so, where the host lacks that much available memory. */
#include <infinirt.h>

#include "cuda_test_support.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace {

constexpr size_t kMiB = size_t{1} << 20;

size_t RequestedBytes() {
    const char *gib = std::getenv("INFINIRT_TEST_REGISTER_GIB");
    const unsigned long long n = gib != nullptr && *gib != '\0' ? std::strtoull(gib, nullptr, 10) : 16;
    return static_cast<size_t>(n) << 30;
}

TEST(CudaLargeRegistration, CopiesFromTheLastMiB) {
    SKIP_WITHOUT_CUDA_DEVICE();
    const size_t size = RequestedBytes();
    ASSERT_GE(size, kMiB) << "INFINIRT_TEST_REGISTER_GIB must be at least 1";
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t available = static_cast<size_t>(sysconf(_SC_AVPHYS_PAGES)) * page;
    const size_t margin = size_t{2} << 30; /* for the rest of the process and the system */
    if (available < size + margin) {
        GTEST_SKIP() << "the host has " << (available >> 20) << " MiB available, fewer than the " << (size >> 20)
                     << " MiB asked for (INFINIRT_TEST_REGISTER_GIB) plus 2 GiB";
    }
    void *raw = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(raw, MAP_FAILED) << "mmap of " << (size >> 20) << " MiB: " << std::strerror(errno);
    auto *host = static_cast<unsigned char *>(raw);
    std::memset(host, 0x5a, size); /* first touch: every page is resident before registering */
    unsigned char *last = host + size - kMiB;
    for (size_t i = 0; i < kMiB; ++i) {
        last[i] = static_cast<unsigned char>(i * 7 + 3);
    }

    ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_NVIDIA, 0), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtHostRegister(INFINI_DEVICE_NVIDIA, 0, host, size, 0), INFINI_STATUS_SUCCESS)
        << infinirtGetLastErrorMessage();
    infinirtPointerAttributes_t a{};
    a.struct_size = sizeof a;
    EXPECT_EQ(infinirtPointerGetAttributes(&a, last), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(a.kind, INFINIRT_MEMORY_HOST);
    EXPECT_EQ(a.base, host);
    EXPECT_EQ(a.size, size);

    void *device = nullptr;
    ASSERT_EQ(infinirtMalloc(&device, kMiB), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtMemcpy(device, last, kMiB, INFINIRT_MEMCPY_H2D), INFINI_STATUS_SUCCESS)
        << infinirtGetLastErrorMessage();
    std::vector<unsigned char> back(kMiB, 0);
    EXPECT_EQ(infinirtMemcpy(back.data(), device, kMiB, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    size_t wrong = 0;
    for (size_t i = 0; i < kMiB; ++i) {
        wrong += back[i] != static_cast<unsigned char>(i * 7 + 3);
    }
    EXPECT_EQ(wrong, 0u) << "bytes of the last MiB that did not arrive";

    EXPECT_EQ(infinirtFree(device), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtHostUnregister(host), INFINI_STATUS_SUCCESS);
    munmap(raw, size);
}

} // namespace
