// infinirtDeviceReset: what infinirt made on the device is gone (handles INVALID_HANDLE, memory
// released, frees BAD_PARAM), other devices keep theirs, a capture refuses it, and the device
// works afterwards.
#include "device_test.h"
#include "resources.h"

namespace infinirt_test {
namespace {

class DeviceReset : public DeviceTest {
protected:
    DeviceReset() : DeviceTest({Feature::kMemory, Feature::kStreams, Feature::kEvents}) {}

    static size_t LiveAllocations() {
        size_t count = 0;
        size_t bytes = 0;
        EXPECT_OK(infinirtGetLiveAllocations(&count, &bytes));
        return count;
    }
};

TEST_P(DeviceReset, KillsHandlesAndReleasesMemory) {
    // Left to the reset: no owners.
    infinirtStream_t stream = nullptr;
    ASSERT_OK(infinirtStreamCreate(&stream));
    infinirtEvent_t event = nullptr;
    ASSERT_OK(infinirtEventCreate(&event));
    void *device_mem = nullptr;
    ASSERT_OK(infinirtMalloc(&device_mem, 1 << 20));
    void *host_mem = nullptr;
    ASSERT_OK(infinirtMallocHost(&host_mem, 4096));
    ASSERT_OK(infinirtMemsetAsync(device_mem, 1, 1 << 20, stream));
    ASSERT_OK(infinirtEventRecord(event, stream));
    const size_t before = LiveAllocations();
    uint64_t resets_before = 0;
    ASSERT_OK(infinirtDeviceGetResetCount(type(), id(), &resets_before));

    ASSERT_OK(infinirtDeviceReset(type(), id()));

    EXPECT_EQ(LiveAllocations(), before - 2);
    uint64_t resets_after = 0;
    ASSERT_OK(infinirtDeviceGetResetCount(type(), id(), &resets_after));
    EXPECT_EQ(resets_after, resets_before + 1);
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamSynchronize(stream));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamDestroy(stream));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventSynchronize(event));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventDestroy(event));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFree(device_mem));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFreeHost(host_mem));
}

TEST_P(DeviceReset, DeviceWorksAfterwards) {
    ASSERT_OK(infinirtDeviceReset(type(), id()));
    ASSERT_OK(infinirtDeviceReset(type(), id())); // nothing left to release: a second one is fine
    ScopedStream stream;
    ASSERT_OK(stream.Create());
    DeviceBuffer mem;
    ASSERT_OK(mem.Malloc(4096));
    std::vector<unsigned char> in(4096, 0x5a);
    std::vector<unsigned char> out(4096, 0);
    ASSERT_OK(infinirtMemcpyAsync(mem, in.data(), in.size(), INFINIRT_MEMCPY_H2D, stream));
    ASSERT_OK(infinirtMemcpyAsync(out.data(), mem, out.size(), INFINIRT_MEMCPY_D2H, stream));
    ASSERT_OK(infinirtStreamSynchronize(stream));
    EXPECT_EQ(in, out);
}

TEST_P(DeviceReset, GraphsAndExecsDie) {
    REQUIRE_FEATURES(Feature::kStreamCapture);
    infinirtStream_t stream = nullptr;
    void *mem = nullptr;
    ASSERT_OK(infinirtStreamCreate(&stream));
    ASSERT_OK(infinirtMalloc(&mem, 4096));
    ASSERT_OK(infinirtStreamBeginCapture(stream, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL));
    ASSERT_OK(infinirtMemsetAsync(mem, 0, 4096, stream));
    infinirtGraph_t graph = nullptr;
    ASSERT_OK(infinirtStreamEndCapture(stream, &graph));
    infinirtGraphExec_t exec = nullptr;
    ASSERT_OK(infinirtGraphInstantiate(&exec, graph, nullptr, nullptr, 0));

    ASSERT_OK(infinirtDeviceReset(type(), id()));

    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphExecDestroy(exec));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtGraphDestroy(graph));
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtStreamDestroy(stream));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFree(mem));
}

