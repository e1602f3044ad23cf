// Plugin discovery shared by libinfinirt and libinfiniccl (plugin_search.h).
#include "plugin_search.h"

#include <algorithm>
#include <cstdlib>
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <set>
#include <stdlib.h>

namespace infinirt::plugins {

namespace {

void listDir(const std::string &dir, const char *prefix, LogFn log, std::vector<std::string> &out) {
    DIR *d = opendir(dir.c_str());
    if (d == nullptr) {
        log(INFINIRT_LOG_DEBUG, ("plugin directory " + dir + ": not readable").c_str());
        return;
    }
    std::vector<std::string> found;
    while (dirent *e = readdir(d)) {
        const std::string file = e->d_name;
        if (!nameFromPath(file, prefix).empty() && file.size() > 3 && file.compare(file.size() - 3, 3, ".so") == 0) {
            found.push_back(dir + "/" + file);
        }
    }
    closedir(d);
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
}

} // namespace

std::vector<std::string> splitList(const char *value, char sep) {
    std::vector<std::string> out;
    if (value == nullptr) {
        return out;
    }
    std::string cur;
    for (const char *p = value;; ++p) {
        if (*p == sep || *p == '\0') {
            if (!cur.empty()) {
                out.push_back(cur);
            }
            cur.clear();
            if (*p == '\0') {
                break;
            }
        } else {
            cur += *p;
        }
    }
    return out;
}

std::string nameFromPath(const std::string &path, const char *prefix) {
    const std::string file = path.substr(path.find_last_of('/') + 1);
    const std::string pre = prefix;
    const size_t so = file.find(".so");
    if (file.compare(0, pre.size(), pre) != 0 || so == std::string::npos || so <= pre.size()) {
        return "";
    }
    return file.substr(pre.size(), so - pre.size());
}

std::string libraryDirOf(const void *address) {
    Dl_info info{};
    if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) {
        return "";
    }
    char resolved[PATH_MAX];
    const std::string path = realpath(info.dli_fname, resolved) != nullptr ? resolved : info.dli_fname;
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::vector<std::string> candidateFiles(const char *prefix, const std::string &library_dir, LogFn log) {
    std::vector<std::string> files;
    // Empty is unset, for INFINIRT_PLUGINS as for INFINIRT_BACKENDS.
    const char *explicit_files = secure_getenv("INFINIRT_PLUGINS");
    if (explicit_files != nullptr && *explicit_files != '\0') {
        files = splitList(explicit_files, ':');
    } else {
        for (const std::string &dir : splitList(secure_getenv("INFINIRT_PLUGIN_PATH"), ':')) {
            // A relative entry ("." or "lib") would load code from wherever the process happens to run.
            if (dir[0] != '/') {
                log(INFINIRT_LOG_WARN,
                    ("INFINIRT_PLUGIN_PATH entry \"" + dir + "\" is not an absolute path; ignored").c_str());
                continue;
            }
            listDir(dir, prefix, log, files);
        }
        if (!library_dir.empty()) {
            listDir(library_dir + "/infinirt", prefix, log, files);
        }
    }
    // The same file reached twice (a path variable naming the default directory) loads once.
    std::vector<std::string> unique;
    std::set<std::string> seen;
    for (const std::string &f : files) {
        char resolved[PATH_MAX];
        const std::string key = realpath(f.c_str(), resolved) != nullptr ? resolved : f;
        if (seen.insert(key).second) {
            unique.push_back(f);
        }
    }
    return unique;
}

bool allowedByBackends(const std::string &name) {
    const char *filter = std::getenv("INFINIRT_BACKENDS");
    if (filter == nullptr || *filter == '\0') {
        return true;
    }
    for (const std::string &allowed : splitList(filter, ',')) {
        if (allowed == name) {
            return true;
        }
    }
    return false;
}

} // namespace infinirt::plugins
