// bench_plot.h - infinirt-bench --plot: bandwidth against size per direction, drawn by matplotlib
// through the script shipped with the tool (share/infinirt/infinirt-bench-plot.py).
#pragma once

#include <string>

namespace infinirt_bench_tool {

// Checks, before anything is measured, that `out` ends in .png or .svg, that the script is there
// and that a Python with matplotlib runs it: $INFINIRT_PYTHON when set (only it), else python3 on
// PATH, else /usr/bin/python3. On success *python is the interpreter to use; on failure *error
// says what is missing and how to get it.
bool plotReady(const std::string &out, std::string *python, std::string *script, std::string *error);

// Draws the JSON document in `json_path` into `out`; false with *error on failure.
bool plot(const std::string &python, const std::string &script, const std::string &json_path,
          const std::string &out, std::string *error);

} // namespace infinirt_bench_tool
