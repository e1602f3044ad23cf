#include "allocator_config.hpp"

#include "infinicore/error.hpp"

#include <cerrno>
#include <cstdlib>

namespace infinicore::detail {

namespace {

[[noreturn]] void reject(const std::string &entry, const std::string &why) {
    throw Error(INFINI_STATUS_BAD_PARAM, "INFINICORE_ALLOC_CONF", "\"" + entry + "\": " + why);
}

size_t parseCount(const std::string &entry, const std::string &value) {
    if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos) {
        reject(entry, "expected a non-negative integer");
    }
    errno = 0;
    unsigned long long n = std::strtoull(value.c_str(), nullptr, 10);
    if (errno == ERANGE || n > SIZE_MAX) {
        reject(entry, "value out of range");
    }
    return static_cast<size_t>(n);
}

bool parseFlag(const std::string &entry, const std::string &value) {
    if (value == "1" || value == "true" || value == "True") {
        return true;
    }
    if (value == "0" || value == "false" || value == "False") {
        return false;
    }
    reject(entry, "expected true or false");
}

size_t megabytes(const std::string &entry, size_t mb) {
    if (mb > (SIZE_MAX >> 20)) {
        reject(entry, "value out of range");
    }
    return mb << 20;
}

} // namespace

AllocatorConfig AllocatorConfig::parse(const std::string &text) {
    AllocatorConfig config;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(',', start);
        if (end == std::string::npos) {
            end = text.size();
        }
        std::string entry = text.substr(start, end - start);
        start = end + 1;
        if (entry.empty()) {
            continue;
        }
        size_t colon = entry.find(':');
        if (colon == std::string::npos) {
            reject(entry, "expected key:value");
        }
        std::string key = entry.substr(0, colon);
        if (key == "expandable_segments") {
            config.expandable_segments = parseFlag(entry, entry.substr(colon + 1));
            continue;
        }
        size_t n = parseCount(entry, entry.substr(colon + 1));
        if (key == "max_split_size_mb") {
            if (n == 0) {
                reject(entry, "must be at least 1");
            }
            config.max_split_size = megabytes(entry, n);
        } else if (key == "thread_cache_mb") {
            config.thread_cache_bytes = megabytes(entry, n);
        } else if (key == "thread_cache_depth") {
            config.thread_cache_depth = n;
        } else if (key == "release_before_growth") {
            if (n > 1) {
                reject(entry, "expected 0 or 1");
            }
            config.release_before_growth = n == 1;
        } else {
            reject(entry, "unknown key (known: max_split_size_mb, thread_cache_mb, thread_cache_depth, release_before_growth, expandable_segments)");
        }
    }
    return config;
}

AllocatorConfig AllocatorConfig::fromEnvironment() {
    const char *text = std::getenv("INFINICORE_ALLOC_CONF");
    return text == nullptr ? AllocatorConfig{} : parse(text);
}

} // namespace infinicore::detail
