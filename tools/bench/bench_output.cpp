// bench_output.cpp - the tables, the JSON document and the plot, where the options send them.
#include "bench_output.h"

#include "bench_plot.h"
#include "bench_report.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <unistd.h>

namespace infinirt_bench_tool {

namespace {

// A new empty file /tmp/infinirt-bench-XXXXXX in *path; false when none could be made.
bool temporaryFile(std::string *path) {
    char name[] = "/tmp/infinirt-bench-XXXXXX";
    const int fd = mkstemp(name);
    if (fd < 0) {
        return false;
    }
    close(fd);
    *path = name;
    return true;
}

// Draws the plot; its "written" line goes to stderr when stdout carries the JSON document.
int drawPlot(const Options &options, const std::string &python, const std::string &script,
             const std::string &json_path) {
    std::string error;
    if (!plot(python, script, json_path, options.plot_file, &error)) {
        std::fprintf(stderr, "infinirt-bench: %s\n", error.c_str());
        return 1;
    }
    std::fprintf(options.json && options.json_file.empty() ? stderr : stdout, "plot written to %s\n",
                 options.plot_file.c_str());
    return 0;
}

} // namespace

int writeOutputs(const Options &options, const Results &r, const std::string &python, const std::string &script) {
    const std::string json = toJson(r);
    if (!options.json || !options.json_file.empty()) {
        printText(r, stdout);
    }
    if (options.json && options.json_file.empty()) {
        std::fputs(json.c_str(), stdout);
    }
    std::string json_path = options.json_file;
    bool temporary = false;
    if (json_path.empty() && !options.plot_file.empty()) {
        if (!temporaryFile(&json_path)) {
            std::fprintf(stderr, "infinirt-bench: cannot create a temporary file for the plot\n");
            return 1;
        }
        temporary = true;
    }
    if (!json_path.empty()) {
        std::ofstream out(json_path, std::ios::binary | std::ios::trunc);
        out << json;
        if (!out.flush()) {
            std::fprintf(stderr, "infinirt-bench: cannot write %s\n", json_path.c_str());
            return 1;
        }
    }
    const int rc = options.plot_file.empty() ? 0 : drawPlot(options, python, script, json_path);
    if (temporary) {
        unlink(json_path.c_str());
    }
    return rc;
}

} // namespace infinirt_bench_tool
