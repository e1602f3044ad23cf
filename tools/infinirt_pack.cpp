// infinirt-pack: writes and lists infinirt module files (docs/module-file.md).
//
//   infinirt-pack -o OUT.irtm [--backend B] [--format F] [--arch A] [--options O] FILE [...]
//   infinirt-pack list FILE.irtm
//
// The flags before a FILE apply to that file only; without them the extension says what it is.
#include "module_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace mf = infinirt::modfile;

namespace {

int usage(FILE *to) {
    std::fprintf(to,
                 "usage: infinirt-pack -o OUT.irtm [--backend B] [--format F] [--arch A] [--options O] FILE [...]\n"
                 "       infinirt-pack list FILE.irtm\n"
                 "Packs kernel images into one infinirt module file, or lists one. The flags before a FILE apply\n"
                 "to that file only; without them its extension says what it is: .ptx (cuda PTX), .cubin (cuda\n"
                 "CUBIN, architecture from its ELF header), .fatbin (cuda FATBIN), .hsaco (hip HSACO), .cl\n"
                 "(opencl OPENCL_C), .spv (opencl SPIRV), .so (cpu HOST_SO, architecture from its ELF header).\n"
                 "Formats: PTX CUBIN FATBIN HSACO OPENCL_C SPIRV DEVICE_BINARY HOST_SO. See docs/module-file.md.\n");
    return to == stdout ? 0 : 2;
}

bool readAll(const std::string &path, std::vector<unsigned char> &out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return false;
    }
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return !in.bad();
}

