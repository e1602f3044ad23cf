// libinfiniccl finds and filters its plugins with infinirt's variables (common/plugin_search.h):
// INFINIRT_BACKENDS allows plugins by name, INFINIRT_PLUGINS names the files (and replaces the
// folder search). Each test runs in its own ctest with its variable set (tests/ccl/CMakeLists.txt)
// and is skipped elsewhere: the loader reads the environment once per process.
#include "ccl_test_support.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

bool envIs(const char *name, const char *value) {
    const char *v = std::getenv(name);
    return v != nullptr && (value == nullptr ? *v != '\0' : std::string(v) == value);
}

void expectCpuComms() {
    infinicclComm_t c[2] = {nullptr, nullptr};
    ASSERT_EQ(infinicclCommInitAll(INFINI_DEVICE_CPU, c, 2, nullptr), INFINI_STATUS_SUCCESS)
        << infinirtGetLastErrorMessage();
    EXPECT_EQ(infinicclCommDestroy(c[0]), INFINI_STATUS_SUCCESS);
    EXPECT_EQ(infinicclCommDestroy(c[1]), INFINI_STATUS_SUCCESS);
}

// INFINIRT_BACKENDS=cpu: the nccl plugin is not loaded (without the filter it is, and answers
// BACKEND_UNAVAILABLE here or SUCCESS on a GPU machine); the cpu one is.
TEST(CclPluginEnv, BackendsExcludesTheOtherPlugins) {
    if (!envIs("INFINIRT_BACKENDS", "cpu"))
        GTEST_SKIP() << "run by ctest ccl.env_backends (INFINIRT_BACKENDS=cpu)";
    infinicclComm_t c[1] = {nullptr};
    EXPECT_FAILS(infinicclCommInitAll(INFINI_DEVICE_NVIDIA, c, 1, nullptr), INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED,
                 "INFINIRT_BACKENDS=cpu excluded");
    EXPECT_NE(std::string(infinirtGetLastErrorMessage()).find("libinfiniccl-nccl.so"), std::string::npos)
        << infinirtGetLastErrorMessage();
    expectCpuComms();
}

// INFINIRT_PLUGINS naming libinfinirt-cpu.so and libinfiniccl-cpu.so: the nccl plugin beside them
// is not searched for; the cpu one serves.
TEST(CclPluginEnv, PluginsNamesTheFiles) {
    if (!envIs("INFINIRT_PLUGINS", nullptr))
        GTEST_SKIP() << "run by ctest ccl.env_plugins (INFINIRT_PLUGINS=...)";
    infinicclComm_t c[1] = {nullptr};
    EXPECT_FAILS(infinicclCommInitAll(INFINI_DEVICE_NVIDIA, c, 1, nullptr), INFINI_STATUS_DEVICE_TYPE_NOT_SUPPORTED,
                 "INFINIRT_PLUGINS");
    expectCpuComms();
}

// INFINIRT_PLUGINS naming a cpu collective plugin whose init fails before the real one: the
// usable one serves cpu (the loader no longer keeps the first plugin of a type, usable or not).
TEST(CclPluginEnv, UsablePluginIsPreferred) {
    const char *plugins = std::getenv("INFINIRT_PLUGINS");
    if (plugins == nullptr || std::strstr(plugins, "aaunusable") == nullptr)
        GTEST_SKIP() << "run by ctest ccl.env_usable_first (INFINIRT_PLUGINS=...aaunusable...)";
    expectCpuComms();
}

} // namespace
