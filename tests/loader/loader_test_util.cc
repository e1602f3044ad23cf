#include "loader_test_util.h"

#include <dlfcn.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace infinirt_loader_test {

std::vector<infinirtBackendInfo_t> Backends() {
    std::vector<infinirtBackendInfo_t> out;
    int count = 0;
    if (infinirtGetBackendCount(&count) != INFINI_STATUS_SUCCESS) {
        return out;
    }
    for (int i = 0; i < count; ++i) {
        infinirtBackendInfo_t info{};
        info.struct_size = sizeof(info);
        if (infinirtGetBackendInfo(i, &info) != INFINI_STATUS_SUCCESS) {
            return {};
        }
        out.push_back(info);
    }
    return out;
}

static std::string Resolved(const std::string &path) {
    char buf[PATH_MAX];
    return realpath(path.c_str(), buf) != nullptr ? std::string(buf) : path;
}

const infinirtBackendInfo_t *FindByPath(const std::vector<infinirtBackendInfo_t> &backends, const std::string &path) {
    const std::string wanted = Resolved(path);
    for (const infinirtBackendInfo_t &b : backends) {
        if (Resolved(b.path) == wanted) {
            return &b;
        }
    }
    return nullptr;
}

std::vector<std::string> SplitEnv(const char *variable) {
    std::vector<std::string> out;
    const char *value = std::getenv(variable);
    if (value == nullptr) {
        return out;
    }
    std::stringstream ss(value);
    std::string item;
    while (std::getline(ss, item, ':')) {
        if (!item.empty()) {
            out.push_back(item);
        }
    }
    return out;
}

std::string PointerText(const void *p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%p", p);
    return buf;
}

StubLog::StubLog() {
    // RTLD_NOLOAD: only find the copy the loader opened; never load a second one.
    void *lib = dlopen(STUB_LOGGING_PATH, RTLD_NOW | RTLD_NOLOAD);
    if (lib == nullptr) {
        return;
    }
    read_ = reinterpret_cast<ReadFn>(dlsym(lib, "stubLogRead"));
    clear_ = reinterpret_cast<VoidFn>(dlsym(lib, "stubLogClear"));
    fail_next_set_device_ = reinterpret_cast<VoidFn>(dlsym(lib, "stubFailNextSetDevice"));
    fail_next_host_register_ = reinterpret_cast<VoidFn>(dlsym(lib, "stubFailNextHostRegister"));
}

void StubLog::Clear() const { clear_(); }

void StubLog::FailNextSetDevice() const { fail_next_set_device_(); }

void StubLog::FailNextHostRegister() const { fail_next_host_register_(); }

std::string StubLog::Text() const {
    const size_t length = read_(nullptr, 0);
    std::string text(length + 1, '\0');
    read_(&text[0], text.size());
    text.resize(length);
    return text;
}

std::vector<std::string> StubLog::Lines() const {
    std::vector<std::string> lines;
    std::stringstream ss(Text());
    std::string line;
    while (std::getline(ss, line)) {
        lines.push_back(line);
    }
    return lines;
}

std::vector<std::string> StubLog::LinesStartingWith(const std::string &prefix) const {
    std::vector<std::string> out;
    for (const std::string &line : Lines()) {
        if (line.compare(0, prefix.size(), prefix) == 0) {
            out.push_back(line);
        }
    }
    return out;
}

} // namespace infinirt_loader_test
