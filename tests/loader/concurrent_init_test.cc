// Suite ConcurrentInit: must be the first infinirt calls of its process (own ctest entry, only the
// logging stub loaded). 32 threads race to make the first call; the plugins are loaded once.
#include "loader_test_util.h"
#include "status_assertions.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace infinirt_loader_test {
namespace {

TEST(ConcurrentInit, FirstCallsFromManyThreadsInitialiseOnce) {
    constexpr int kThreads = 32;
    std::mutex m;
    std::condition_variable cv;
    bool go = false;
    std::atomic<int> ok{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
        threads.emplace_back([&, i] {
            {
                std::unique_lock<std::mutex> lock(m);
                cv.wait(lock, [&] { return go; });
            }
            int count = -1;
            // Different entry points race, not only one.
            const infiniStatus_t status = (i % 2 == 0) ? infinirtGetDeviceCount(INFINI_DEVICE_CAMBRICON, &count)
                                                       : infinirtSetDevice(INFINI_DEVICE_CAMBRICON, i % 2);
            if (status == INFINI_STATUS_SUCCESS && (i % 2 != 0 || count == 2)) {
                ok.fetch_add(1);
            }
        });
    }
    {
        std::lock_guard<std::mutex> lock(m);
        go = true;
    }
    cv.notify_all();
    for (std::thread &t : threads) {
        t.join();
    }
    EXPECT_EQ(ok.load(), kThreads);
    const StubLog log;
    ASSERT_TRUE(log.IsOpen());
    EXPECT_EQ(log.LinesStartingWith("query ").size(), 1u) << log.Text();
    EXPECT_EQ(log.LinesStartingWith("init").size(), 1u) << log.Text();
}

} // namespace
} // namespace infinirt_loader_test
