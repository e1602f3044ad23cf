// plugin_search.h - where libinfinirt and libinfiniccl look for their plugins, and which they
// may load: the environment both honour (INFINIRT_PLUGINS, INFINIRT_PLUGIN_PATH,
// INFINIRT_BACKENDS), read by one piece of code. A static library linked into both, its symbols
// hidden: it adds nothing to either library's ABI.
#pragma once

#include "infinirt_plugin.h" // infinirtLogLevel_t

#include <string>
#include <vector>

namespace infinirt::plugins {

// "a:b::c" -> {"a", "b", "c"} (empty entries dropped); NULL -> {}.
std::vector<std::string> splitList(const char *value, char sep);

// The plugin name in a file name of the scheme <prefix><name>.so[.N]: with prefix "libinfinirt-",
// "/x/libinfinirt-cuda.so" -> "cuda"; "" if the file does not follow the scheme.
std::string nameFromPath(const std::string &path, const char *prefix);

// The folder of the shared object that holds `address` (dladdr, then realpath); "" if unknown.
std::string libraryDirOf(const void *address);

using LogFn = void (*)(infinirtLogLevel_t level, const char *message);

// The plugin files to try, in order, each once (by real path): INFINIRT_PLUGINS's files when it is
// set and not empty (every file it names: the caller keeps those it can load); otherwise the
// files <prefix>*.so in the folders of INFINIRT_PLUGIN_PATH (absolute entries only: a relative one
// is ignored with a warning), then in <library_dir>/infinirt, each folder in name order. Path
// variables are read with secure_getenv.
std::vector<std::string> candidateFiles(const char *prefix, const std::string &library_dir, LogFn log);

// INFINIRT_BACKENDS, the allow-list of plugin names ("cpu,cuda"): true when it is unset or empty
// or lists `name`.
bool allowedByBackends(const std::string &name);

} // namespace infinirt::plugins
