// pack_usage.h - infinirt-pack's usage text.
#pragma once

#include <cstdio>

namespace infinirt_pack_tool {

// Prints the usage on `to`. Returns the exit status that goes with it: 0 for stdout (--help), 2
// otherwise (a bad command line).
int usage(std::FILE *to);

} // namespace infinirt_pack_tool
