// pack_files.cpp - reads inputs whole, writes the module file through a renamed temporary.
#include "pack_files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

namespace infinirt_pack_tool {

bool readAll(const std::string &path, std::vector<unsigned char> &out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return false;
    }
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return !in.bad();
}

int writeAtomically(const std::string &path, const std::vector<unsigned char> &bytes) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
        o.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        if (!o) {
            std::fprintf(stderr, "infinirt-pack: cannot write %s: %s\n", tmp.c_str(), std::strerror(errno));
            std::remove(tmp.c_str());
            return 1;
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::fprintf(stderr, "infinirt-pack: cannot rename %s to %s: %s\n", tmp.c_str(), path.c_str(),
                     std::strerror(errno));
        std::remove(tmp.c_str());
        return 1;
    }
    return 0;
}

} // namespace infinirt_pack_tool
