// Staging that cannot run out: with the memory of the device under test filled to the brim
// (allocated until OUT_OF_MEMORY), pageable copies to and from it, synchronous and on a stream,
// and copies between it and every other device (staged through the loader's host bounce buffers
// where the pair needs it, several at once), all of several MiB, succeed with the right data; again
// after a reset of the device. Everything allocated is freed at the end of each test.
//
// A device whose memory is the host's RAM (cpu, or an OpenCL CPU device such as PoCL) is filled
// only where it reports at most kHostBackedCap (INFINIRT_CPU_MEMORY_LIMIT, POCL_MEMORY_LIMIT: the
// conformance.staging entry sets both); with more, filling it could exhaust the machine, and the
// test skips saying so. The conformance.staging entry also bounds every opencl device to 2 GiB
// (INFINIRT_OPENCL_MEMORY_LIMIT): an OpenCL GPU is then full, for infinirt, at 2 GiB, which is
// what a copy that allocated its staging would meet.
#include "device_test.h"
#include "resources.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace infinirt_test {
namespace {

constexpr size_t kCopyBytes = (size_t(6) << 20) + 4099; // not a whole number of staging chunks
constexpr size_t kHostBackedCap = size_t(2) << 30;
constexpr size_t kSmallestFill = size_t(64) << 10;
constexpr size_t kMostFillAllocations = 4096; // bounds the time on any device
constexpr int kConcurrentCopies = 4;

class Staging : public DeviceTest {
protected:
    Staging() : DeviceTest({Feature::kMemory, Feature::kStreams, Feature::kEvents}) {}

    // Why the device's memory cannot be filled safely here; "" when it can.
    std::string WhyNotFillable() {
        const char *opted = std::getenv("INFINIRT_TEST_FILL_DEVICES");
        if (opted == nullptr || std::string(opted) != "1") {
            return "filling a device runs only in the conformance.staging entry (INFINIRT_TEST_FILL_DEVICES=1, run "
                   "serially), so that no test running beside it meets a full device";
        }
        infinirtDeviceProperties_t props{};
        props.struct_size = sizeof props;
        if (infinirtGetDeviceProperties(type(), id(), &props) != INFINI_STATUS_SUCCESS) {
            return std::string("its properties cannot be read: ") + infinirtGetLastErrorMessage();
        }
        if ((props.device_kind == INFINIRT_DEVICE_KIND_CPU || props.device_kind == INFINIRT_DEVICE_KIND_UNKNOWN) &&
            props.total_memory > kHostBackedCap) {
            return "its memory is the host's RAM and it reports " + std::to_string(props.total_memory >> 20) +
                   " MiB (more than " + std::to_string(kHostBackedCap >> 20) +
                   " MiB): filling it could exhaust the machine; give it less with INFINIRT_CPU_MEMORY_LIMIT (cpu) "
                   "or POCL_MEMORY_LIMIT (PoCL), as the conformance.staging test entry does";
        }
        return "";
    }

    // Allocates the current device's memory until OUT_OF_MEMORY at kSmallestFill bytes, halving
    // the request at each refusal; the allocations go into `fill`.
    ::testing::AssertionResult FillDevice(std::vector<std::unique_ptr<DeviceBuffer>> *fill) {
        size_t free_bytes = 0;
        size_t total = 0;
        if (infinirtGetMemInfo(type(), id(), &free_bytes, &total) != INFINI_STATUS_SUCCESS) {
            return ::testing::AssertionFailure() << "infinirtGetMemInfo: " << infinirtGetLastErrorMessage();
        }
        size_t request = total / 2 > kSmallestFill ? total / 2 : kSmallestFill;
        while (fill->size() < kMostFillAllocations) {
            auto buffer = std::make_unique<DeviceBuffer>();
            const infiniStatus_t st = buffer->Malloc(request);
            if (st == INFINI_STATUS_SUCCESS) {
                fill->push_back(std::move(buffer));
                continue;
            }
            if (st != INFINI_STATUS_OUT_OF_MEMORY) {
                return ::testing::AssertionFailure() << "filling: infinirtMalloc(" << request << ") answered "
                                                     << infinirtGetErrorName(st) << ": " << infinirtGetLastErrorMessage();
            }
            if (request == kSmallestFill) {
                return ::testing::AssertionSuccess();
            }
            request = request / 2 > kSmallestFill ? request / 2 : kSmallestFill;
        }
        return ::testing::AssertionFailure() << "still not full after " << kMostFillAllocations << " allocations";
    }

