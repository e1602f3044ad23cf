// pack_list.cpp - the list subcommand.
#include "pack_list.h"

#include "module_file.h"
#include "pack_files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace mf = infinirt::modfile;

namespace infinirt_pack_tool {

int listModuleFile(const char *path) {
    std::vector<unsigned char> bytes;
    if (!readAll(path, bytes)) {
        std::fprintf(stderr, "infinirt-pack: cannot read %s: %s\n", path, std::strerror(errno));
        return 1;
    }
    mf::File file;
    std::string why;
    if (!mf::parse(bytes.data(), bytes.size(), file, why)) {
        std::fprintf(stderr, "infinirt-pack: %s: %s\n", path, why.c_str());
        return 1;
    }
    std::printf("%s: infinirt module file %u.%u, %zu entries, %llu bytes\n", path, file.major, file.minor,
                file.entries.size(), static_cast<unsigned long long>(file.size));
    std::printf("%5s  %-8s  %-13s  %-12s  %10s  %-20s  %s\n", "entry", "backend", "format", "architecture", "bytes",
                "options", "name");
    for (size_t i = 0; i < file.entries.size(); ++i) {
        const mf::Entry &e = file.entries[i];
        std::string format = mf::formatText(e.format);
        if (format == "unknown") {
            format = "unknown(" + std::to_string(e.format) + ")";
        }
        std::printf("%5zu  %-8s  %-13s  %-12s  %10llu  %-20s  %s\n", i, e.backend.c_str(), format.c_str(),
                    e.arch.c_str(), static_cast<unsigned long long>(e.size),
                    e.options.empty() ? "-" : e.options.c_str(), e.name.empty() ? "-" : e.name.c_str());
    }
    return 0;
}

} // namespace infinirt_pack_tool
