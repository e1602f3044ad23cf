// Fork: a child of a process that initialised infinirt gets DEVICE_NOT_INITIALIZED from every call
// (never a hang, never the parent's state); a child of a process that had not initialised it
// uses infinirt normally. Each suite runs in its own ctest entry with the real cpu backend.
#include "status_assertions.h"

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>

namespace {

// Runs `child` in a forked process and returns its exit code; -1 if it crashed, and kills it
// (reporting -2) if it has not finished within 20 s, so a hang fails the test instead of blocking.
int RunInChild(int (*child)()) {
    const pid_t pid = fork();
    if (pid == 0) {
        _exit(child());
    }
    if (pid < 0) {
        return -3;
    }
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    for (;;) {
        int status = 0;
        const pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) {
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        }
        if (std::chrono::steady_clock::now() > give_up) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -2;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

// The parent's handles and memory, for the child to try (the entries that skip the init check
// must refuse them too).
infinirtStream_t g_parent_stream = nullptr;
infinirtEvent_t g_parent_event = nullptr;
void *g_parent_memory = nullptr;

// 0 if every call gives DEVICE_NOT_INITIALIZED with a message; otherwise the index of the first
// call that did not.
int ChildAfterInit() {
    int count = 0;
    void *p = nullptr;
    infinirtStream_t s = nullptr;
    infinirtEventStatus_t event_status = INFINIRT_EVENT_COMPLETE;
    char host[64] = {};
    const infiniStatus_t results[] = {
        infinirtGetDeviceCount(INFINI_DEVICE_CPU, &count),
        infinirtMalloc(&p, 64),
        infinirtStreamCreate(&s),
        infinirtSetDevice(INFINI_DEVICE_CPU, 0),
        infinirtDeviceSynchronize(),
        infinirtStreamQuery(g_parent_stream),
        infinirtEventQuery(g_parent_event, &event_status),
        infinirtEventRecord(g_parent_event, g_parent_stream),
        infinirtMemsetAsync(g_parent_memory, 0, 64, g_parent_stream),
        infinirtMemcpyAsync(host, g_parent_memory, 64, INFINIRT_MEMCPY_D2H, g_parent_stream),
        infinirtMemsetAsync(g_parent_memory, 0, 64, nullptr),
        infinirtStreamQuery(nullptr),
        infinirtPushDevice(INFINI_DEVICE_CPU, 0),
        infinirtPopDevice(nullptr, nullptr), // the parent pushed before forking
    };
    for (size_t i = 0; i < sizeof results / sizeof results[0]; ++i) {
        if (results[i] != INFINI_STATUS_DEVICE_NOT_INITIALIZED) {
            return 10 + static_cast<int>(i);
        }
    }
    return infinirtGetLastErrorMessage()[0] != '\0' ? 0 : 9;
}

// 0 if the child can allocate, copy on a stream and synchronise.
int ChildWithoutInit() {
    void *d = nullptr;
    infinirtStream_t s = nullptr;
    char in[64] = "fork";
    char out[64] = {};
    if (infinirtSetDevice(INFINI_DEVICE_CPU, 0) != INFINI_STATUS_SUCCESS || infinirtMalloc(&d, 64) != INFINI_STATUS_SUCCESS ||
        infinirtStreamCreate(&s) != INFINI_STATUS_SUCCESS ||
        infinirtMemcpyAsync(d, in, 64, INFINIRT_MEMCPY_H2D, s) != INFINI_STATUS_SUCCESS ||
        infinirtMemcpyAsync(out, d, 64, INFINIRT_MEMCPY_D2H, s) != INFINI_STATUS_SUCCESS ||
        infinirtStreamSynchronize(s) != INFINI_STATUS_SUCCESS) {
        return 20;
    }
    if (std::string(out) != "fork") {
        return 21;
    }
    return infinirtStreamDestroy(s) == INFINI_STATUS_SUCCESS && infinirtFree(d) == INFINI_STATUS_SUCCESS ? 0 : 22;
}

// The parent has live streams with queued work (cpu worker threads) when it forks.
TEST(ForkAfterInit, ChildGetsNotInitialized) {
    ASSERT_OK(infinirtSetDevice(INFINI_DEVICE_CPU, 0));
    infinirtStream_t s = nullptr;
    ASSERT_OK(infinirtStreamCreate(&s));
    void *d = nullptr;
    ASSERT_OK(infinirtMalloc(&d, 1 << 20));
    ASSERT_OK(infinirtMemsetAsync(d, 1, 1 << 20, s));
    infinirtEvent_t e = nullptr;
    ASSERT_OK(infinirtEventCreate(&e));
    g_parent_stream = s;
    g_parent_event = e;
    g_parent_memory = d;
    ASSERT_OK(infinirtPushDevice(INFINI_DEVICE_CPU, 0));
    EXPECT_EQ(RunInChild(ChildAfterInit), 0);
    EXPECT_OK(infinirtPopDevice(nullptr, nullptr));
    EXPECT_OK(infinirtEventDestroy(e));
    // The parent is unaffected.
    ASSERT_OK(infinirtStreamSynchronize(s));
    EXPECT_OK(infinirtStreamDestroy(s));
    EXPECT_OK(infinirtFree(d));
}

// 0 if the first call gives DEVICE_NOT_INITIALIZED with a message.
int ChildWhileLoading() {
    int count = 0;
    if (infinirtGetDeviceCount(INFINI_DEVICE_CPU, &count) != INFINI_STATUS_DEVICE_NOT_INITIALIZED) {
        return 30;
    }
    return infinirtGetLastErrorMessage()[0] != '\0' ? 0 : 31;
}

// Another thread is inside the plugins' loading (the slow-init stub holds it in its init until
// released) when the process forks: the child must answer DEVICE_NOT_INITIALIZED, not wait for a
// loading thread that does not exist in it.
TEST(ForkWhileLoading, ChildGetsNotInitialized) {
    std::thread loader([] { EXPECT_OK(infinirtInit()); });
    // The stub is loaded by the loader thread; find its flags once its init is running.
    int *entered = nullptr;
    int *release = nullptr;
    while (entered == nullptr || __atomic_load_n(entered, __ATOMIC_SEQ_CST) == 0) {
        if (void *lib = dlopen(STUB_SLOW_INIT_PATH, RTLD_NOW | RTLD_NOLOAD)) {
            entered = static_cast<int *>(dlsym(lib, "stub_init_entered"));
            release = static_cast<int *>(dlsym(lib, "stub_release_init"));
            dlclose(lib);
        }
        std::this_thread::yield();
    }
    ASSERT_NE(release, nullptr);
    const int child = RunInChild(ChildWhileLoading);
    __atomic_store_n(release, 1, __ATOMIC_SEQ_CST);
    loader.join();
    EXPECT_EQ(child, 0) << "-2: the child hung";
}

TEST(ForkBeforeInit, ChildInitialisesNormally) {
    EXPECT_EQ(RunInChild(ChildWithoutInit), 0);
    // And the parent still can, independently.
    int count = 0;
    ASSERT_OK(infinirtGetDeviceCount(INFINI_DEVICE_CPU, &count));
    EXPECT_GE(count, 1);
}

} // namespace