    // Whether `p` (device memory) holds `expected`, read back with a pageable copy.
    static ::testing::AssertionResult Holds(const void *p, const std::vector<uint8_t> &expected) {
        std::vector<uint8_t> back(expected.size(), 0xee);
        const infiniStatus_t st = infinirtMemcpy(back.data(), p, back.size(), INFINIRT_MEMCPY_D2H);
        if (st != INFINI_STATUS_SUCCESS) {
            return ::testing::AssertionFailure() << "reading back: " << infinirtGetErrorName(st) << ": "
                                                 << infinirtGetLastErrorMessage();
        }
        if (back != expected) {
            return ::testing::AssertionFailure() << "the " << back.size() << " bytes read back differ";
        }
        return ::testing::AssertionSuccess();
    }

    // The devices other than the one under test whose backends declare what a copy needs.
    std::vector<DeviceParam> Partners() const {
        std::vector<DeviceParam> partners;
        for (const DeviceParam &d : AllDevices()) {
            if ((d.type != type() || d.id != id()) && UndeclaredReason(d.backend, Feature::kMemory) == nullptr &&
                UndeclaredReason(d.backend, Feature::kStreams) == nullptr &&
                UndeclaredReason(d.backend, Feature::kEvents) == nullptr) {
                partners.push_back(d);
            }
        }
        return partners;
    }

    // Copies between this device and `partner` while this device is full: `kConcurrentCopies`
    // threads at once, each both ways between buffers allocated before the fill.
    void PeerCopiesWhileFull(const DeviceParam &partner, const std::vector<void *> &here,
                             const std::vector<void *> &there) {
        std::vector<std::thread> threads;
        std::vector<std::string> failures(kConcurrentCopies);
        for (int t = 0; t < kConcurrentCopies; ++t) {
            threads.emplace_back([&, t] {
                const std::vector<uint8_t> out = Pattern(kCopyBytes, static_cast<uint8_t>(40 + t));
                const std::vector<uint8_t> in = Pattern(kCopyBytes, static_cast<uint8_t>(80 + t));
                std::string &failure = failures[t];
                if (infinirtMemcpy(here[t], out.data(), kCopyBytes, INFINIRT_MEMCPY_H2D) != INFINI_STATUS_SUCCESS ||
                    infinirtMemcpy(there[t], in.data(), kCopyBytes, INFINIRT_MEMCPY_H2D) != INFINI_STATUS_SUCCESS) {
                    failure = std::string("uploading: ") + infinirtGetLastErrorMessage();
                    return;
                }
                // The first half of each buffer into the second half of the other.
                const size_t half = kCopyBytes / 2;
                if (infinirtMemcpyPeer(static_cast<char *>(there[t]) + half, partner.type, partner.id, here[t], type(),
                                       id(), half) != INFINI_STATUS_SUCCESS ||
                    infinirtMemcpyPeer(static_cast<char *>(here[t]) + half, type(), id(), there[t], partner.type,
                                       partner.id, half) != INFINI_STATUS_SUCCESS) {
                    failure = std::string("infinirtMemcpyPeer: ") + infinirtGetLastErrorMessage();
                    return;
                }
                std::vector<uint8_t> expect_there = in;
                std::memcpy(expect_there.data() + half, out.data(), half);
                std::vector<uint8_t> expect_here = out;
                std::memcpy(expect_here.data() + half, in.data(), half);
                ::testing::AssertionResult ok = Holds(there[t], expect_there);
                if (ok) {
                    ok = Holds(here[t], expect_here);
                }
                if (!ok) {
                    failure = ok.message();
                }
            });
        }
        for (std::thread &th : threads) {
            th.join();
        }
        for (int t = 0; t < kConcurrentCopies; ++t) {
            EXPECT_EQ(failures[t], "") << "copies with " << InstanceName(partner) << ", thread " << t;
        }
    }

