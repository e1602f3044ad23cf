// pack_infer.h - what infinirt-pack reads from an input's name and bytes when no flag says it: the
// backend and format from the extension (.ptx .cubin .fatbin .hsaco .cl .spv .so), the
// architecture from the image itself (a cubin's or a shared object's ELF header, PTX's .target).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace infinirt_pack_tool {

struct Inferred {
    std::string backend;      // "" when the extension says nothing
    uint32_t format = 0;      // the module file's format value; 0 when the extension says nothing
    std::string arch = "any"; // "" when the image's architecture cannot be read from it
};

Inferred inferEntry(const std::string &path, const std::vector<unsigned char> &bytes);

} // namespace infinirt_pack_tool