bool endsWith(const std::string &s, const char *suffix) {
    const size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

std::string baseName(const std::string &path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

uint32_t le32(const unsigned char *p) {
    return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
           (static_cast<uint32_t>(p[3]) << 24);
}

// An ELF file's (class, machine, flags); false if it is no little-endian ELF.
bool elfHeader(const std::vector<unsigned char> &b, unsigned &machine, uint32_t &flags, unsigned &abi_version) {
    if (b.size() < 52 || b[0] != 0x7f || b[1] != 'E' || b[2] != 'L' || b[3] != 'F' || b[5] != 1) {
        return false;
    }
    machine = static_cast<unsigned>(b[18] | (b[19] << 8));
    abi_version = b[8];
    const size_t flags_at = b[4] == 2 ? 48 : 36; // ELF64 : ELF32
    if (b.size() < flags_at + 4) {
        return false;
    }
    flags = le32(&b[flags_at]);
    return true;
}

// The cubin's sm_XY from e_flags: the low byte up to sm_90 (ABI version < 8, EF_CUDA_ACCELERATORS_V1
// 0x800 for the "a" variant), bits 8-15 from the ABI of Blackwell (ABI version 8).
std::string cubinArch(const std::vector<unsigned char> &b) {
    unsigned machine = 0, abi = 0;
    uint32_t flags = 0;
    if (!elfHeader(b, machine, flags, abi) || machine != 190) {
        return "";
    }
    const unsigned sm = abi >= 8 ? (flags >> 8) & 0xff : flags & 0xff;
    if (sm == 0) {
        return "";
    }
    return "sm_" + std::to_string(sm) + (abi < 8 && (flags & 0x800) != 0 ? "a" : "");
}

// The machine a host shared object is for, as uname -m names it.
std::string soArch(const std::vector<unsigned char> &b) {
    unsigned machine = 0, abi = 0;
    uint32_t flags = 0;
    if (b.size() >= 20 && b[0] == 0x7f && b[1] == 'E' && b[5] == 2) {
        return ""; // big-endian: not guessed
    }
    if (!elfHeader(b, machine, flags, abi)) {
        return "";
    }
    switch (machine) {
    case 3: return "i686";
    case 62: return "x86_64";
    case 40: return "armv7l";
    case 183: return "aarch64";
    case 243: return b[4] == 2 ? "riscv64" : "riscv32";
    case 21: return "ppc64le";
    case 258: return "loongarch64";
    default: return "";
    }
}

// PTX's ".target sm_XY" as compute_XY; "any" without one.
std::string ptxArch(const std::vector<unsigned char> &b) {
    const std::string text(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(b.size(), 1u << 16)));
    const size_t t = text.find(".target");
    if (t == std::string::npos) {
        return "any";
    }
    size_t p = text.find("sm_", t);
    const size_t eol = text.find('\n', t);
    if (p == std::string::npos || (eol != std::string::npos && p > eol)) {
        return "any";
    }
    p += 3;
    std::string digits;
    while (p < text.size() && text[p] >= '0' && text[p] <= '9') {
        digits += text[p++];
    }
    return digits.empty() ? "any" : "compute_" + digits;
}

int list(const char *path) {
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
                    e.arch.c_str(), static_cast<unsigned long long>(e.size), e.options.empty() ? "-" : e.options.c_str(),
                    e.name.empty() ? "-" : e.name.c_str());
    }
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    if (argc >= 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
        return usage(stdout);
    }
    if (argc == 3 && std::strcmp(argv[1], "list") == 0) {
        return list(argv[2]);
    }
    if (argc >= 2 && std::strcmp(argv[1], "list") == 0) {
        std::fprintf(stderr, "infinirt-pack: list takes one file\n");
        return usage(stderr);
    }
    std::string out;
    std::string backend, format, arch, options;
    bool options_set = false;
    std::vector<mf::Input> inputs;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        std::string *target = nullptr;
        if (a == "-o") {
            target = &out;
        } else if (a == "--backend") {
            target = &backend;
        } else if (a == "--format") {
            target = &format;
        } else if (a == "--arch") {
            target = &arch;
        } else if (a == "--options") {
            target = &options;
            options_set = true;
        } else if (a.size() > 1 && a[0] == '-') {
            std::fprintf(stderr, "infinirt-pack: unknown option %s\n", a.c_str());
            return usage(stderr);
        }
        if (target != nullptr) {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "infinirt-pack: %s needs a value\n", a.c_str());
                return usage(stderr);
            }
            *target = argv[++i];
            continue;
        }
        mf::Input in;
        if (!readAll(a, in.bytes)) {
            std::fprintf(stderr, "infinirt-pack: cannot read %s: %s\n", a.c_str(), std::strerror(errno));
            return 1;
        }
        mf::Entry &e = in.entry;
        e.name = baseName(a);
        std::string b, inferred_arch = "any";
        uint32_t f = 0;
        if (endsWith(a, ".ptx")) {
            b = "cuda", f = 1, inferred_arch = ptxArch(in.bytes);
        } else if (endsWith(a, ".cubin")) {
            b = "cuda", f = 2, inferred_arch = cubinArch(in.bytes);
        } else if (endsWith(a, ".fatbin")) {
            b = "cuda", f = 3;
        } else if (endsWith(a, ".hsaco")) {
            b = "hip", f = 4;
        } else if (endsWith(a, ".cl")) {
            b = "opencl", f = 5;
        } else if (endsWith(a, ".spv")) {
            b = "opencl", f = 6;
        } else if (endsWith(a, ".so") || a.find(".so.") != std::string::npos) {
            b = "cpu", f = 8, inferred_arch = soArch(in.bytes);
        }
        e.backend = backend.empty() ? b : backend;
        e.format = format.empty() ? f : mf::formatValue(format);
        e.arch = arch.empty() ? inferred_arch : arch;
        e.options = options_set ? options : "";
        if (!format.empty() && e.format == 0) {
            std::fprintf(stderr, "infinirt-pack: %s: --format %s is no format (PTX CUBIN FATBIN HSACO OPENCL_C SPIRV "
                                 "DEVICE_BINARY HOST_SO)\n",
                         a.c_str(), format.c_str());
            return 2;
        }
        if (e.backend.empty() || e.format == 0) {
            std::fprintf(stderr, "infinirt-pack: %s: the extension does not say what it is; give --backend and --format\n",
                         a.c_str());
            return 2;
        }
        if (e.arch.empty()) {
            std::fprintf(stderr, "infinirt-pack: %s: its architecture cannot be read from the file; give --arch\n",
                         a.c_str());
            return 2;
        }
        if (e.format == 7 && e.arch == "any") {
            std::fprintf(stderr, "infinirt-pack: %s: a DEVICE_BINARY needs --arch (the device's architecture or name)\n",
                         a.c_str());
            return 2;
        }
        inputs.push_back(std::move(in));
        backend.clear(), format.clear(), arch.clear(), options.clear();
        options_set = false;
    }
    if (out.empty()) {
        std::fprintf(stderr, "infinirt-pack: no -o OUT given\n");
        return usage(stderr);
    }
    if (inputs.empty()) {
        std::fprintf(stderr, "infinirt-pack: no input files\n");
        return usage(stderr);
    }
    std::vector<unsigned char> bytes;
    std::string why;
    if (!mf::write(inputs, bytes, why)) {
        std::fprintf(stderr, "infinirt-pack: %s\n", why.c_str());
        return 1;
    }
    const std::string tmp = out + ".tmp";
    {
        std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
        o.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        if (!o) {
            std::fprintf(stderr, "infinirt-pack: cannot write %s: %s\n", tmp.c_str(), std::strerror(errno));
            std::remove(tmp.c_str());
            return 1;
        }
    }
    if (std::rename(tmp.c_str(), out.c_str()) != 0) {
        std::fprintf(stderr, "infinirt-pack: cannot rename %s to %s: %s\n", tmp.c_str(), out.c_str(), std::strerror(errno));
        std::remove(tmp.c_str());
        return 1;
    }
    return 0;
}
