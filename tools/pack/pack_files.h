// pack_files.h - infinirt-pack's file access: whole files in, and a module file out that appears
// complete or not at all.
#pragma once

#include <string>
#include <vector>

namespace infinirt_pack_tool {

// The whole file at `path`; false (errno set) when it cannot be opened or read.
bool readAll(const std::string &path, std::vector<unsigned char> &out);

// Writes `bytes` to `path` through `path`.tmp renamed over it, so a failed write leaves no file.
// Returns 0, or 1 with the reason on stderr (the temporary file removed).
int writeAtomically(const std::string &path, const std::vector<unsigned char> &bytes);

} // namespace infinirt_pack_tool
