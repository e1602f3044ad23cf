// bench_report.h - infinirt-bench's output: the text tables (ours, native, ratio) and the JSON
// document (schema in README.md, "schema_version" 1).
#pragma once

#include "bench_results.h"

#include <cstdio>
#include <string>

namespace infinirt_bench_tool {

// The layout of the JSON document: raised when a field changes meaning or goes away (not when
// one is added).
constexpr int kJsonSchemaVersion = 1;

void printText(const Results &r, std::FILE *out);
std::string toJson(const Results &r);

} // namespace infinirt_bench_tool
