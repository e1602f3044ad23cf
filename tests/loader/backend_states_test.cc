// Suite AllStubs: INFINIRT_PLUGINS lists every stub plugin (see CMakeLists.txt). Each failure mode
// is recorded in the listing, never fatal, and the working plugins serve their devices.
#include "loader_test_util.h"
#include "status_assertions.h"

#include <cstring>
#include <string>
#include <thread>

namespace infinirt_loader_test {
namespace {

// A copy of the listing entry for `path` (all zero, and a failure, if it is not listed).
infinirtBackendInfo_t Listed(const std::vector<infinirtBackendInfo_t> &backends, const char *path) {
    const infinirtBackendInfo_t *b = FindByPath(backends, path);
    if (b == nullptr) {
        ADD_FAILURE() << path << " is not listed";
        return infinirtBackendInfo_t{};
    }
    return *b;
}

int DeviceCount(infiniDevice_t type) {
    int count = -1;
    EXPECT_OK(infinirtGetDeviceCount(type, &count));
    return count;
}

TEST(AllStubs, ListedInSearchOrder) {
    const std::vector<std::string> files = SplitEnv("INFINIRT_PLUGINS");
    ASSERT_GE(files.size(), 9u) << "run with INFINIRT_PLUGINS naming every stub";
    const std::vector<infinirtBackendInfo_t> backends = Backends();
    ASSERT_EQ(backends.size(), files.size()) << "INFINIRT_PLUGINS replaces discovery: exactly the files named";
    for (size_t i = 0; i < files.size(); ++i) {
        const std::vector<infinirtBackendInfo_t> one = {backends[i]};
        EXPECT_NE(FindByPath(one, files[i]), nullptr) << "entry " << i << " is " << backends[i].path;
    }
}

TEST(AllStubs, LoggingStubIsLoaded) {
    const infinirtBackendInfo_t b = Listed(Backends(), STUB_LOGGING_PATH);
    EXPECT_EQ(b.state, INFINIRT_BACKEND_LOADED) << b.reason;
    EXPECT_STREQ(b.name, "stublog");
    EXPECT_EQ(b.device_type, INFINI_DEVICE_CAMBRICON);
    EXPECT_EQ(b.device_count, 2);
    EXPECT_EQ(b.interface_version, 2u);
    EXPECT_STREQ(b.reason, "");
    EXPECT_EQ(DeviceCount(INFINI_DEVICE_CAMBRICON), 2);
}

TEST(AllStubs, WrongVersionIsRefused) {
    const infinirtBackendInfo_t b = Listed(Backends(), STUB_WRONG_VERSION_PATH);
    EXPECT_EQ(b.state, INFINIRT_BACKEND_FAILED);
    EXPECT_EQ(b.interface_version, 0u);
    EXPECT_GT(std::strlen(b.reason), 0u);
    EXPECT_EQ(DeviceCount(INFINI_DEVICE_ASCEND), 0);
}

TEST(AllStubs, MissingEntrySymbolFails) {
    const infinirtBackendInfo_t b = Listed(Backends(), STUB_MISSING_ENTRY_PATH);
    EXPECT_EQ(b.state, INFINIRT_BACKEND_FAILED);
    EXPECT_EQ(b.interface_version, 0u);
    EXPECT_NE(std::strstr(b.reason, "infinirtPluginQuery"), nullptr) << b.reason;
    EXPECT_GT(std::strlen(b.name), 0u) << "a plugin that never told its name is listed by file name";
}

TEST(AllStubs, FailingInitIsFailedWithItsDetail) {
    const infinirtBackendInfo_t b = Listed(Backends(), STUB_FAILING_INIT_PATH);
    EXPECT_EQ(b.state, INFINIRT_BACKEND_FAILED);
    EXPECT_NE(std::strstr(b.reason, "marker 4711"), nullptr) << b.reason;
    EXPECT_EQ(DeviceCount(INFINI_DEVICE_METAX), 0);
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtSetDevice(INFINI_DEVICE_METAX, 0));
}

TEST(AllStubs, DuplicateDeviceTypeFirstWins) {
    const std::vector<infinirtBackendInfo_t> backends = Backends();
    const infinirtBackendInfo_t first = Listed(backends, STUB_DUP_FIRST_PATH);
    const infinirtBackendInfo_t second = Listed(backends, STUB_DUP_SECOND_PATH);
    EXPECT_EQ(first.state, INFINIRT_BACKEND_LOADED) << first.reason;
    EXPECT_STREQ(first.name, "dupfirst");
    EXPECT_EQ(second.state, INFINIRT_BACKEND_SHADOWED);
    EXPECT_STREQ(second.name, "dupsecond");
    EXPECT_EQ(second.device_type, INFINI_DEVICE_MOORE);
    EXPECT_GT(std::strlen(second.reason), 0u);
    EXPECT_EQ(DeviceCount(INFINI_DEVICE_MOORE), 1) << "the shadowed plugin's devices must not be added";
}

TEST(AllStubs, SkeletonIsUnavailableWithItsReason) {
    const infinirtBackendInfo_t b = Listed(Backends(), STUB_SKELETON_PATH);
    EXPECT_EQ(b.state, INFINIRT_BACKEND_UNAVAILABLE);
    EXPECT_STREQ(b.name, "skeleton");
    EXPECT_EQ(b.device_type, INFINI_DEVICE_KUNLUN);
    EXPECT_EQ(b.device_count, 0);
    EXPECT_EQ(b.interface_version, 2u);
    EXPECT_NE(std::strstr(b.reason, "skeleton backend: template only"), nullptr) << b.reason;
    EXPECT_EQ(DeviceCount(INFINI_DEVICE_KUNLUN), 0);
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtSetDevice(INFINI_DEVICE_KUNLUN, 0));
}

