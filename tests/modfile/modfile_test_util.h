// Helpers shared by the module file tests and the reader's fuzz test.
#pragma once

#include "module_file.h"

#include <string>

namespace modfile_test {

// An image to write, its bytes taken from `bytes`.
inline infinirt::modfile::Input input(const char *backend, uint32_t format, const char *arch, const std::string &bytes,
                                      const char *options = "", const char *name = "") {
    infinirt::modfile::Input in;
    in.entry.backend = backend;
    in.entry.format = format;
    in.entry.arch = arch;
    in.entry.options = options;
    in.entry.name = name;
    in.bytes.assign(bytes.begin(), bytes.end());
    return in;
}

} // namespace modfile_test
