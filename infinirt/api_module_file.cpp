// C ABI: infinirtModuleLoadFile, the module file (docs/module-file.md) read, one entry chosen
// for the device and loaded through infinirtModuleLoad.
#include "dispatch.h"
#include "module_file.h"
#include "modules.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace infinirt;

namespace {

const char *const kFn = "infinirtModuleLoadFile";

// The file's bytes, or a refusal naming the path and the system's reason.
INFINIRT_COLD infiniStatus_t readFile(const char *path, std::vector<unsigned char> &out) {
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: cannot open %s: %s", kFn, path, std::strerror(errno));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        const int e = errno;
        ::close(fd);
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %s is %s", kFn, path,
                    S_ISREG(st.st_mode) ? std::strerror(e) : "not a regular file");
    }
    out.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < out.size()) {
        const ssize_t n = ::read(fd, out.data() + done, out.size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            const int e = errno;
            ::close(fd);
            return fail(INFINI_STATUS_BAD_PARAM, "%s: reading %s: %s", kFn, path,
                        n == 0 ? "the file shrank while it was read" : std::strerror(e));
        }
        done += static_cast<size_t>(n);
    }
    ::close(fd);
    return INFINI_STATUS_SUCCESS;
}

// The device images are chosen for.
struct Target {
    Backend *backend = nullptr;
    int id = 0;
    std::string arch; // the device's architecture property ("" if unknown)
};

// Whether an entry fits and how much it is preferred (higher first).
struct Fit {
    bool fits = false;
    int rank = 0;
    std::string why; // why it does not fit
};

Fit unfit(std::string why) {
    Fit f;
    f.why = std::move(why);
    return f;
}

// The backend ranks each image of its own (module_rank_image); without that entry, any image
// for it that names no architecture or the device's, in file order.
Fit judge(const modfile::Entry &e, const Target &t) {
    const uint32_t fmt = e.format;
    if (e.backend != t.backend->name) {
        return unfit("an image for backend " + e.backend + ", the device's is " + t.backend->name);
    }
    if (fmt == INFINIRT_MODULE_FORMAT_AUTO || fmt > INFINIRT_MODULE_FORMAT_HOST_SO) {
        return unfit("format " + std::to_string(fmt) + " is unknown to this infinirt");
    }
    const std::string dev_arch = t.arch.empty() ? std::string("unknown") : t.arch;
    if (t.backend->table.module_rank_image == nullptr) {
        Fit f = e.arch == "any" || e.arch == t.arch ? Fit{true, 1, {}}
                                                   : unfit("an image for " + e.arch + "; the device is " + dev_arch);
        return f;
    }
    int rank = 0;
    char why[256] = "";
    const infiniStatus_t st = INFINIRT_DEVICE_CALL(t.backend, module_rank_image, t.id,
                                            static_cast<infinirtModuleFormat_t>(fmt), e.arch.c_str(), &rank, why,
                                            sizeof why);
    if (st != INFINI_STATUS_SUCCESS) {
        return unfit(std::string("the backend could not judge it: ") + infinirtGetErrorName(st) + ": " +
                     infinirtGetLastErrorMessage());
    }
    if (rank <= 0) {
        why[sizeof why - 1] = '\0'; // the plugin's text: bounded
        return unfit(why[0] != '\0' ? why : "the backend does not load it");
    }
    return Fit{true, rank, {}};
}

std::string describe(const modfile::Entry &e, size_t index) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "entry %zu (%s %s %s, %llu bytes%s%s)", index, e.backend.c_str(),
                  modfile::formatText(e.format), e.arch.c_str(), static_cast<unsigned long long>(e.size),
                  e.name.empty() ? "" : ", ", e.name.c_str());
    return buf;
}

// Copies `text` into the caller's log (truncated, NUL-terminated).
void putLog(char *log, size_t log_size, const std::string &text) {
    if (log == nullptr || log_size == 0) {
        return;
    }
    const size_t n = std::min(text.size(), log_size - 1);
    std::memcpy(log, text.data(), n);
    log[n] = '\0';
}

bool fallsThrough(infiniStatus_t st) {
    return st == INFINI_STATUS_NOT_IMPLEMENTED || st == INFINI_STATUS_BUILD_FAILED || st == INFINI_STATUS_DRIVER_ERROR ||
           st == INFINI_STATUS_DEVICE_ARCHITECTURE_NOT_SUPPORTED;
}

} // namespace

