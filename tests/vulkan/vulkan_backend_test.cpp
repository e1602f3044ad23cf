// What is specific to the vulkan backend, through the C ABI on every vulkan device found (lavapipe
// in CI); skipped where there is none. The semantics every backend shares are in tests/conformance.
#include "infinirt.h"
#include "vulkan_devices.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

class Vulkan : public ::testing::TestWithParam<int> {
  protected:
    void SetUp() override { ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_VULKAN, GetParam()), INFINI_STATUS_SUCCESS); }
};

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Vulkan);

TEST_P(Vulkan, Properties) {
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof(props);
    ASSERT_EQ(infinirtGetDeviceProperties(INFINI_DEVICE_VULKAN, GetParam(), &props), INFINI_STATUS_SUCCESS);
    EXPECT_STRNE(props.name, "");
    EXPECT_EQ(std::string(props.platform).rfind("Vulkan 1.", 0), 0u) << props.platform;
    EXPECT_EQ(props.has_uuid, 1);
    EXPECT_GT(props.total_memory, 0u);
    EXPECT_GE(props.max_threads_per_block, 128); // Vulkan's minimum maxComputeWorkGroupInvocations
    EXPECT_NE(props.device_kind, INFINIRT_DEVICE_KIND_UNKNOWN);
}

// Interior addresses of an allocation map back to it: copies to and from odd offsets, and a
// fill of every ragged head and tail (vkCmdFillBuffer alone writes aligned words only).
TEST_P(Vulkan, InteriorAddressesAndRaggedFills) {
    constexpr size_t kSize = 64;
    void *dev = nullptr;
    ASSERT_EQ(infinirtMalloc(&dev, kSize), INFINI_STATUS_SUCCESS);
    unsigned char *base = static_cast<unsigned char *>(dev);
    std::vector<unsigned char> host(kSize), back(kSize);
    for (size_t offset = 0; offset < 8; ++offset) {
        for (size_t count = 1; count <= 13; ++count) {
            for (size_t i = 0; i < kSize; ++i) {
                host[i] = static_cast<unsigned char>(i * 7 + offset);
            }
            ASSERT_EQ(infinirtMemcpy(base, host.data(), kSize, INFINIRT_MEMCPY_H2D), INFINI_STATUS_SUCCESS);
            ASSERT_EQ(infinirtMemset(base + offset, static_cast<int>(0xA0 + count), count), INFINI_STATUS_SUCCESS);
            std::vector<unsigned char> expect = host;
            std::memset(expect.data() + offset, static_cast<int>(0xA0 + count), count);
            ASSERT_EQ(infinirtMemcpy(back.data(), base, kSize, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
            ASSERT_EQ(back, expect) << "offset " << offset << " count " << count;
        }
    }
    // A copy between two interior ranges of the same allocation that do not overlap, and one
    // that does (through the host: vkCmdCopyBuffer's regions must not overlap).
    for (size_t i = 0; i < kSize; ++i) {
        host[i] = static_cast<unsigned char>(i);
    }
    ASSERT_EQ(infinirtMemcpy(base, host.data(), kSize, INFINIRT_MEMCPY_H2D), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemcpy(base + 33, base + 1, 20, INFINIRT_MEMCPY_D2D), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemcpy(base + 5, base + 3, 20, INFINIRT_MEMCPY_D2D), INFINI_STATUS_SUCCESS);
    std::vector<unsigned char> expect = host;
    std::memmove(expect.data() + 33, expect.data() + 1, 20);
    std::memmove(expect.data() + 5, expect.data() + 3, 20);
    ASSERT_EQ(infinirtMemcpy(back.data(), base, kSize, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(back, expect);
    EXPECT_EQ(infinirtFree(dev), INFINI_STATUS_SUCCESS);
}

// Device-to-device copies of every shape: aligned to 16 bytes (the copy shader's words where it is
// on, with a tail of 1..15 bytes), and not (vkCmdCopyBuffer). The vulkan.shader_copy entry runs this
// with INFINIRT_VULKAN_SHADER_COPY=1, so that lavapipe runs the shader too.
TEST_P(Vulkan, DeviceCopiesOfEveryShape) {
    constexpr size_t kSize = size_t(1) << 20;
    void *a = nullptr, *b = nullptr;
    ASSERT_EQ(infinirtMalloc(&a, kSize), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMalloc(&b, kSize), INFINI_STATUS_SUCCESS);
    std::vector<unsigned char> host(kSize), back(kSize);
    for (size_t i = 0; i < kSize; ++i) {
        host[i] = static_cast<unsigned char>((i * 131) ^ (i >> 9));
    }
    ASSERT_EQ(infinirtMemcpy(a, host.data(), kSize, INFINIRT_MEMCPY_H2D), INFINI_STATUS_SUCCESS);
    for (size_t src_offset : {size_t(0), size_t(16), size_t(3)}) {
        for (size_t dst_offset : {size_t(0), size_t(32), size_t(5)}) {
            for (size_t size : {size_t(16), size_t(17), size_t(4096 + 7), kSize - 64}) {
                ASSERT_EQ(infinirtMemset(b, 0, kSize), INFINI_STATUS_SUCCESS);
                ASSERT_EQ(infinirtMemcpy(static_cast<unsigned char *>(b) + dst_offset,
                                         static_cast<unsigned char *>(a) + src_offset, size, INFINIRT_MEMCPY_D2D),
                          INFINI_STATUS_SUCCESS);
                ASSERT_EQ(infinirtMemcpy(back.data(), b, kSize, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
                std::vector<unsigned char> expect(kSize, 0);
                std::memcpy(expect.data() + dst_offset, host.data() + src_offset, size);
                ASSERT_TRUE(back == expect) << "src offset " << src_offset << ", dst offset " << dst_offset
                                            << ", " << size << " bytes";
            }
        }
    }
    EXPECT_EQ(infinirtFree(a), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFree(b), INFINI_STATUS_SUCCESS);
}

// Pageable copies through more staging chunks than are in flight at once (8 MiB each, four in
// turn), both ways, on a stream, and pinned copies of the same data; the host's share of each chunk
// is split over the copy threads (vulkan.copy_threads runs this with more of them than there are
// cores, and with none). The vulkan.host_import entry runs this with
// INFINIRT_VULKAN_HOST_IMPORT=1: where the device has VK_EXT_external_memory_host the pageable
// range (not aligned: a vector's) is then imported rather than staged.
TEST_P(Vulkan, LargePageableAndPinnedCopies) {
    const size_t size = (size_t(44) << 20) + 5;
    std::vector<unsigned char> host(size), back(size, 0);
    for (size_t i = 0; i < size; ++i) {
        host[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
    }
    void *dev = nullptr, *pinned = nullptr;
    ASSERT_EQ(infinirtMalloc(&dev, size), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMallocHost(&pinned, size), INFINI_STATUS_SUCCESS);
    infinirtStream_t stream = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&stream), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemcpyAsync(dev, host.data(), size, INFINIRT_MEMCPY_H2D, stream), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemcpyAsync(back.data(), dev, size, INFINIRT_MEMCPY_D2H, stream), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtStreamSynchronize(stream), INFINI_STATUS_SUCCESS);
    EXPECT_TRUE(back == host);
    ASSERT_EQ(infinirtMemsetAsync(dev, 0, size, stream), INFINI_STATUS_SUCCESS);
    std::memcpy(pinned, host.data(), size);
    ASSERT_EQ(infinirtMemcpyAsync(dev, pinned, size, INFINIRT_MEMCPY_H2D, stream), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemsetAsync(pinned, 0, 1, stream), INFINI_STATUS_SUCCESS); // pinned memory can be filled
    ASSERT_EQ(infinirtMemcpyAsync(pinned, dev, size, INFINIRT_MEMCPY_D2H, stream), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtStreamSynchronize(stream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(std::memcmp(pinned, host.data(), size), 0);
    EXPECT_EQ(infinirtStreamDestroy(stream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFreeHost(pinned), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFree(dev), INFINI_STATUS_SUCCESS);
}

// A stream is busy while its work runs and idle once it ended; a timed event pair measures a
// non-negative time; a second stream waiting for the first's event sees its data.
TEST_P(Vulkan, QueriesTellTheTruth) {
    const size_t size = size_t(16) << 20;
    void *a = nullptr, *b = nullptr;
    ASSERT_EQ(infinirtMalloc(&a, size), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMalloc(&b, size), INFINI_STATUS_SUCCESS);
    infinirtStream_t first = nullptr, second = nullptr;
    infinirtEvent_t start = nullptr, end = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&first), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtStreamCreate(&second), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtEventCreate(&start), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtEventCreate(&end), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtEventRecord(start, first), INFINI_STATUS_SUCCESS);
    for (int i = 0; i < 8; ++i) {
        ASSERT_EQ(infinirtMemsetAsync(a, 0x11 * (i + 1), size, first), INFINI_STATUS_SUCCESS);
    }
    ASSERT_EQ(infinirtEventRecord(end, first), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtStreamWaitEvent(second, end), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemcpyAsync(b, a, size, INFINIRT_MEMCPY_D2D, second), INFINI_STATUS_SUCCESS);
    const infiniStatus_t busy = infinirtStreamQuery(second);
    EXPECT_TRUE(busy == INFINI_STATUS_SUCCESS || busy == INFINI_STATUS_NOT_READY);
    ASSERT_EQ(infinirtStreamSynchronize(second), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtStreamQuery(second), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtStreamQuery(first), INFINI_STATUS_SUCCESS); // second waited for all of first
    infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
    ASSERT_EQ(infinirtEventQuery(end, &status), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(status, INFINIRT_EVENT_COMPLETE);
    float ms = -1;
    ASSERT_EQ(infinirtEventElapsedTime(&ms, start, end), INFINI_STATUS_SUCCESS);
    EXPECT_GE(ms, 0.0f);
    std::vector<unsigned char> back(size);
    ASSERT_EQ(infinirtMemcpy(back.data(), b, size, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(back.front(), 0x88);
    EXPECT_EQ(back.back(), 0x88);
    EXPECT_EQ(infinirtEventDestroy(start), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtEventDestroy(end), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtStreamDestroy(first), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtStreamDestroy(second), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFree(a), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFree(b), INFINI_STATUS_SUCCESS);
}

// Work enqueued waits in the stream's open batch; it must still run without any later infinirt
// call (the plugin's flusher thread submits it): the host polls pinned memory that a batched copy
// writes, calling nothing, and sees the data arrive. Twice: the second time after 20 ms without
// work on the stream.
TEST_P(Vulkan, BatchedWorkRunsWithoutALaterCall) {
    const size_t big = size_t(32) << 20;
    void *dev = nullptr, *pinned = nullptr;
    ASSERT_EQ(infinirtMalloc(&dev, big), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMallocHost(&pinned, 64), INFINI_STATUS_SUCCESS);
    std::memset(pinned, 0, 64);
    infinirtStream_t stream = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&stream), INFINI_STATUS_SUCCESS);
    for (int i = 1; i <= 4; ++i) { // all wait in the stream's open batch
        ASSERT_EQ(infinirtMemsetAsync(dev, 0x70 + i, big, stream), INFINI_STATUS_SUCCESS);
    }
    ASSERT_EQ(infinirtMemcpyAsync(pinned, dev, 64, INFINIRT_MEMCPY_D2H, stream), INFINI_STATUS_SUCCESS);
    volatile unsigned char *seen = static_cast<volatile unsigned char *>(pinned);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (seen[63] != 0x74 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    EXPECT_EQ(seen[0], 0x74);
    EXPECT_EQ(seen[63], 0x74) << "the batched copy did not run within 20 s without a later call";
    ASSERT_EQ(infinirtStreamSynchronize(stream), INFINI_STATUS_SUCCESS);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_EQ(infinirtMemsetAsync(dev, 0x21, 64, stream), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemcpyAsync(pinned, dev, 64, INFINIRT_MEMCPY_D2H, stream), INFINI_STATUS_SUCCESS);
    const auto again = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (seen[63] != 0x21 && std::chrono::steady_clock::now() < again) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    EXPECT_EQ(seen[63], 0x21) << "a batch opened after 20 ms without work did not run within 20 s without a later call";
    ASSERT_EQ(infinirtStreamSynchronize(stream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtStreamQuery(stream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtStreamDestroy(stream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFreeHost(pinned), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFree(dev), INFINI_STATUS_SUCCESS);
}

// Small commands batched behind a long fill run without a barrier between them only where their
// order cannot matter: a chain of reads after writes, writes after reads, writes of other content
// over the same bytes (a fill's ragged edge sharing a word with another's), and repeats, every one
// checked against the same steps done on the host. The vulkan.shader_copy entry runs it with the
// copy shader on.
TEST_P(Vulkan, BatchedCommandsKeepStreamOrder) {
    constexpr size_t kBusy = size_t(64) << 20, kSize = 1024;
    void *busy = nullptr, *x = nullptr, *y = nullptr;
    ASSERT_EQ(infinirtMalloc(&busy, kBusy), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMalloc(&x, kSize), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMalloc(&y, kSize), INFINI_STATUS_SUCCESS);
    infinirtStream_t stream = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&stream), INFINI_STATUS_SUCCESS);
    std::vector<unsigned char> hx(kSize, 0), hy(kSize, 0);
    unsigned char *dx = static_cast<unsigned char *>(x), *dy = static_cast<unsigned char *>(y);
    ASSERT_EQ(infinirtMemset(x, 0, kSize), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemset(y, 0, kSize), INFINI_STATUS_SUCCESS);
    auto fill = [&](bool on_x, size_t at, int value, size_t n) {
        ASSERT_EQ(infinirtMemsetAsync((on_x ? dx : dy) + at, value, n, stream), INFINI_STATUS_SUCCESS);
        std::memset((on_x ? hx : hy).data() + at, value, n);
    };
    auto copy = [&](bool to_x, size_t to, size_t from, size_t n) { // from the other buffer
        ASSERT_EQ(infinirtMemcpyAsync((to_x ? dx : dy) + to, (to_x ? dy : dx) + from, n, INFINIRT_MEMCPY_D2D, stream),
                  INFINI_STATUS_SUCCESS);
        std::memcpy((to_x ? hx : hy).data() + to, (to_x ? hy : hx).data() + from, n);
    };
    for (int round = 0; round < 3; ++round) {
        ASSERT_EQ(infinirtMemsetAsync(busy, round, kBusy, stream), INFINI_STATUS_SUCCESS); // the rest is batched
        fill(true, 0, 1 + round, 256);
        copy(false, 0, 0, 256);        // reads what the fill wrote
        fill(true, 0, 2 + round, 256); // writes what the copy read
        copy(false, 256, 0, 256);
        copy(false, 256, 0, 256);      // a repeat: the same bytes
        fill(true, 100, 9, 3);         // ragged: bytes 100..102 of the word 100..103
        fill(true, 103, 9, 5);         // the same word, the same value
        fill(true, 108, 7, 2);         // the next word's first bytes...
        fill(true, 110, 8, 3);         // ...and its last two, another value
        copy(false, 512, 96, 32);      // reads all of them
        fill(false, 520, 5, 4);        // writes over what the copy wrote
        copy(true, 600, 512, 48);      // reads that
        fill(true, 601, 6, 40);        // and overwrites it again, ragged both ends
        copy(false, 700, 600, 64);
    }
    ASSERT_EQ(infinirtStreamSynchronize(stream), INFINI_STATUS_SUCCESS);
    std::vector<unsigned char> back(kSize);
    ASSERT_EQ(infinirtMemcpy(back.data(), x, kSize, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    EXPECT_TRUE(back == hx) << "x differs from the same steps on the host";
    ASSERT_EQ(infinirtMemcpy(back.data(), y, kSize, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    EXPECT_TRUE(back == hy) << "y differs from the same steps on the host";
    EXPECT_EQ(infinirtStreamDestroy(stream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFree(busy), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFree(x), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFree(y), INFINI_STATUS_SUCCESS);
}

// Small asynchronous fills go into the stream's fill list, set by one dispatch per group
// (vulkan_stream.h): thousands of fills of every length and alignment, into device and pinned
// memory, overlapping one another with other values, read by copies between them, and more than
// the list's ring holds without a synchronize (it wraps, and where it holds only records of
// batches not yet complete, fills are recorded one by one). The bytes match the same steps on the
// host. The vulkan.fill_list_off entry runs it with the list off (INFINIRT_VULKAN_FILL_LIST=0).
TEST_P(Vulkan, ManySmallFillsInStreamOrder) {
    constexpr size_t kSize = 64 << 10, kPinned = 8 << 10;
    void *d = nullptr, *p = nullptr;
    ASSERT_EQ(infinirtMalloc(&d, kSize), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMallocHost(&p, kPinned), INFINI_STATUS_SUCCESS);
    infinirtStream_t stream = nullptr;
    ASSERT_EQ(infinirtStreamCreate(&stream), INFINI_STATUS_SUCCESS);
    unsigned char *dd = static_cast<unsigned char *>(d), *pp = static_cast<unsigned char *>(p);
    std::vector<unsigned char> hd(kSize, 0x11), hp(kPinned, 0x22);
    ASSERT_EQ(infinirtMemset(d, 0x11, kSize), INFINI_STATUS_SUCCESS);
    std::memset(p, 0x22, kPinned);
    uint64_t state = 0x9e3779b97f4a7c15ull;
    auto next = [&](uint64_t bound) { // xorshift64*: the same steps on every run
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        return (state * 0x2545f4914f6cdd1dull >> 33) % bound;
    };
    size_t last_fill = 0; // where the last fill of device memory began
    for (int i = 0; i < 12000; ++i) {
        const uint64_t kind = next(100);
        if (kind < 3) { // a copy of what the last fill of device memory wrote, elsewhere
            const size_t n = 1 + next(512), from = std::min(last_fill, kSize - n);
            size_t to = next(kSize - n + 1);
            while (to < from + n && from < to + n) {
                to = next(kSize - n + 1);
            }
            ASSERT_EQ(infinirtMemcpyAsync(dd + to, dd + from, n, INFINIRT_MEMCPY_D2D, stream), INFINI_STATUS_SUCCESS);
            std::memcpy(hd.data() + to, hd.data() + from, n);
            continue;
        }
        const bool pinned = kind < 12;
        const size_t size = pinned ? kPinned : kSize;
        // Mostly small (the list's), some past its 4 KiB.
        const size_t n = 1 + (next(10) == 0 ? next(6000) : next(200));
        const size_t at = next(size - n + 1);
        const int value = static_cast<int>(next(256));
        ASSERT_EQ(infinirtMemsetAsync((pinned ? pp : dd) + at, value, n, stream), INFINI_STATUS_SUCCESS)
            << "fill " << i << ": " << n << " bytes at " << at;
        std::memset((pinned ? hp : hd).data() + at, value, n);
        last_fill = pinned ? last_fill : at;
    }
    ASSERT_EQ(infinirtStreamSynchronize(stream), INFINI_STATUS_SUCCESS);
    std::vector<unsigned char> back(kSize);
    ASSERT_EQ(infinirtMemcpy(back.data(), d, kSize, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    EXPECT_TRUE(back == hd) << "device memory differs from the same steps on the host";
    EXPECT_EQ(std::memcmp(p, hp.data(), kPinned), 0) << "pinned memory differs from the same steps on the host";
    EXPECT_EQ(infinirtStreamDestroy(stream), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFree(d), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFreeHost(p), INFINI_STATUS_SUCCESS);
}

// INFINIRT_VULKAN_MEMORY_LIMIT (the vulkan.memory_limit entry: 64 MiB): the device reports it and
// allocates no more; the refusal names the figures.
TEST_P(Vulkan, MemoryLimit) {
    const char *limit = std::getenv("INFINIRT_VULKAN_MEMORY_LIMIT");
    if (limit == nullptr) {
        GTEST_SKIP() << "runs in the vulkan.memory_limit entry (INFINIRT_VULKAN_MEMORY_LIMIT)";
    }
    const size_t bytes = std::strtoull(limit, nullptr, 10);
    size_t free_bytes = 0, total = 0;
    ASSERT_EQ(infinirtGetMemInfo(INFINI_DEVICE_VULKAN, GetParam(), &free_bytes, &total), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(total, bytes);
    void *most = nullptr, *more = nullptr;
    ASSERT_EQ(infinirtMalloc(&most, bytes - (size_t(1) << 20)), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtMalloc(&more, size_t(2) << 20), INFINI_STATUS_OUT_OF_MEMORY);
    const std::string message = infinirtGetLastErrorMessage();
    EXPECT_NE(message.find("INFINIRT_VULKAN_MEMORY_LIMIT"), std::string::npos) << message;
    EXPECT_NE(message.find("2.0 MiB"), std::string::npos) << message;
    EXPECT_EQ(infinirtFree(most), INFINI_STATUS_SUCCESS);
}

// Two vulkan devices (the vulkan.device_copies entry serves lavapipe twice; NVIDIA's driver gives
// two VkDevices the same addresses): device addresses never meet across devices, each pointer's
// attributes name its own device, and a copy between the two through either device's stream (the
// bytes cannot move directly: a buffer of one VkDevice is not usable by another) moves the bytes.
TEST(VulkanPair, AddressesNeverMeetAndCopiesCrossDevices) {
    const std::vector<int> devices = vulkanDevices();
    if (devices.size() < 2) {
        GTEST_SKIP() << "needs two vulkan devices (the vulkan.device_copies entry: INFINIRT_VULKAN_DEVICE_COPIES=2)";
    }
    struct Block {
        int device;
        char *base;
        size_t size;
    };
    std::vector<Block> blocks;
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < 24; ++i) {
            const int device = i % 2;
            const size_t size = (size_t{64} << 10) << (i % 5); // 64 KiB .. 1 MiB
            ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_VULKAN, device), INFINI_STATUS_SUCCESS);
            void *p = nullptr;
            ASSERT_EQ(infinirtMalloc(&p, size), INFINI_STATUS_SUCCESS) << infinirtGetLastErrorMessage();
            blocks.push_back(Block{device, static_cast<char *>(p), size});
        }
        for (size_t a = 0; a < blocks.size(); ++a) {
            for (size_t b = a + 1; b < blocks.size(); ++b) {
                const bool meet = blocks[a].base < blocks[b].base + blocks[b].size &&
                                  blocks[b].base < blocks[a].base + blocks[a].size;
                ASSERT_FALSE(meet) << "vulkan:" << blocks[a].device << " " << static_cast<void *>(blocks[a].base)
                                   << " and vulkan:" << blocks[b].device << " " << static_cast<void *>(blocks[b].base);
            }
            infinirtPointerAttributes_t attributes{};
            attributes.struct_size = sizeof(attributes);
            ASSERT_EQ(infinirtPointerGetAttributes(&attributes, blocks[a].base + blocks[a].size - 1),
                      INFINI_STATUS_SUCCESS);
            EXPECT_EQ(attributes.device_type, INFINI_DEVICE_VULKAN);
            EXPECT_EQ(attributes.device_id, blocks[a].device);
            EXPECT_EQ(attributes.base, blocks[a].base);
        }
        // Every other block goes, so the next round's addresses may reuse the freed ranges.
        std::vector<Block> kept;
        for (size_t a = 0; a < blocks.size(); ++a) {
            if (a % 2 == 0) {
                ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_VULKAN, blocks[a].device), INFINI_STATUS_SUCCESS);
                ASSERT_EQ(infinirtFree(blocks[a].base), INFINI_STATUS_SUCCESS);
            } else {
                kept.push_back(blocks[a]);
            }
        }
        blocks = kept;
    }
    // A device-to-device copy from vulkan:0's memory into vulkan:1's, at odd offsets, on a stream
    // of each device in turn; pinned memory of vulkan:0 read by vulkan:1's stream.
    constexpr size_t kBytes = (size_t{3} << 20) + 5;
    std::vector<unsigned char> pattern(kBytes), back(kBytes);
    for (size_t i = 0; i < kBytes; ++i) {
        pattern[i] = static_cast<unsigned char>(i * 7 + 3);
    }
    void *src = nullptr, *dst = nullptr, *pinned = nullptr;
    ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_VULKAN, 0), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMalloc(&src, kBytes + 16), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMallocHost(&pinned, kBytes), INFINI_STATUS_SUCCESS);
    std::memcpy(pinned, pattern.data(), kBytes);
    ASSERT_EQ(infinirtMemcpy(static_cast<char *>(src) + 3, pattern.data(), kBytes, INFINIRT_MEMCPY_H2D),
              INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_VULKAN, 1), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMalloc(&dst, kBytes + 16), INFINI_STATUS_SUCCESS);
    for (int on = 0; on < 2; ++on) {
        ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_VULKAN, on), INFINI_STATUS_SUCCESS);
        infinirtStream_t stream = nullptr;
        ASSERT_EQ(infinirtStreamCreate(&stream), INFINI_STATUS_SUCCESS);
        // A fill of another device's memory is refused; on its own device it runs, on the copy's
        // stream (streams are not ordered with the default stream).
        const infiniStatus_t fill_status = on == 1 ? INFINI_STATUS_SUCCESS : INFINI_STATUS_BAD_PARAM;
        ASSERT_EQ(infinirtMemsetAsync(static_cast<char *>(dst) + 11, 0, kBytes, stream), fill_status);
        ASSERT_EQ(infinirtMemcpyAsync(static_cast<char *>(dst) + 11, static_cast<char *>(src) + 3, kBytes,
                                      INFINIRT_MEMCPY_D2D, stream),
                  INFINI_STATUS_SUCCESS)
            << infinirtGetLastErrorMessage();
        ASSERT_EQ(infinirtStreamSynchronize(stream), INFINI_STATUS_SUCCESS);
        std::fill(back.begin(), back.end(), 0);
        ASSERT_EQ(infinirtMemcpy(back.data(), static_cast<char *>(dst) + 11, kBytes, INFINIRT_MEMCPY_D2H),
                  INFINI_STATUS_SUCCESS);
        EXPECT_EQ(back, pattern) << "copy on vulkan:" << on << "'s stream";
        EXPECT_EQ(infinirtStreamDestroy(stream), INFINI_STATUS_SUCCESS);
    }
    ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_VULKAN, 1), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemset(dst, 0, kBytes + 16), INFINI_STATUS_SUCCESS);
    ASSERT_EQ(infinirtMemcpy(dst, pinned, kBytes, INFINIRT_MEMCPY_H2D), INFINI_STATUS_SUCCESS)
        << infinirtGetLastErrorMessage();
    ASSERT_EQ(infinirtMemcpy(back.data(), dst, kBytes, INFINIRT_MEMCPY_D2H), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(back, pattern) << "vulkan:0's pinned memory read by vulkan:1";
    EXPECT_EQ(infinirtFree(dst), INFINI_STATUS_SUCCESS);
    for (const Block &b : blocks) {
        ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_VULKAN, b.device), INFINI_STATUS_SUCCESS);
        EXPECT_EQ(infinirtFree(b.base), INFINI_STATUS_SUCCESS);
    }
    ASSERT_EQ(infinirtSetDevice(INFINI_DEVICE_VULKAN, 0), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFree(src), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinirtFreeHost(pinned), INFINI_STATUS_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Devices, Vulkan, ::testing::ValuesIn(vulkanDevices()),
                         [](const ::testing::TestParamInfo<int> &info) { return "vulkan" + std::to_string(info.param); });

} // namespace
