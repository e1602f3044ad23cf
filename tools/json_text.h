// json_text.h - a string as a JSON string literal (quotes, backslashes and control characters
// escaped), for the tools' --json output (infinirt-info, infinirt-bench).
#pragma once

#include <cstdio>
#include <string>

namespace infinirt_tools {

inline std::string jsonText(const std::string &s) {
    std::string out = "\"";
    for (const char ch : s) {
        const unsigned char c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += ch;
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += ch;
        }
    }
    return out + "\"";
}

} // namespace infinirt_tools
