// Discovery through the environment, one suite per ctest entry (see CMakeLists.txt):
//  PluginPath  INFINIRT_PLUGIN_PATH names a directory holding a stub that claims the cpu type;
//  AllowList   INFINIRT_PLUGINS names three stubs, INFINIRT_BACKENDS="no-such-backend,stublog";
//  NoBackends  INFINIRT_BACKENDS allows a name no plugin has;
//  MissingFile INFINIRT_PLUGINS names a file that does not exist.
#include "loader_test_util.h"
#include "status_assertions.h"

#include <cstring>

namespace infinirt_loader_test {
namespace {

// Directories in INFINIRT_PLUGIN_PATH are searched before the default one: the stub there wins
// the cpu type and a cpu plugin found later is shadowed.
TEST(PluginPath, SearchedBeforeTheDefaultDirectory) {
    const std::vector<infinirtBackendInfo_t> backends = Backends();
    ASSERT_FALSE(backends.empty());
    EXPECT_NE(FindByPath({backends.front()}, STUB_CPU_CLAIM_PATH), nullptr)
        << "first listed: " << backends.front().path;
    const infinirtBackendInfo_t *stub = FindByPath(backends, STUB_CPU_CLAIM_PATH);
    ASSERT_NE(stub, nullptr);
    EXPECT_EQ(stub->state, INFINIRT_BACKEND_LOADED) << stub->reason;
    EXPECT_EQ(stub->device_type, INFINI_DEVICE_CPU);
    int count = 0;
    ASSERT_OK(infinirtGetDeviceCount(INFINI_DEVICE_CPU, &count));
    EXPECT_EQ(count, 3) << "the stub's 3 cpu devices, not the real cpu backend's";
    int shadowed = 0;
    for (const infinirtBackendInfo_t &b : backends) {
        if (&b != stub && b.device_type == INFINI_DEVICE_CPU && b.state != INFINIRT_BACKEND_FAILED) {
            EXPECT_EQ(b.state, INFINIRT_BACKEND_SHADOWED) << b.path;
            EXPECT_GT(std::strlen(b.reason), 0u) << b.path;
            ++shadowed;
        }
    }
    EXPECT_EQ(shadowed, 1) << "the real cpu plugin in the default directory is still listed, as shadowed";
}

// Only files named libinfinirt-<name>.so are plugins.
TEST(PluginPath, OtherFilesInThePluginDirectoryAreIgnored) {
    for (const infinirtBackendInfo_t &b : Backends()) {
        EXPECT_EQ(std::strstr(b.path, "libnot-a-plugin"), nullptr) << b.path;
    }
}

// INFINIRT_BACKENDS is applied before dlopen: an excluded plugin is not opened, so even one that
// would fail to load (no entry symbol) shows the exclusion, not a load failure.
TEST(AllowList, OnlyNamedBackendsAreUsed) {
    const std::vector<infinirtBackendInfo_t> backends = Backends();
    const infinirtBackendInfo_t *logging = FindByPath(backends, STUB_LOGGING_PATH);
    ASSERT_NE(logging, nullptr);
    EXPECT_EQ(logging->state, INFINIRT_BACKEND_LOADED) << logging->reason;
    int count = -1;
    ASSERT_OK(infinirtGetDeviceCount(INFINI_DEVICE_CAMBRICON, &count));
    EXPECT_EQ(count, 2);
    ASSERT_OK(infinirtGetDeviceCount(INFINI_DEVICE_ILUVATAR, &count));
    EXPECT_EQ(count, 0) << "stubnull is not in INFINIRT_BACKENDS";
    for (const char *excluded : {STUB_NULL_ENTRIES_PATH, STUB_MISSING_ENTRY_PATH}) {
        const infinirtBackendInfo_t *b = FindByPath(backends, excluded);
        if (b == nullptr) {
            continue; // not listing excluded plugins at all is fine too
        }
        EXPECT_NE(b->state, INFINIRT_BACKEND_LOADED) << excluded;
        EXPECT_NE(std::strstr(b->reason, "INFINIRT_BACKENDS"), nullptr)
            << excluded << ": reason \"" << b->reason << "\" is not the allow-list (was it opened?)";
    }
}

TEST(NoBackends, ZeroPluginsMeansZeroDevices) {
    int counts[INFINI_DEVICE_TYPE_COUNT];
    std::memset(counts, 0xff, sizeof counts);
    ASSERT_OK(infinirtGetAllDeviceCountSized(counts, INFINI_DEVICE_TYPE_COUNT));
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        EXPECT_EQ(counts[t], 0) << "device type " << t;
    }
    for (const infinirtBackendInfo_t &b : Backends()) {
        EXPECT_NE(b.state, INFINIRT_BACKEND_LOADED) << b.path;
    }
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtSetDevice(INFINI_DEVICE_CPU, 0));
    void *p = reinterpret_cast<void *>(0x99);
    EXPECT_REFUSED(infinirtMalloc(&p, 64));
    EXPECT_EQ(p, reinterpret_cast<void *>(0x99));
    infinirtStream_t s = nullptr;
    EXPECT_REFUSED(infinirtStreamCreate(&s));
    EXPECT_EQ(s, nullptr);
}

TEST(MissingFile, IsListedAsFailedWithTheReason) {
    const std::vector<infinirtBackendInfo_t> backends = Backends();
    ASSERT_EQ(backends.size(), 1u);
    EXPECT_EQ(backends[0].state, INFINIRT_BACKEND_FAILED);
    EXPECT_GT(std::strlen(backends[0].reason), 0u);
    EXPECT_EQ(backends[0].interface_version, 0u);
    EXPECT_EQ(backends[0].device_count, 0);
    int counts[INFINI_DEVICE_TYPE_COUNT] = {};
    ASSERT_OK(infinirtGetAllDeviceCountSized(counts, INFINI_DEVICE_TYPE_COUNT));
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        EXPECT_EQ(counts[t], 0) << "device type " << t;
    }
}

} // namespace
} // namespace infinirt_loader_test
