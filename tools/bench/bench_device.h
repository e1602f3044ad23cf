// bench_device.h - the device infinirt-bench measures: the one --device names, else the process
// default device, made current, and described in the report's header.
#pragma once

#include "bench_options.h"
#include "bench_results.h"

#include <infinirt.h>

namespace infinirt_bench_tool {

// Initialises infinirt, finds the device and makes it current. Returns -1 to go on, else the exit
// status (message on stderr): 1 when an infinirt call failed, 2 when there is no such device.
int openDevice(const Options &options, infiniDevice_t *type, int *id);

// The report's header in *r: version, device, its name and backend plugin, --quick and its
// rounds, and the largest transfer (--max-size or the default, lowered to fit the memory free).
// Returns -1 to go on, else 1 (an infinirt call failed, message on stderr).
int describeRun(const Options &options, infiniDevice_t type, int id, Results *r);

} // namespace infinirt_bench_tool
