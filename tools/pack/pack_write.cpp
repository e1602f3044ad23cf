// pack_write.cpp - the packing command: flags per file, checks, the module file written.
#include "pack_write.h"

#include "module_file.h"
#include "pack_files.h"
#include "pack_infer.h"
#include "pack_usage.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace mf = infinirt::modfile;

namespace infinirt_pack_tool {

namespace {

// The flags given since the last FILE: they describe the next one.
struct EntryFlags {
    std::string backend;
    std::string format;
    std::string arch;
    std::string options;
    bool options_set = false;
};

std::string baseName(const std::string &path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The string that the option `a` gives a value to; nullptr when `a` is no such option.
std::string *valueOf(const std::string &a, std::string &out, EntryFlags &flags) {
    if (a == "-o") {
        return &out;
    }
    if (a == "--backend") {
        return &flags.backend;
    }
    if (a == "--format") {
        return &flags.format;
    }
    if (a == "--arch") {
        return &flags.arch;
    }
    if (a == "--options") {
        flags.options_set = true;
        return &flags.options;
    }
    return nullptr;
}

// Fills in.entry from `flags`, and what the file says where a flag is missing. Returns 0, or 2
// with the reason on stderr when the entry would lack its backend, format or architecture.
int describeEntry(const std::string &path, const EntryFlags &flags, mf::Input &in) {
    mf::Entry &e = in.entry;
    e.name = baseName(path);
    const Inferred inferred = inferEntry(path, in.bytes);
    e.backend = flags.backend.empty() ? inferred.backend : flags.backend;
    e.format = flags.format.empty() ? inferred.format : mf::formatValue(flags.format);
    e.arch = flags.arch.empty() ? inferred.arch : flags.arch;
    e.options = flags.options_set ? flags.options : "";
    const char *p = path.c_str();
    if (!flags.format.empty() && e.format == 0) {
        std::fprintf(stderr,
                     "infinirt-pack: %s: --format %s is no format (PTX CUBIN FATBIN HSACO OPENCL_C SPIRV "
                     "DEVICE_BINARY HOST_SO)\n",
                     p, flags.format.c_str());
        return 2;
    }
    if (e.backend.empty() || e.format == 0) {
        std::fprintf(stderr, "infinirt-pack: %s: the extension does not say what it is; give --backend and --format\n",
                     p);
        return 2;
    }
    if (e.arch.empty()) {
        std::fprintf(stderr, "infinirt-pack: %s: its architecture cannot be read from the file; give --arch\n", p);
        return 2;
    }
    if (e.format == 7 && e.arch == "any") {
        std::fprintf(stderr, "infinirt-pack: %s: a DEVICE_BINARY needs --arch (the device's architecture or name)\n",
                     p);
        return 2;
    }
    return 0;
}

// Reads the command line into *out and *inputs. Returns -1 to go on, else the exit status (with
// the message printed).
int readCommandLine(int argc, char **argv, std::string *out, std::vector<mf::Input> *inputs) {
    EntryFlags flags;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        std::string *target = valueOf(a, *out, flags);
        if (target == nullptr && a.size() > 1 && a[0] == '-') {
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
        if (const int rc = describeEntry(a, flags, in); rc != 0) {
            return rc;
        }
        inputs->push_back(std::move(in));
        flags = EntryFlags{};
    }
    return -1;
}

} // namespace

int packCommand(int argc, char **argv) {
    std::string out;
    std::vector<mf::Input> inputs;
    if (const int rc = readCommandLine(argc, argv, &out, &inputs); rc >= 0) {
        return rc;
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
    return writeAtomically(out, bytes);
}

} // namespace infinirt_pack_tool
