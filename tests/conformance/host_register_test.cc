// Host registration: a registered range is infinirt memory of kind HOST with the registration's
// base and size, copies to and from it work, and every refusal of infinirt.h. On a backend that
// cannot pin (NOT_IMPLEMENTED with a reason) the tests skip; cpu and cuda must register.
#include "device_test.h"
#include "resources.h"

#include <cstdlib>
#include <cstring>
#include <vector>

namespace infinirt_test {
namespace {

class HostRegister : public DeviceTest {
protected:
    HostRegister() : DeviceTest({Feature::kMemory}) {}
};

constexpr size_t kSize = 1 << 20;

// Registers [p, p + size) on the device under test, or skips when the backend cannot.
#define REGISTER_OR_SKIP(p, size) OK_OR_SKIP_UNLESS_CPU_OR_CUDA(infinirtHostRegister(type(), id(), (p), (size), 0))

TEST_P(HostRegister, RoundTripAndAttributes) {
    std::vector<unsigned char> host(kSize);
    REGISTER_OR_SKIP(host.data(), kSize);
    Defer unregister([&] { infinirtHostUnregister(host.data()); });

    infinirtPointerAttributes_t a{};
    a.struct_size = sizeof a;
    ASSERT_OK(infinirtPointerGetAttributes(&a, host.data() + 100));
    EXPECT_EQ(a.kind, INFINIRT_MEMORY_HOST);
    EXPECT_EQ(a.base, host.data());
    EXPECT_EQ(a.size, kSize);
    EXPECT_EQ(a.device_type, type());
    EXPECT_EQ(a.device_id, id());

    size_t count_before = 0;
    ASSERT_OK(infinirtGetLiveAllocations(&count_before, nullptr));

    for (size_t i = 0; i < kSize; ++i) {
        host[i] = static_cast<unsigned char>(i * 7);
    }
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(kSize));
    ASSERT_OK(infinirtMemcpy(d, host.data(), kSize, INFINIRT_MEMCPY_H2D));
    std::vector<unsigned char> back(kSize, 0);
    ASSERT_OK(infinirtMemcpy(back.data(), d, kSize, INFINIRT_MEMCPY_D2H));
    EXPECT_EQ(back, host);
    std::memset(host.data(), 0, kSize);
    ASSERT_OK(infinirtMemcpyAsync(host.data(), d, kSize, INFINIRT_MEMCPY_DEFAULT, nullptr));
    ASSERT_OK(infinirtDeviceSynchronize());
    EXPECT_EQ(back, host);
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtMemcpy(d, host.data() + 16, kSize, INFINIRT_MEMCPY_H2D))
        << "a copy past the end of the registration is refused";

    unregister.Cancel();
    ASSERT_OK(infinirtHostUnregister(host.data()));
    ASSERT_OK(infinirtPointerGetAttributes(&a, host.data() + 100));
    EXPECT_NE(a.kind, INFINIRT_MEMORY_HOST) << "unregistered memory is no longer infinirt's";
    // Registration again after unregistering.
    ASSERT_OK(infinirtHostRegister(type(), id(), host.data(), kSize, INFINIRT_HOST_REGISTER_READ_ONLY));
    ASSERT_OK(infinirtHostUnregister(host.data()));
}

TEST_P(HostRegister, Refusals) {
    std::vector<unsigned char> host(kSize);
    REGISTER_OR_SKIP(host.data(), kSize / 2);
    Defer unregister([&] { infinirtHostUnregister(host.data()); });

    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtHostRegister(type(), id(), host.data() + 4096, kSize / 2, 0))
        << "overlapping registrations";
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtHostRegister(type(), id(), host.data() + kSize / 2, 0, 0))
        << "size 0";
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtHostRegister(type(), id(), host.data() + kSize / 2, 64, 0x80))
        << "unknown flags";
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtHostRegister(type(), id(), nullptr, 64, 0));
    EXPECT_STATUS(INFINI_STATUS_NULL_POINTER, infinirtHostUnregister(nullptr));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtHostUnregister(host.data() + 64)) << "inside, not the start";
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtFreeHost(host.data())) << "registered memory is not infinirt's to free";
    DeviceBuffer d;
    ASSERT_OK(d.Malloc(4096));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtHostRegister(type(), id(), d.get(), 4096, 0))
        << "memory infinirt allocated cannot be registered";

    unregister.Cancel();
    ASSERT_OK(infinirtHostUnregister(host.data()));
    EXPECT_STATUS(INFINI_STATUS_BAD_PARAM, infinirtHostUnregister(host.data())) << "unregistering twice";
}

INSTANTIATE_ON_ALL_DEVICES(HostRegister);

} // namespace
} // namespace infinirt_test
