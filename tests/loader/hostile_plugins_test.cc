// Plugins and environments that misbehave (issue 16, "what a hostile sweep found", items 7 and 9).
// Each suite runs in its own ctest entry (tests/loader/CMakeLists.txt) with its environment:
//  HostilePlugins      INFINIRT_PLUGINS: cpu, a reason with no NUL (kunlun, 0 devices), a count of
//                      -1 (hygon), device type 99, a struct_size cutting malloc_device in half (ali, 1 device), a
//                      moore plugin with 0 devices before one with 1, and iluvatar with 1 device
//                      and no entries but init and get_device_count;
//  HugeDeviceCount     INFINIRT_PLUGINS: cpu, a plugin reporting 2^31 - 1 devices (cambricon) and
//                      one reporting exactly INFINIRT_MAX_DEVICES_PER_TYPE (qy);
//  EmptyPluginsVar     INFINIRT_PLUGINS="" (unset: the default search);
//  RelativePluginPath  INFINIRT_PLUGIN_PATH=. run in a directory holding a plugin claiming cpu;
//  BadDefaultIndex     INFINICORE_DEFAULT_DEVICE=cpu:1junk or cpu:4294967297 with two cpu devices.
#include "loader_test_util.h"
#include "status_assertions.h"

#include <infinirt_plugin.h>

#include <cstring>
#include <string>
#include <thread>

namespace infinirt_loader_test {
namespace {

infinirtBackendInfo_t Listed(const char *path) {
    const std::vector<infinirtBackendInfo_t> backends = Backends();
    const infinirtBackendInfo_t *b = FindByPath(backends, path);
    if (b == nullptr) {
        ADD_FAILURE() << path << " is not listed";
        return infinirtBackendInfo_t{};
    }
    return *b;
}

TEST(HostilePlugins, UnterminatedReasonIsReadWithinItsBuffer) {
    const infinirtBackendInfo_t b = Listed(STUB_UNTERMINATED_REASON_PATH);
    EXPECT_EQ(b.state, INFINIRT_BACKEND_UNAVAILABLE);
    const size_t length = strnlen(b.reason, sizeof b.reason);
    ASSERT_LT(length, sizeof b.reason);
    ASSERT_GT(length, 100u) << b.reason;
    EXPECT_EQ(std::string(b.reason), std::string(length, 'x')) << "only the plugin's own bytes";
}

TEST(HostilePlugins, NegativeDeviceCountFailsWithTheCount) {
    const infinirtBackendInfo_t b = Listed(STUB_NEGATIVE_COUNT_PATH);
    EXPECT_EQ(b.state, INFINIRT_BACKEND_FAILED);
    EXPECT_NE(std::strstr(b.reason, "-1"), nullptr) << b.reason;
    EXPECT_EQ(std::strstr(b.reason, "SUCCESS"), nullptr) << b.reason;
    int count = -1;
    ASSERT_OK(infinirtGetDeviceCount(INFINI_DEVICE_HYGON, &count));
    EXPECT_EQ(count, 0);
}

// No per-device state is sized by a plugin's count ahead of use, and a count past the loader's
// most is refused whole, with the count and the limit in the reason; the other backends serve as
// before (the first Malloc on cpu allocated staging pools sized by every backend's count).
TEST(HugeDeviceCount, IsRefusedWithTheCountAndTheLimit) {
    ASSERT_OK(infinirtInit());
    const infinirtBackendInfo_t b = Listed(STUB_HUGE_PATH);
    EXPECT_EQ(b.state, INFINIRT_BACKEND_FAILED);
    EXPECT_NE(std::strstr(b.reason, "2147483647"), nullptr) << b.reason;
    EXPECT_NE(std::strstr(b.reason, std::to_string(INFINIRT_MAX_DEVICES_PER_TYPE).c_str()), nullptr) << b.reason;
    int counts[INFINI_DEVICE_TYPE_COUNT];
    ASSERT_OK(infinirtGetAllDeviceCount(counts));
    EXPECT_EQ(counts[INFINI_DEVICE_CAMBRICON], 0);
    EXPECT_EQ(counts[INFINI_DEVICE_QY], INFINIRT_MAX_DEVICES_PER_TYPE);
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtSetDevice(INFINI_DEVICE_CAMBRICON, 0));
}

TEST(HugeDeviceCount, CpuServesAsBefore) {
    ASSERT_OK(infinirtSetDevice(INFINI_DEVICE_CPU, 0));
    void *p = nullptr;
    ASSERT_OK(infinirtMalloc(&p, 4096));
    ASSERT_OK(infinirtMemset(p, 1, 4096));
    ASSERT_OK(infinirtFree(p));
}

TEST(HugeDeviceCount, TheMostDevicesAreServedToTheLast) {
    const infinirtBackendInfo_t b = Listed(STUB_MOST_PATH);
    ASSERT_EQ(b.state, INFINIRT_BACKEND_LOADED) << b.reason;
    EXPECT_EQ(b.device_count, INFINIRT_MAX_DEVICES_PER_TYPE);
    ASSERT_OK(infinirtSetDevice(INFINI_DEVICE_QY, INFINIRT_MAX_DEVICES_PER_TYPE - 1));
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtSetDevice(INFINI_DEVICE_QY, INFINIRT_MAX_DEVICES_PER_TYPE));
    infiniDevice_t type = INFINI_DEVICE_CPU;
    int id = -1;
    ASSERT_OK(infinirtGetDevice(&type, &id));
    EXPECT_EQ(type, INFINI_DEVICE_QY);
    EXPECT_EQ(id, INFINIRT_MAX_DEVICES_PER_TYPE - 1);
    ASSERT_OK(infinirtSetDevice(INFINI_DEVICE_CPU, 0));
}

