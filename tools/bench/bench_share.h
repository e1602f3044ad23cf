// bench_share.h - where infinirt-bench finds the files installed beside it: <directory of the
// program>/../share/infinirt/<name> (the install tree and the build tree alike).
#pragma once

#include <climits>
#include <string>
#include <unistd.h>

namespace infinirt_bench_tool {

inline std::string shareFile(const char *name) {
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        return name;
    }
    exe[n] = '\0';
    std::string dir(exe);
    dir.erase(dir.rfind('/'));
    return dir + "/../share/infinirt/" + name;
}

} // namespace infinirt_bench_tool