TEST_P(DeviceReset, RefusedWhileCapturing) {
    REQUIRE_FEATURES(Feature::kStreamCapture);
    ScopedStream stream;
    ASSERT_OK(stream.Create());
    DeviceBuffer mem;
    ASSERT_OK(mem.Malloc(4096));
    ASSERT_OK(infinirtStreamBeginCapture(stream, INFINIRT_STREAM_CAPTURE_MODE_GLOBAL));
    EXPECT_REFUSED(infinirtDeviceReset(type(), id()));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtDeviceReset(type(), id()));
    infinirtGraph_t graph = nullptr;
    ASSERT_OK(infinirtStreamEndCapture(stream, &graph)); // the capture stayed valid
    EXPECT_OK(infinirtGraphDestroy(graph));
}

TEST_P(DeviceReset, OtherDevicesAreUntouched) {
    const std::vector<DeviceParam> all = AllDevices();
    const DeviceParam *other = nullptr;
    for (const DeviceParam &d : all) {
        if ((d.type != type() || d.id != id()) && d.backend == backend()) {
            other = &d;
            break;
        }
    }
    if (other == nullptr) {
        GTEST_SKIP() << "no second device of this backend (INFINIRT_CPU_DEVICE_COUNT=2 gives cpu one)";
    }
    ASSERT_OK(infinirtSetDevice(other->type, other->id));
    ScopedStream stream;
    ASSERT_OK(stream.Create());
    DeviceBuffer mem;
    ASSERT_OK(mem.Malloc(4096));

    ASSERT_OK(infinirtDeviceReset(type(), id()));

    EXPECT_OK(infinirtMemsetAsync(mem, 3, 4096, stream));
    EXPECT_OK(infinirtStreamSynchronize(stream));
}

// Mappings and their physical memory go; the reservation stays the caller's to free. Host
// registrations of the device go too.
TEST_P(DeviceReset, UnmapsReleasesAndUnregisters) {
    size_t g = 0;
    const infiniStatus_t granularity =
        infinirtMemGetAllocationGranularity(&g, type(), id(), INFINIRT_MEM_GRANULARITY_MINIMUM);
    if (granularity == INFINI_STATUS_NOT_IMPLEMENTED) {
        GTEST_SKIP() << "no virtual memory: " << infinirtGetLastErrorMessage();
    }
    ASSERT_OK(granularity);
    void *base = nullptr;
    ASSERT_OK(infinirtMemAddressReserve(&base, type(), id(), 2 * g, 0));
    infinirtPhysicalMem_t kept = nullptr;
    infinirtPhysicalMem_t mapped_only = nullptr;
    ASSERT_OK(infinirtMemCreate(&kept, type(), id(), g, 0));
    ASSERT_OK(infinirtMemCreate(&mapped_only, type(), id(), g, 0));
    ASSERT_OK(infinirtMemMap(base, g, kept, 0));
    ASSERT_OK(infinirtMemMap(static_cast<char *>(base) + g, g, mapped_only, 0));
    ASSERT_OK(infinirtMemRelease(mapped_only));
    std::vector<unsigned char> host(4096);
    const infiniStatus_t registered = infinirtHostRegister(type(), id(), host.data(), host.size(), 0);

    ASSERT_OK(infinirtDeviceReset(type(), id()));

    infinirtPointerAttributes_t attributes{};
    attributes.struct_size = sizeof attributes;
    ASSERT_OK(infinirtPointerGetAttributes(&attributes, base));
    EXPECT_EQ(attributes.kind, INFINIRT_MEMORY_UNKNOWN);
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtMemRelease(kept));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemUnmap(base, 2 * g));
    EXPECT_OK(infinirtMemAddressFree(base, 2 * g));
    if (registered == INFINI_STATUS_SUCCESS) {
        EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtHostUnregister(host.data()));
    }
}

TEST_P(DeviceReset, BadInputIsRefused) {
    uint64_t count = 7;
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtDeviceReset(type(), -1));
    EXPECT_STATUS(INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED, infinirtDeviceReset(static_cast<infiniDevice_t>(-1), 0));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtDeviceGetResetCount(type(), id(), nullptr));
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtDeviceGetResetCount(type(), -1, &count));
    EXPECT_EQ(count, 7u);
}

INSTANTIATE_ON_ALL_DEVICES(DeviceReset);

} // namespace
} // namespace infinirt_test