TEST(HostilePlugins, UnknownDeviceTypeIsRefused) {
    const infinirtBackendInfo_t b = Listed(STUB_BAD_TYPE_PATH);
    EXPECT_EQ(b.state, INFINIRT_BACKEND_FAILED);
    EXPECT_NE(std::strstr(b.reason, "99"), nullptr) << b.reason;
}

TEST(HostilePlugins, EntryCutByStructSizeIsNotCopied) {
    const infinirtBackendInfo_t b = Listed(STUB_HALF_ENTRY_PATH);
    ASSERT_EQ(b.state, INFINIRT_BACKEND_LOADED) << b.reason;
    ASSERT_OK(infinirtSetDevice(INFINI_DEVICE_ALI, 0));
    void *p = nullptr;
    EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtMalloc(&p, 64));
    EXPECT_EQ(p, nullptr);
}

TEST(HostilePlugins, PluginWithDevicesWinsOverEarlierOneWithout) {
    const infinirtBackendInfo_t empty = Listed(STUB_MOORE_EMPTY_PATH);
    const infinirtBackendInfo_t full = Listed(STUB_MOORE_FULL_PATH);
    EXPECT_EQ(empty.state, INFINIRT_BACKEND_SHADOWED) << empty.reason;
    EXPECT_EQ(full.state, INFINIRT_BACKEND_LOADED) << full.reason;
    int count = 0;
    ASSERT_OK(infinirtGetDeviceCount(INFINI_DEVICE_MOORE, &count));
    EXPECT_EQ(count, 1);
    EXPECT_OK(infinirtSetDevice(INFINI_DEVICE_MOORE, 0));
}

// moore, iluvatar and ali have devices but almost no entries: the default is cpu:0.
TEST(HostilePlugins, PluginWithoutEntriesIsNotTheDefaultDevice) {
    infiniStatus_t status = INFINI_STATUS_INTERNAL_ERROR;
    infiniDevice_t type = INFINI_DEVICE_TYPE_COUNT;
    int id = -1;
    std::thread([&] { status = infinirtGetDevice(&type, &id); }).join(); // a new thread: the default
    ASSERT_EQ(status, INFINI_STATUS_SUCCESS);
    EXPECT_EQ(type, INFINI_DEVICE_CPU);
    EXPECT_EQ(id, 0);
}

TEST(EmptyPluginsVar, MeansUnset) {
    int count = 0;
    ASSERT_OK(infinirtGetDeviceCount(INFINI_DEVICE_CPU, &count));
    EXPECT_GE(count, 1) << "INFINIRT_PLUGINS=\"\" must search the default directory, as if unset";
}

TEST(RelativePluginPath, RelativeEntriesAreIgnored) {
    for (const infinirtBackendInfo_t &b : Backends()) {
        EXPECT_EQ(std::strstr(b.path, "/test-plugins/path/"), nullptr)
            << b.name << " was loaded from the current directory: " << b.path;
    }
    int count = 0;
    ASSERT_OK(infinirtGetDeviceCount(INFINI_DEVICE_CPU, &count));
    EXPECT_NE(count, 3) << "the stub in the current directory (3 cpu devices) served cpu";
}

TEST(BadDefaultIndex, IsIgnored) {
    int count = 0;
    ASSERT_OK(infinirtGetDeviceCount(INFINI_DEVICE_CPU, &count));
    ASSERT_GE(count, 2) << "run with INFINIRT_CPU_DEVICE_COUNT=2";
    infiniDevice_t type = INFINI_DEVICE_TYPE_COUNT;
    int id = -1;
    ASSERT_OK(infinirtGetDevice(&type, &id));
    EXPECT_EQ(type, INFINI_DEVICE_CPU);
    EXPECT_EQ(id, 0) << "INFINICORE_DEFAULT_DEVICE=" << std::getenv("INFINICORE_DEFAULT_DEVICE");
}

} // namespace
} // namespace infinirt_loader_test
