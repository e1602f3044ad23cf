// bench_output.h - where infinirt-bench's results go: the text tables on stdout unless --json
// alone asks for the JSON document there instead, the document in --json=FILE, and the plot of
// --plot (drawn from the document, written to a temporary file when no --json=FILE is given).
#pragma once

#include "bench_options.h"
#include "bench_results.h"

#include <string>

namespace infinirt_bench_tool {

// Writes what `options` asks for; `python` and `script` are what plotReady found. Returns the exit
// status: 0, or 1 when a file could not be written or the plot failed (message on stderr).
int writeOutputs(const Options &options, const Results &r, const std::string &python, const std::string &script);

} // namespace infinirt_bench_tool