// Entries a plugin leaves NULL are answered NOT_IMPLEMENTED by the loader, with a message.
TEST(AllStubs, NullEntriesAreNotImplemented) {
    const infinirtBackendInfo_t b = Listed(Backends(), STUB_NULL_ENTRIES_PATH);
    ASSERT_EQ(b.state, INFINIRT_BACKEND_LOADED) << b.reason;
    ASSERT_OK(infinirtSetDevice(INFINI_DEVICE_ILUVATAR, 0)); // set_device is optional
    void *p = nullptr;
    infinirtStream_t s = nullptr;
    infinirtEvent_t e = nullptr;
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    char a[16] = {};
    char c[16] = {};
    void *native = nullptr;
    EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtMalloc(&p, 64));
    EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtMallocHost(&p, 64));
    EXPECT_EQ(p, nullptr);
    EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtStreamCreate(&s));
    EXPECT_EQ(s, nullptr);
    EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtEventCreate(&e));
    EXPECT_EQ(e, nullptr);
    EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtGetMemInfo(INFINI_DEVICE_ILUVATAR, 0, &free_bytes, &total_bytes));
    EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtDeviceSynchronize());
    EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtStreamSynchronize(nullptr));
    EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtMemcpy(a, c, sizeof a, INFINIRT_MEMCPY_H2H));
    EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtStreamGetNativeHandle(nullptr, &native));
    EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtDeviceGetNativeContext(INFINI_DEVICE_ILUVATAR, 0, &native));
}

// A table shorter than the loader's: the entries past its struct_size are never read.
TEST(AllStubs, ShortTableEntriesPastStructSizeAreIgnored) {
    const infinirtBackendInfo_t b = Listed(Backends(), STUB_SHORT_TABLE_PATH);
    ASSERT_EQ(b.state, INFINIRT_BACKEND_LOADED) << b.reason;
    ASSERT_OK(infinirtSetDevice(INFINI_DEVICE_HYGON, 0));
    infinirtStream_t s = nullptr;
    ASSERT_OK(infinirtStreamCreate(&s));
    EXPECT_OK(infinirtStreamDestroy(s));
    void *p = nullptr;
    EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED, infinirtMalloc(&p, 64));
    EXPECT_EQ(p, nullptr);
}

// A version-1 plugin (older than modules and kernels) keeps loading; the kernel API answers
// NOT_IMPLEMENTED on its devices, with a message.
TEST(AllStubs, VersionOnePluginAnswersNotImplementedForModules) {
    const infinirtBackendInfo_t b = Listed(Backends(), STUB_SHORT_TABLE_PATH);
    ASSERT_EQ(b.state, INFINIRT_BACKEND_LOADED) << b.reason;
    EXPECT_EQ(b.interface_version, 1u);
    static const char source[] = "__kernel void k(void) {}";
    infinirtModuleImage_t image = {sizeof(infinirtModuleImage_t), INFINIRT_MODULE_FORMAT_OPENCL_C, source,
                                   sizeof source, nullptr};
    infinirtModule_t module = nullptr;
    char log[64] = "unchanged";
    EXPECT_STATUS(INFINI_STATUS_NOT_IMPLEMENTED,
                  infinirtModuleLoad(&module, INFINI_DEVICE_HYGON, 0, &image, 1, log, sizeof log));
    EXPECT_EQ(module, nullptr);
    EXPECT_STREQ(log, "");
    EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("module_load"), std::string::npos)
        << infinirtGetLastErrorMessage();
}

TEST(AllStubs, DeviceCountsComeFromLoadedBackendsOnly) {
    int counts[INFINI_DEVICE_TYPE_COUNT] = {};
    ASSERT_OK(infinirtGetAllDeviceCountSized(counts, INFINI_DEVICE_TYPE_COUNT));
    int expected[INFINI_DEVICE_TYPE_COUNT] = {};
    expected[INFINI_DEVICE_CAMBRICON] = 2;
    expected[INFINI_DEVICE_MOORE] = 1;
    expected[INFINI_DEVICE_ILUVATAR] = 1;
    expected[INFINI_DEVICE_HYGON] = 1;
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        EXPECT_EQ(counts[t], expected[t]) << "device type " << t;
    }
    EXPECT_STATUS(INFINI_STATUS_DEVICE_NOT_FOUND, infinirtSetDevice(INFINI_DEVICE_CPU, 0));
}

// Without a cpu backend the default device is the first device of the first non-cpu type.
TEST(AllStubs, NewThreadStartsOnTheFirstAcceleratorDevice) {
    infiniStatus_t status = INFINI_STATUS_INTERNAL_ERROR;
    infiniDevice_t type = INFINI_DEVICE_TYPE_COUNT;
    int id = -1;
    std::thread([&] { status = infinirtGetDevice(&type, &id); }).join();
    ASSERT_EQ(status, INFINI_STATUS_SUCCESS);
    EXPECT_EQ(type, INFINI_DEVICE_CAMBRICON);
    EXPECT_EQ(id, 0);
}

} // namespace
} // namespace infinirt_loader_test
