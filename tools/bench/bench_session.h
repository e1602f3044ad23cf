// bench_session.h - what infinirt-bench measures on: the device (made current), the tool's stream
// and event on it, the native anchor working on the same objects (bench_anchor.h), and the
// buffers. Set up once before anything is timed and not released: the process ends with the run.
#pragma once

#include "bench_anchor.h"
#include "bench_buffers.h"
#include "bench_options.h"
#include "bench_results.h"

#include <infinirt.h>

namespace infinirt_bench_tool {

struct Session {
    infiniDevice_t type = INFINI_DEVICE_CPU;
    int id = 0;
    infinirtStream_t stream = nullptr;
    infinirtEvent_t event = nullptr;
    Anchor anchor;
    Buffers buffers; // of r.max_size bytes each
};

// Opens the device of `options` and sets up *s; fills the report's header in *r (bench_device.h)
// and its anchor fields. Returns -1 to go on, else the exit status (message on stderr).
int openSession(const Options &options, Results *r, Session *s);

} // namespace infinirt_bench_tool
