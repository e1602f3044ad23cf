// bench_plot.cpp - runs the plot script (fork + exec, no shell: file names are passed as they are).
#include "bench_plot.h"
#include "bench_share.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace infinirt_bench_tool {
namespace {

// The script's exit status when matplotlib cannot be imported (infinirt-bench-plot.py).
constexpr int kNoMatplotlib = 3;

// Runs argv; returns its exit status, or -1 when it could not be started.
int run(const std::vector<std::string> &args) {
    std::vector<char *> argv;
    for (const std::string &a : args) {
        argv.push_back(const_cast<char *>(a.c_str()));
    }
    argv.push_back(nullptr);
    const pid_t pid = fork();
    if (pid < 0) {
        return -1;
    }
    if (pid == 0) {
        execvp(argv[0], argv.data());
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            return -1;
        }
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool endsWith(const std::string &s, const char *suffix) {
    const size_t n = std::strlen(suffix);
    return s.size() > n && s.compare(s.size() - n, n, suffix) == 0;
}

} // namespace

bool plotReady(const std::string &out, std::string *python, std::string *script, std::string *error) {
    if (!endsWith(out, ".png") && !endsWith(out, ".svg")) {
        *error = "--plot " + out + ": the file name must end in .png or .svg";
        return false;
    }
    *script = shareFile("infinirt-bench-plot.py");
    struct stat st {};
    if (stat(script->c_str(), &st) != 0) {
        *error = "the plot script " + *script + " is missing (install infinirt-bench with its share/ folder)";
        return false;
    }
    std::vector<std::string> candidates;
    const char *chosen = std::getenv("INFINIRT_PYTHON");
    if (chosen != nullptr && *chosen != '\0') {
        candidates.push_back(chosen);
    } else {
        candidates = {"python3", "/usr/bin/python3"};
    }
    std::string tried;
    for (const std::string &py : candidates) {
        const int rc = run({py, *script, "--check"});
        if (rc == 0) {
            *python = py;
            return true;
        }
        tried += (tried.empty() ? "" : ", ") + py +
                 (rc == kNoMatplotlib ? " (no matplotlib)" : rc == 127 || rc < 0 ? " (not found)" : " (failed)");
    }
    *error = "--plot needs Python 3 with matplotlib; tried " + tried +
             ". Install it (Debian: apt-get install python3-matplotlib) or set INFINIRT_PYTHON to a python "
             "that has it";
    return false;
}

bool plot(const std::string &python, const std::string &script, const std::string &json_path,
          const std::string &out, std::string *error) {
    const int rc = run({python, script, json_path, out});
    if (rc != 0) {
        *error = python + " " + script + " failed (exit " + std::to_string(rc) + "); " + out + " not written";
        return false;
    }
    return true;
}

} // namespace infinirt_bench_tool
