// bench_kernel.h - the empty kernel whose launch infinirt-bench times: the anchor's image when it
// has one (both sides then load the same bytes), else the tool's module file
// (share/infinirt/infinirt-bench.irtm).
#pragma once

#include "bench_anchor.h"

#include <infinirt.h>

#include <string>

namespace infinirt_bench_tool {

// The kernel "empty" on (type, id); nullptr with *why when it cannot be loaded.
infinirtKernel_t emptyKernel(const Anchor &anchor, infiniDevice_t type, int id, std::string *why);

} // namespace infinirt_bench_tool
