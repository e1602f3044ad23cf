// Allocation failures inside libinfinirt, its plugins and libstdc++, at every point of a program
// that calls every exported C function (every_entry.cc) on cpu:0 and cpu:1: no C++ exception may
// cross the C ABI, so each failure must come back as a documented status with a message, and the
// process must not abort, hang or crash. For each N the program forks a child that makes the Nth
// allocation fail (and, in the sticky pass, every one after it); the parent checks how the child
// ended. Every N up to the count of a clean run is tried when there are at most
// INFINIRT_ALLOC_FAULT_POINTS (default 4000) of them, else that many spread evenly.
#include "every_entry.h"
#include "failing_new.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

constexpr int kCompletedWithFault = 0;
constexpr int kCompletedWithoutFault = 3;
constexpr unsigned kChildSeconds = 20;

// Runs the program in a child with allocation `fail_at` failing (0: none); the child writes its
// count of allocations to `counted` when asked. Returns a description of a bad end, or "".
std::string runChild(long fail_at, bool sticky, long *counted) {
    int fds[2];
    if (pipe(fds) != 0) {
        return "pipe failed";
    }
    const pid_t pid = fork();
    if (pid < 0) {
        return "fork failed";
    }
    if (pid == 0) {
        close(fds[0]);
        alarm(kChildSeconds); // a hang ends the child with SIGALRM
        failing_new::arm(fail_at > 0 ? fail_at : LONG_MAX, sticky); // LONG_MAX: count only
        bool ok = false;
        try {
            ok = every_entry::run();
        } catch (const std::exception &e) {
            failing_new::disarm();
            std::fprintf(stderr, "alloc_faults: allocation %ld failing%s: %s crossed the C ABI out of %s (after %s)\n",
                         fail_at, sticky ? " (and later)" : "", e.what(), every_entry::calling(),
                         every_entry::lastChecked());
            _exit(4);
        }
        const long n = failing_new::allocations();
        const bool faulted = failing_new::failedOne();
        failing_new::disarm();
        if (write(fds[1], &n, sizeof n) != static_cast<ssize_t>(sizeof n)) {
            _exit(5);
        }
        if (!ok) {
            std::fprintf(stderr, "alloc_faults: allocation %ld failing%s: %s\n", fail_at, sticky ? " (and later)" : "",
                         every_entry::violation());
            _exit(1);
        }
        _exit(faulted || fail_at == 0 ? kCompletedWithFault : kCompletedWithoutFault);
    }
    close(fds[1]);
    long n = -1;
    if (read(fds[0], &n, sizeof n) != static_cast<ssize_t>(sizeof n)) {
        n = -1;
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (counted != nullptr) {
        *counted = n;
    }
    const std::string at = "allocation " + std::to_string(fail_at) + (sticky ? " (and later)" : "") + " failing: ";
    if (WIFSIGNALED(status)) {
        return at + "the child died of signal " + std::to_string(WTERMSIG(status)) +
               (WTERMSIG(status) == SIGABRT ? " (abort: an exception crossed the C ABI, or terminate)"
                : WTERMSIG(status) == SIGALRM ? " (it hung)"
                                              : "");
    }
    const int code = WEXITSTATUS(status);
    if (code != kCompletedWithFault && code != kCompletedWithoutFault) {
        return at + "the child exited with " + std::to_string(code) +
               (code == 4 ? " (an exception crossed the C ABI: see its line above)" : " (a contract broken: see its line above)");
    }
    return "";
}

long points() {
    const char *v = std::getenv("INFINIRT_ALLOC_FAULT_POINTS");
    return v != nullptr && std::atol(v) > 0 ? std::atol(v) : 4000;
}

void sweep(bool sticky) {
    long total = 0;
    ASSERT_EQ(runChild(0, false, &total), "") << "the program fails without any allocation failing";
    if (total == 0) {
        // The libraries allocate without this program's operator new: a toolchain that links its
        // libstdc++ into each library, or binds new inside it. Nothing here can fail an allocation.
        GTEST_SKIP() << "libinfinirt's allocations do not reach this program's operator new in this build "
                        "(libstdc++ linked into the libraries?): the allocation hook cannot fail them";
    }
    ASSERT_GT(total, 100) << "a clean run counted too few allocations: the hook does not see libinfinirt's";
    const long step = total <= points() ? 1 : (total + points() - 1) / points();
    int bad = 0;
    long tried = 0;
    for (long n = 1; n <= total && bad < 5; n += step, ++tried) {
        const std::string failure = runChild(n, sticky, nullptr);
        if (!failure.empty()) {
            ADD_FAILURE() << failure;
            ++bad;
        }
    }
    std::printf("alloc_faults: %s: %ld allocation(s) in a clean run, %ld failure point(s) tried, %d bad\n",
                sticky ? "sticky" : "one-shot", total, tried, bad);
}

TEST(AllocFaults, EveryAllocationFailingOnceGivesAStatus) { sweep(false); }
TEST(AllocFaults, EveryAllocationFailingFromThereOnGivesAStatus) { sweep(true); }

} // namespace

int main(int argc, char **argv) {
    ::testing::InitGoogleTest(&argc, argv);
    every_entry::prepare();
    if (const char *at = std::getenv("INFINIRT_ALLOC_FAULT_AT")) {
        // One run in this process (for a debugger): allocation `at` failing, and every later one
        // with INFINIRT_ALLOC_FAULT_STICKY=1.
        const char *sticky = std::getenv("INFINIRT_ALLOC_FAULT_STICKY");
        failing_new::arm(std::atol(at) > 0 ? std::atol(at) : LONG_MAX, sticky != nullptr && *sticky == '1');
        const bool ok = every_entry::run();
        const long n = failing_new::allocations();
        failing_new::disarm();
        std::printf("alloc_faults: %s after %ld allocation(s)%s%s\n", ok ? "completed" : "FAILED", n,
                    ok ? "" : ": ", every_entry::violation());
        return ok ? 0 : 1;
    }
    return RUN_ALL_TESTS();
}