    // The whole scenario on the device under test (current).
    void CopiesSucceedWhileFull() {
        const std::string why = WhyNotFillable();
        if (!why.empty()) {
            GTEST_SKIP() << InstanceName(GetParam()) << " is not filled: " << why;
        }
        // Every buffer the copies use, allocated before the fill.
        DeviceBuffer pageable;
        ASSERT_OK(pageable.Malloc(kCopyBytes));
        const std::vector<DeviceParam> partners = Partners();
        std::vector<std::unique_ptr<DeviceBuffer>> buffers;
        std::vector<std::vector<void *>> here(partners.size());
        std::vector<std::vector<void *>> there(partners.size());
        for (size_t p = 0; p < partners.size(); ++p) {
            for (int t = 0; t < kConcurrentCopies; ++t) {
                buffers.push_back(std::make_unique<DeviceBuffer>());
                ASSERT_OK(buffers.back()->Malloc(kCopyBytes));
                here[p].push_back(*buffers.back());
                ASSERT_OK(infinirtSetDevice(partners[p].type, partners[p].id));
                buffers.push_back(std::make_unique<DeviceBuffer>());
                const infiniStatus_t st = buffers.back()->Malloc(kCopyBytes);
                ASSERT_OK(infinirtSetDevice(type(), id()));
                ASSERT_OK(st) << "on " << InstanceName(partners[p]);
                there[p].push_back(*buffers.back());
            }
        }
        ScopedStream stream;
        ASSERT_OK(stream.Create());

        std::vector<std::unique_ptr<DeviceBuffer>> fill;
        ASSERT_TRUE(FillDevice(&fill));
        DeviceBuffer one_more;
        ASSERT_STATUS(INFINI_STATUS_OUT_OF_MEMORY, one_more.Malloc(kSmallestFill)) << "the device is full";

        // Pageable copies, synchronous and on a stream.
        const std::vector<uint8_t> data = Pattern(kCopyBytes, 7);
        ASSERT_OK(infinirtMemcpy(pageable, data.data(), kCopyBytes, INFINIRT_MEMCPY_H2D));
        EXPECT_TRUE(Holds(pageable, data));
        const std::vector<uint8_t> later = Pattern(kCopyBytes, 8);
        std::vector<uint8_t> back(kCopyBytes, 0);
        ASSERT_OK(infinirtMemcpyAsync(pageable, later.data(), kCopyBytes, INFINIRT_MEMCPY_H2D, stream));
        ASSERT_OK(infinirtMemcpyAsync(back.data(), pageable, kCopyBytes, INFINIRT_MEMCPY_D2H, stream));
        ASSERT_OK(infinirtStreamSynchronize(stream));
        EXPECT_TRUE(back == later) << "the pageable round trip on a stream";

        for (size_t p = 0; p < partners.size(); ++p) {
            PeerCopiesWhileFull(partners[p], here[p], there[p]);
        }
    }
};

TEST_P(Staging, CopiesSucceedWithTheDeviceFull) { CopiesSucceedWhileFull(); }

// A reset frees the device's staging with its pinned memory; its next use reserves it again.
TEST_P(Staging, CopiesSucceedWithTheDeviceFullAfterAReset) {
    ASSERT_OK(infinirtDeviceReset(type(), id()));
    CopiesSucceedWhileFull();
}

INSTANTIATE_ON_ALL_DEVICES(Staging);

} // namespace
} // namespace infinirt_test