extern "C" {

__export infiniStatus_t infinirtModuleLoadFile(infinirtModule_t *module, infiniDevice_t device, int device_id,
                                               const char *path, const char *options, char *log, size_t log_size) {
    INFINIRT_ENTER();
    if (log != nullptr && log_size > 0) {
        log[0] = '\0';
    }
    if (module == nullptr) {
        return nullArgument(kFn, "module");
    }
    if (path == nullptr) {
        return nullArgument(kFn, "path");
    }
    INFINIRT_GUARD_BEGIN
    std::vector<unsigned char> bytes;
    infiniStatus_t st = readFile(path, bytes);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    modfile::File file;
    std::string why;
    if (!modfile::parse(bytes.data(), bytes.size(), file, why)) {
        return fail(INFINI_STATUS_BAD_PARAM, "%s: %s: %s", kFn, path, why.c_str());
    }
    Backend *b = nullptr;
    st = checkDevice(enumInt(device), device_id, b);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    infinirtDeviceProperties_t props{};
    props.struct_size = sizeof props;
    st = infinirtGetDeviceProperties(device, device_id, &props);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    Target t;
    t.backend = b;
    t.id = device_id;
    t.arch = props.architecture;
    char device_text[160];
    std::snprintf(device_text, sizeof device_text, "%s:%d (backend %s, architecture %s)", typeName(device), device_id,
                  b->name.c_str(), t.arch.empty() ? "unknown" : t.arch.c_str());

    struct Candidate {
        size_t index;
        Fit fit;
    };
    std::vector<Candidate> all;
    for (size_t i = 0; i < file.entries.size(); ++i) {
        all.push_back({i, judge(file.entries[i], t)});
    }
    std::vector<Candidate> order;
    std::copy_if(all.begin(), all.end(), std::back_inserter(order), [](const Candidate &c) { return c.fit.fits; });
    std::stable_sort(order.begin(), order.end(), [](const Candidate &a, const Candidate &c) {
        return a.fit.rank > c.fit.rank;
    });

    std::string text;
    if (order.empty()) {
        text = std::string(kFn) + ": " + path + ": none of its " + std::to_string(file.entries.size()) +
               " entries fits " + device_text + ":\n";
        std::string brief;
        for (const Candidate &c : all) {
            text += "  " + describe(file.entries[c.index], c.index) + ": " + c.fit.why + "\n";
            brief += (brief.empty() ? "" : "; ") + file.entries[c.index].backend + " " +
                     modfile::formatText(file.entries[c.index].format) + " " + file.entries[c.index].arch;
        }
        putLog(log, log_size, text);
        return fail(INFINI_STATUS_DEVICE_ARCHITECTURE_NOT_SUPPORTED, "%s: %s holds no image for %s; it holds: %s", kFn,
                    path, device_text, brief.c_str());
    }

    std::vector<char> sub(std::max<size_t>(log_size, 1));
    for (size_t k = 0; k < order.size(); ++k) {
        const size_t i = order[k].index;
        const modfile::Entry &e = file.entries[i];
        std::string opts = e.options;
        if (options != nullptr && options[0] != '\0') {
            opts += (opts.empty() ? "" : " ") + std::string(options);
        }
        infinirtModuleImage_t image{};
        image.struct_size = sizeof image;
        image.format = static_cast<infinirtModuleFormat_t>(e.format);
        image.data = bytes.data() + e.offset;
        image.size = static_cast<size_t>(e.size);
        image.options = opts.empty() ? nullptr : opts.c_str();
        sub[0] = '\0';
        st = infinirtModuleLoad(module, device, device_id, &image, 1, sub.data(), sub.size());
        if (st == INFINI_STATUS_SUCCESS) {
            text += std::string(kFn) + ": " + path + ": chose " + describe(e, i) + " of " +
                    std::to_string(file.entries.size()) + " for " + device_text + "\n";
            text += sub.data();
            putLog(log, log_size, text);
            return st;
        }
        text += std::string(kFn) + ": " + path + ": " + describe(e, i) + " failed: " + infinirtGetErrorName(st) +
                ": " + infinirtGetLastErrorMessage() + "\n";
        if (sub[0] != '\0') {
            text += sub.data();
            if (text.back() != '\n') {
                text += '\n';
            }
        }
        if (!fallsThrough(st) || k + 1 == order.size()) {
            break;
        }
    }
    putLog(log, log_size, text);
    return st; // the last error is the failed load's
    INFINIRT_GUARD_END(kFn)
}

} // extern "C"
