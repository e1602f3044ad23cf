// text.hpp - bounded string copies, human-readable sizes for messages and properties, and counts
// read from the environment. Part of
// the header-only plugin-support layer (backends/common/, namespace infinirt::common).
#ifndef INFINIRT_COMMON_TEXT_HPP
#define INFINIRT_COMMON_TEXT_HPP

#include "common/module_formats.hpp" // moduleFormatName, for messages
#include "infinirt.h"

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace infinirt::common {

// A positive decimal integer filling the whole string (an environment variable's value), else
// false with *value unchanged.
inline bool parseCount(const char *text, unsigned long long *value) noexcept {
    if (text == nullptr || *text < '0' || *text > '9') {
        return false;
    }
    errno = 0;
    char *end = nullptr;
    const unsigned long long parsed = std::strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || parsed == 0) {
        return false;
    }
    *value = parsed;
    return true;
}

// A decimal integer from 0 to `most` filling the whole string, else false with *value unchanged.
inline bool parseCountUpTo(const char *text, unsigned long long most, unsigned long long *value) noexcept {
    unsigned long long parsed = 0;
    if (text != nullptr && text[0] == '0' && text[1] == '\0') {
        *value = 0;
        return true;
    }
    if (!parseCount(text, &parsed) || parsed > most) {
        return false;
    }
    *value = parsed;
    return true;
}

// Copies `src` into `dst` (capacity `capacity` bytes, NUL included), truncating; always
// terminates when capacity > 0; NULL `src` copies "". Returns dst.
inline char *copyString(char *dst, size_t capacity, const char *src) noexcept {
    if (dst != nullptr && capacity > 0) {
        std::snprintf(dst, capacity, "%s", src != nullptr ? src : "");
    }
    return dst;
}
inline char *copyString(char *dst, size_t capacity, const std::string &src) noexcept {
    return copyString(dst, capacity, src.c_str());
}

// The C name of a limit the loader passed ("INFINIRT_LIMIT_STACK_SIZE"), for messages.
inline const char *limitName(infinirtLimit_t limit) noexcept {
    switch (limit) {
    case INFINIRT_LIMIT_STACK_SIZE:
        return "INFINIRT_LIMIT_STACK_SIZE";
    case INFINIRT_LIMIT_PRINTF_FIFO_SIZE:
        return "INFINIRT_LIMIT_PRINTF_FIFO_SIZE";
    default:
        return "INFINIRT_LIMIT_MALLOC_HEAP_SIZE";
    }
}

// A size as messages print it: "512 B", "1.5 KiB", "2.0 TiB". Fits in 16 bytes.
struct ByteText {
    char text[16];
    const char *c_str() const noexcept { return text; }
};

inline ByteText formatBytes(uint64_t bytes) noexcept {
    static const char *const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    ByteText out{};
    if (bytes < 1024) {
        std::snprintf(out.text, sizeof out.text, "%llu B", static_cast<unsigned long long>(bytes));
        return out;
    }
    double value = static_cast<double>(bytes);
    size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < sizeof kUnits / sizeof kUnits[0]) {
        value /= 1024.0;
        ++unit;
    }
    std::snprintf(out.text, sizeof out.text, "%.1f %s", value, kUnits[unit]);
    return out;
}

// The first `max_lines` lines of `log` that are not blank, each cut at `max_line_chars` (with
// "..."), joined by " | ": what an error detail quotes of a build log. "" for a blank log.
inline std::string firstLines(const std::string &log, int max_lines, size_t max_line_chars) {
    std::string out;
    int lines = 0;
    size_t start = 0;
    while (start < log.size() && lines < max_lines) {
        size_t end = log.find('\n', start);
        if (end == std::string::npos) {
            end = log.size();
        }
        std::string line = log.substr(start, end - start);
        start = end + 1;
        if (line.find_first_not_of(" \t\r") == std::string::npos) {
            continue;
        }
        if (line.size() > max_line_chars) {
            line = line.substr(0, max_line_chars) + "...";
        }
        out += (lines++ ? " | " : "") + line;
    }
    return out;
}

} // namespace infinirt::common

#endif // INFINIRT_COMMON_TEXT_HPP
