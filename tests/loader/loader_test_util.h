// Helpers shared by the loader tests: the backend listing, the argument log of the logging stub.
#ifndef INFINIRT_TESTS_LOADER_TEST_UTIL_H
#define INFINIRT_TESTS_LOADER_TEST_UTIL_H

#include <infinirt.h>

#include <string>
#include <vector>

namespace infinirt_loader_test {

// Every backend infinirtGetBackendInfo lists, in search order. Empty if the listing fails.
std::vector<infinirtBackendInfo_t> Backends();

// The listed backend whose path names `path` (same file after realpath), or nullptr.
const infinirtBackendInfo_t *FindByPath(const std::vector<infinirtBackendInfo_t> &backends, const std::string &path);

// The `:`-separated entries of an environment variable ("" entries dropped).
std::vector<std::string> SplitEnv(const char *variable);

// "0x1234" as printf("%p") writes it, for matching pointers in the stub's log.
std::string PointerText(const void *p);

// The call log kept by tests/loader/stubs/stub_logging.c, read through the symbols it exports.
// Valid once the loader has loaded that plugin (after the first infinirt call).
class StubLog {
public:
    // Finds the already-loaded stub at STUB_LOGGING_PATH; IsOpen() tells whether it was found.
    StubLog();
    bool IsOpen() const {
        return read_ != nullptr && clear_ != nullptr && fail_next_set_device_ != nullptr &&
               fail_next_host_register_ != nullptr;
    }
    void Clear() const;
    // The stub's next set_device call fails with DRIVER_ERROR.
    void FailNextSetDevice() const;
    // The stub's next host_register call fails with DRIVER_ERROR.
    void FailNextHostRegister() const;
    std::vector<std::string> Lines() const;
    // Lines starting with `prefix` (e.g. "stream_create ").
    std::vector<std::string> LinesStartingWith(const std::string &prefix) const;
    // The whole log, for failure messages.
    std::string Text() const;

private:
    using ReadFn = size_t (*)(char *, size_t);
    using VoidFn = void (*)();
    ReadFn read_ = nullptr;
    VoidFn clear_ = nullptr;
    VoidFn fail_next_set_device_ = nullptr;
    VoidFn fail_next_host_register_ = nullptr;
};

} // namespace infinirt_loader_test

#endif // INFINIRT_TESTS_LOADER_TEST_UTIL_H
