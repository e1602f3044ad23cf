// bench_options.cpp - infinirt-bench's command line and device names.
#include "bench_options.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace infinirt_bench_tool {
namespace {

const char *const kTypeNames[INFINI_DEVICE_TYPE_COUNT] = {"cpu",    "nvidia", "cambricon", "ascend", "metax",
                                                          "moore",  "iluvatar", "kunlun",  "hygon",  "qy",
                                                          "ali",    "amd",    "opencl", "vulkan"};

const char kUsage[] =
    "usage: infinirt-bench [--device TYPE[:INDEX]] [--quick] [--max-size SIZE] [--json[=FILE]] [--plot FILE]\n"
    "Measures one device through infinirt beside its native API in the same run, and prints each\n"
    "figure with the ratio infinirt / native:\n"
    "  bandwidth: host to device and device to host (pinned and pageable host memory) and device to\n"
    "             device, 4 KiB to 1 GiB in steps of 4x;\n"
    "  latency:   event record, event query, stream synchronize, 8-byte copies, kernel launch of an\n"
    "             empty kernel (alone and with a stream synchronize).\n"
    "Native anchors: cuda, the CUDA driver API; opencl, OpenCL; vulkan, a native Vulkan program on the\n"
    "same device; cpu, memcpy for the copies.\n"
    "  --device TYPE[:INDEX]  the device (cpu, nvidia or cuda, opencl, amd or hip, ...); default: the\n"
    "                         process default device (INFINICORE_DEFAULT_DEVICE, else the first GPU)\n"
    "  --quick                a smoke run: sizes up to 1 MiB unless --max-size, one round\n"
    "  --max-size SIZE        largest transfer (e.g. 64M, 1G; at least 4K); lowered, with a note, when\n"
    "                         the device or the host lacks the memory\n"
    "  --json[=FILE]          every figure as one JSON document (schema in README.md): to FILE beside\n"
    "                         the tables, or to stdout instead of them\n"
    "  --plot FILE            bandwidth against size per direction, FILE.png or FILE.svg (needs Python 3\n"
    "                         with matplotlib; INFINIRT_PYTHON names the interpreter)\n"
    "A progress line is shown on a terminal (stderr). Exit status: 0 measured, 1 a call failed,\n"
    "2 bad arguments.\n";

// The value of "--name=value" or "--name value"; nullptr when argv[*i] is not --name.
const char *optionValue(int argc, char **argv, int *i, const char *name, bool *missing) {
    const size_t n = std::strlen(name);
    const char *arg = argv[*i];
    if (std::strncmp(arg, name, n) != 0) {
        return nullptr;
    }
    if (arg[n] == '=') {
        return arg + n + 1;
    }
    if (arg[n] != '\0') {
        return nullptr;
    }
    if (*i + 1 >= argc) {
        *missing = true;
        return nullptr;
    }
    return argv[++*i];
}

int bad(const std::string &message) {
    std::fprintf(stderr, "infinirt-bench: %s (try --help)\n", message.c_str());
    return 2;
}

} // namespace

const char *deviceTypeName(infiniDevice_t type) {
    return type >= 0 && type < INFINI_DEVICE_TYPE_COUNT ? kTypeNames[type] : "unknown";
}

bool parseDevice(const std::string &text, infiniDevice_t *type, int *id, std::string *error) {
    const size_t colon = text.find(':');
    const std::string name = text.substr(0, colon);
    int found = -1;
    for (int t = 0; t < INFINI_DEVICE_TYPE_COUNT; ++t) {
        if (name == kTypeNames[t] || (t == INFINI_DEVICE_NVIDIA && name == "cuda") ||
            (t == INFINI_DEVICE_AMD && name == "hip")) {
            found = t;
        }
    }
    if (found < 0) {
        *error = "--device " + text + ": unknown device type '" + name + "' (cpu, nvidia/cuda, amd/hip, opencl, ...)";
        return false;
    }
    long index = 0;
    if (colon != std::string::npos) {
        const char *digits = text.c_str() + colon + 1;
        char *end = nullptr;
        errno = 0;
        index = std::strtol(digits, &end, 10);
        if (*digits == '\0' || *end != '\0' || errno != 0 || index < 0 || index > 1000000) {
            *error = "--device " + text + ": the index after ':' must be a number >= 0";
            return false;
        }
    }
    *type = static_cast<infiniDevice_t>(found);
    *id = static_cast<int>(index);
    return true;
}

bool parseSize(const std::string &text, size_t *bytes, std::string *error) {
    char *end = nullptr;
    errno = 0;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    std::string unit(end);
    unsigned shift = 0;
    if (unit == "" || unit == "B") {
        shift = 0;
    } else if (unit == "K" || unit == "KiB") {
        shift = 10;
    } else if (unit == "M" || unit == "MiB") {
        shift = 20;
    } else if (unit == "G" || unit == "GiB") {
        shift = 30;
    } else {
        shift = 64;
    }
    if (text.empty() || end == text.c_str() || errno != 0 || shift == 64 || value > (~0ull >> 34)) {
        *error = "--max-size " + text + ": not a size (e.g. 65536, 64K, 16M, 1G)";
        return false;
    }
    *bytes = static_cast<size_t>(value << shift);
    return true;
}

int parseOptions(int argc, char **argv, Options *o) {
    for (int i = 1; i < argc; ++i) {
        bool missing = false;
        const char *v = nullptr;
        std::string error;
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
            std::printf("%s", kUsage);
            return 0;
        } else if (std::strcmp(argv[i], "--version") == 0) {
            std::printf("infinirt-bench %s\n", INFINIRT_BENCH_VERSION);
            return 0;
        } else if (std::strcmp(argv[i], "--quick") == 0) {
            o->quick = true;
        } else if (std::strcmp(argv[i], "--json") == 0) {
            o->json = true;
        } else if (std::strncmp(argv[i], "--json=", 7) == 0) {
            o->json = true;
            o->json_file = argv[i] + 7;
            if (o->json_file.empty()) {
                return bad("--json=: no file name");
            }
        } else if ((v = optionValue(argc, argv, &i, "--device", &missing)) != nullptr) {
            if (!parseDevice(v, &o->type, &o->id, &error)) {
                return bad(error);
            }
            o->has_device = true;
        } else if ((v = optionValue(argc, argv, &i, "--max-size", &missing)) != nullptr) {
            if (!parseSize(v, &o->max_size, &error)) {
                return bad(error);
            }
            if (o->max_size < 4096) {
                return bad(std::string("--max-size ") + v + ": at least 4K (the smallest transfer measured)");
            }
        } else if ((v = optionValue(argc, argv, &i, "--plot", &missing)) != nullptr) {
            o->plot_file = v;
        } else if (missing) {
            return bad(std::string(argv[i]) + ": needs a value");
        } else {
            return bad(std::string("unknown argument ") + argv[i]);
        }
    }
    return -1;
}

} // namespace infinirt_bench_tool
