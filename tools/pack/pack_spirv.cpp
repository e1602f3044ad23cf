// pack_spirv.cpp - renaming a SPIR-V module's compute entry point (see the header). The
// OpEntryPoint instruction is rewritten with the new name (its word count follows the name's
// length); every other word is copied as it is.
#include "pack_spirv.h"

#include "pack_files.h"
#include "pack_usage.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace infinirt_pack_tool {
namespace {

constexpr uint32_t kMagic = 0x07230203u;
constexpr uint32_t kOpEntryPoint = 15;
constexpr uint32_t kGLCompute = 5;

// The words of `name` as a SPIR-V literal string (NUL-terminated, padded to whole words).
std::vector<uint32_t> literal(const std::string &name) {
    std::vector<uint32_t> words(name.size() / 4 + 1, 0);
    std::memcpy(words.data(), name.data(), name.size());
    return words;
}

// The words of `in` with its one GLCompute entry point named `name`; false with *why otherwise.
bool rename(const std::vector<uint32_t> &in, const std::string &name, std::vector<uint32_t> *out, std::string *why) {
    if (in.size() < 5 || in[0] != kMagic) {
        *why = "not a SPIR-V module (no magic number in this machine's byte order)";
        return false;
    }
    size_t found = 0, entry = 0;
    for (size_t at = 5; at < in.size();) {
        const uint32_t count = in[at] >> 16;
        if (count == 0 || at + count > in.size()) {
            *why = "an instruction at word " + std::to_string(at) + " runs past the module's end";
            return false;
        }
        if ((in[at] & 0xffffu) == kOpEntryPoint && count >= 4 && in[at + 1] == kGLCompute) {
            ++found;
            entry = at;
        }
        at += count;
    }
    if (found != 1) {
        *why = "the module has " + std::to_string(found) + " compute entry points; renaming needs exactly one";
        return false;
    }
    const uint32_t count = in[entry] >> 16;
    size_t name_words = 0; // the old name's words, up to the one holding its NUL
    for (size_t w = entry + 3; w < entry + count; ++w) {
        ++name_words;
        const uint32_t word = in[w];
        if ((word & 0xffu) == 0 || (word & 0xff00u) == 0 || (word & 0xff0000u) == 0 || (word & 0xff000000u) == 0) {
            break;
        }
    }
    const std::vector<uint32_t> renamed = literal(name);
    const size_t new_count = count - name_words + renamed.size();
    if (new_count > 0xffffu) {
        *why = "the new name is too long";
        return false;
    }
    out->assign(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(entry));
    out->push_back(static_cast<uint32_t>(new_count << 16) | kOpEntryPoint);
    out->push_back(in[entry + 1]);
    out->push_back(in[entry + 2]);
    out->insert(out->end(), renamed.begin(), renamed.end());
    out->insert(out->end(), in.begin() + static_cast<std::ptrdiff_t>(entry + 3 + name_words),
                in.begin() + static_cast<std::ptrdiff_t>(entry + count));
    out->insert(out->end(), in.begin() + static_cast<std::ptrdiff_t>(entry + count), in.end());
    return true;
}

} // namespace

int renameEntryCommand(int argc, char **argv) {
    if (argc != 6 || std::strcmp(argv[4], "-o") != 0 || argv[2][0] == '\0') {
        std::fprintf(stderr, "infinirt-pack: entry takes NAME IN.spv -o OUT.spv\n");
        return usage(stderr);
    }
    const std::string name = argv[2];
    std::vector<unsigned char> bytes;
    if (!readAll(argv[3], bytes)) {
        std::fprintf(stderr, "infinirt-pack: cannot read %s: %s\n", argv[3], std::strerror(errno));
        return 1;
    }
    if (bytes.size() % 4 != 0) {
        std::fprintf(stderr, "infinirt-pack: %s: %zu bytes is no whole number of SPIR-V words\n", argv[3], bytes.size());
        return 1;
    }
    std::vector<uint32_t> words(bytes.size() / 4), out;
    std::memcpy(words.data(), bytes.data(), bytes.size());
    std::string why;
    if (!rename(words, name, &out, &why)) {
        std::fprintf(stderr, "infinirt-pack: %s: %s\n", argv[3], why.c_str());
        return 1;
    }
    std::vector<unsigned char> written(out.size() * 4);
    std::memcpy(written.data(), out.data(), written.size());
    return writeAtomically(argv[5], written);
}

} // namespace infinirt_pack_tool
