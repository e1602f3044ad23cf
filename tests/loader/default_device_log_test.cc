// The default device's log line (registry.cpp, logDefaultDevice), with stderr captured from before
// the first infinirt call; each suite is one ctest entry with its own plugins (CMakeLists.txt):
//  DefaultDeviceLogCpu        INFINIRT_LOG=info, cpu + a backend with no device and no reason:
//                             one info line naming cpu:0, why, and the empty backend; no warning.
//  DefaultDeviceLogGpu        INFINIRT_LOG=info, cpu + the logging stub (cambricon:1 a GPU): one
//                             info line naming cambricon:1 as the first GPU.
//  DefaultDeviceWarnFailed    default log level, cpu + a plugin whose init fails: one warning
//                             naming that plugin and its reason.
//  DefaultDeviceWarnDriver    default log level, cpu + a backend whose driver "failed": one warning
//                             with that reason.
//  DefaultDeviceQuietAbsent   default log level, cpu + a backend whose device is absent: nothing.
//  DefaultDeviceQuietNamed    as DefaultDeviceWarnFailed, but INFINICORE_DEFAULT_DEVICE=cpu:0 asks
//                             for the cpu: no warning.
#include "status_assertions.h"

#include <cstdio>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

// Runs `body` with fd 2 sent to a temporary file; returns what was written there.
template <typename F> std::string CaptureStderr(F body) {
    std::fflush(stderr);
    std::FILE *tmp = std::tmpfile();
    EXPECT_NE(tmp, nullptr);
    const int saved = dup(2);
    dup2(fileno(tmp), 2);
    body();
    std::fflush(stderr);
    dup2(saved, 2);
    close(saved);
    std::string text;
    std::rewind(tmp);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, tmp)) > 0) {
        text.append(buf, n);
    }
    std::fclose(tmp);
    return text;
}

// The lines of `text` that contain `needle`.
std::vector<std::string> LinesWith(const std::string &text, const std::string &needle) {
    std::vector<std::string> out;
    size_t at = 0;
    while (at < text.size()) {
        size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(at, end - at);
        if (line.find(needle) != std::string::npos) out.push_back(line);
        at = end + 1;
    }
    return out;
}

// Initialises infinirt and asks for the current device from three threads (the default is chosen
// once, whatever thread asks first); returns the captured stderr.
std::string FirstCalls(infiniDevice_t expected_type, int expected_id) {
    return CaptureStderr([&] {
        std::vector<std::thread> threads;
        for (int i = 0; i < 3; ++i) {
            threads.emplace_back([&] {
                infiniDevice_t t = INFINI_DEVICE_TYPE_COUNT;
                int id = -1;
                EXPECT_OK(infinirtGetDevice(&t, &id));
                EXPECT_EQ(t, expected_type);
                EXPECT_EQ(id, expected_id);
            });
        }
        for (std::thread &t : threads) t.join();
        void *p = nullptr;
        EXPECT_OK(infinirtMalloc(&p, 64));
        EXPECT_OK(infinirtFree(p));
    });
}

TEST(DefaultDeviceLogCpu, OneInfoLineWithTheReason) {
    const std::string log = FirstCalls(INFINI_DEVICE_CPU, 0);
    const std::vector<std::string> lines = LinesWith(log, "default device");
    ASSERT_EQ(lines.size(), 1u) << log;
    EXPECT_EQ(lines[0], "infinirt [info] default device cpu:0: no GPU or accelerator device "
                        "(mooreempty: no devices found)");
    EXPECT_TRUE(LinesWith(log, "[warn]").empty()) << log;
}

TEST(DefaultDeviceLogGpu, OneInfoLineNamingTheGpu) {
    const std::string log = FirstCalls(INFINI_DEVICE_CAMBRICON, 1);
    const std::vector<std::string> lines = LinesWith(log, "default device");
    ASSERT_EQ(lines.size(), 1u) << log;
    EXPECT_EQ(lines[0], "infinirt [info] default device cambricon:1: the first GPU found");
}

TEST(DefaultDeviceWarnFailed, OneWarningWithThePluginsReason) {
    const std::string log = FirstCalls(INFINI_DEVICE_CPU, 0);
    const std::vector<std::string> lines = LinesWith(log, "default device");
    ASSERT_EQ(lines.size(), 1u) << log;
    EXPECT_EQ(lines[0].rfind("infinirt [warn] default device cpu:0: every GPU backend failed, running on the cpu "
                             "(stubinitfail: init failed: ",
                             0),
              0u)
        << lines[0];
    EXPECT_NE(lines[0].find("marker 4711"), std::string::npos) << lines[0];
}

TEST(DefaultDeviceWarnDriver, OneWarningWithTheDriversReason) {
    const std::string log = FirstCalls(INFINI_DEVICE_CPU, 0);
    const std::vector<std::string> lines = LinesWith(log, "default device");
    ASSERT_EQ(lines.size(), 1u) << log;
    EXPECT_EQ(lines[0], "infinirt [warn] default device cpu:0: every GPU backend failed, running on the cpu "
                        "(driverfailed: stubInit failed: STUB_ERROR_BROKEN (7))");
}

TEST(DefaultDeviceQuietAbsent, NothingAtTheDefaultLevel) {
    const std::string log = FirstCalls(INFINI_DEVICE_CPU, 0);
    EXPECT_TRUE(LinesWith(log, "default device").empty()) << log;
}

TEST(DefaultDeviceQuietNamed, NoWarningWhenTheCpuWasAskedFor) {
    const std::string log = FirstCalls(INFINI_DEVICE_CPU, 0);
    EXPECT_TRUE(LinesWith(log, "default device").empty()) << log;
}

} // namespace
