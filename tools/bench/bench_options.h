// bench_options.h - infinirt-bench's command line.
#pragma once

#include <infinirt.h>

#include <cstddef>
#include <string>

namespace infinirt_bench_tool {

struct Options {
    bool has_device = false; // --device given; else the process default device
    infiniDevice_t type = INFINI_DEVICE_CPU;
    int id = 0;
    bool quick = false;     // --quick: a smoke run (tiny sizes and counts)
    size_t max_size = 0;    // --max-size; 0: 1 GiB (--quick: 1 MiB)
    bool json = false;      // --json[=FILE]
    std::string json_file;  // empty: the JSON document goes to stdout instead of the tables
    std::string plot_file;  // --plot FILE.png|FILE.svg
};

// The device names "type[:index]" of INFINICORE_DEFAULT_DEVICE and the Python package: the
// infiniDevice_t names (cpu, nvidia, ..., opencl), cuda for nvidia, hip for amd; index 0 when
// left out. False with *error for anything else.
bool parseDevice(const std::string &text, infiniDevice_t *type, int *id, std::string *error);

// "4096", "64K", "64KiB", "16M", "1G" (powers of 1024). False with *error when unparsable.
bool parseSize(const std::string &text, size_t *bytes, std::string *error);

// Parses argv. Returns -1 to go on, else the exit status (0 after --help/--version, 2 on a bad
// argument, with the message printed).
int parseOptions(int argc, char **argv, Options *options);

const char *deviceTypeName(infiniDevice_t type);

} // namespace infinirt_bench_tool
