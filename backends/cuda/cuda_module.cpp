/*
 * cuda_module.cpp - loading modules (PTX through the JIT, cubin, fatbin; several images through
 * the JIT linker) into a device's primary context, and the module and kernel converters of the
 * vendor table (the rules are gpu_common's, gpu_module.cpp).
 *
 * An image's `options` are nvcc/ptxas-style flags turned into JIT options:
 *   -maxrregcount=N, --maxrregcount=N, -maxrregcount N  -> CU_JIT_MAX_REGISTERS (1..255)
 *   -O0 .. -O4                                           -> CU_JIT_OPTIMIZATION_LEVEL
 *   -lineinfo, --generate-line-info                      -> CU_JIT_GENERATE_LINE_INFO
 *   -G, --device-debug                                   -> CU_JIT_GENERATE_DEBUG_INFO
 * anything else is BAD_PARAM naming it (a CUBIN image's options are checked but have nothing to
 * act on). Every load asks the driver for its error and info logs (verbose); the caller's log
 * receives the error log, then the info log.
 */
#include "cuda_backend.h"

#include "common/module_rank.hpp"
#include "common/native_errors.hpp"
#include "common/text.hpp"

#include <elf.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace infinirt::cuda {

namespace {

/* Each JIT log buffer; the driver truncates what does not fit. */
constexpr unsigned kJitLogBytes = 16 * 1024;
/* The most kernel names a SYMBOL_NOT_FOUND detail lists. */
constexpr unsigned kListedNames = 8;
/* cuFuncGetParamInfo is probed up to this index: a kernel's parameters fit in 32764 bytes. */
constexpr size_t kMaxParams = 32768;

inline void *optionValue(unsigned value) { return reinterpret_cast<void *>(static_cast<uintptr_t>(value)); }

/* The JIT options of one driver call. At most 4 from an image's options plus 5 for the logs. */
struct JitOptions {
    static constexpr unsigned kCapacity = 16;
    CUjit_option keys[kCapacity];
    void *values[kCapacity];
    unsigned count = 0;

    /* A key given twice keeps its last value. */
    void set(CUjit_option key, void *value) {
        for (unsigned i = 0; i < count; ++i) {
            if (keys[i] == key) {
                values[i] = value;
                return;
            }
        }
        keys[count] = key;
        values[count] = value;
        ++count;
    }
};

/* The driver's error and info logs of one load or link. */
struct JitLog {
    std::vector<char> error = std::vector<char>(kJitLogBytes, '\0');
    std::vector<char> info = std::vector<char>(kJitLogBytes, '\0');

    void request(JitOptions *options) {
        options->set(CU_JIT_ERROR_LOG_BUFFER, error.data());
        options->set(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, optionValue(kJitLogBytes));
        options->set(CU_JIT_INFO_LOG_BUFFER, info.data());
        options->set(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, optionValue(kJitLogBytes));
        options->set(CU_JIT_LOG_VERBOSE, optionValue(1));
    }
    static std::string text(const std::vector<char> &buffer) {
        return std::string(buffer.data(), strnlen(buffer.data(), buffer.size()));
    }
    std::string errorText() const { return text(error); }
    /* The error log, then the info log. */
    std::string combined() const {
        std::string out = errorText();
        const std::string more = text(info);
        if (!out.empty() && !more.empty() && out.back() != '\n') {
            out += '\n';
        }
        return out + more;
    }
};

/* The detail of a failed load or link: the native failure, then the error log's first lines.
 * Build-type errors are BUILD_FAILED here (the shared table maps them for other calls). */
infiniStatus_t loadFailure(const char *call, NativeStatus rc, int device, const char *what, const JitLog &log) {
    const infiniStatus_t status = isBuildError(rc) ? INFINI_STATUS_BUILD_FAILED : toStatus(rc);
    const std::string lines = common::firstLines(log.errorText(), 3, std::string::npos);
    return common::nativeFailure(status, call, errorName(rc), rc, " while ", "%s on cuda:%d%s%s", what, device,
                                 lines.empty() ? "" : ": ", lines.c_str());
}

bool startsWith(const std::string &text, const char *prefix) { return text.rfind(prefix, 0) == 0; }

/* A decimal count in [1, max]; false for anything else. */
bool parseCount(const std::string &text, unsigned max, unsigned *out) {
    if (text.empty() || text.size() > 6) {
        return false;
    }
    unsigned value = 0;
    for (char c : text) {
        if (c < '0' || c > '9') {
            return false;
        }
        value = value * 10 + static_cast<unsigned>(c - '0');
    }
    if (value < 1 || value > max) {
        return false;
    }
    *out = value;
    return true;
}

infiniStatus_t parseOptions(const char *text, size_t image, JitOptions *options) {
    std::vector<std::string> tokens;
    for (const char *p = text ? text : ""; *p;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
            ++p;
        }
        const char *start = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
            ++p;
        }
        if (p > start) {
            tokens.emplace_back(start, p);
        }
    }
    for (size_t i = 0; i < tokens.size(); ++i) {
        const std::string &token = tokens[i];
        if (token == "-maxrregcount" || token == "--maxrregcount" || startsWith(token, "-maxrregcount=") ||
            startsWith(token, "--maxrregcount=")) {
            const size_t equals = token.find('=');
            std::string value;
            if (equals != std::string::npos) {
                value = token.substr(equals + 1);
            } else if (i + 1 < tokens.size()) {
                value = tokens[++i];
            }
            unsigned registers = 0;
            if (!parseCount(value, 255, &registers)) {
                return common::fail(INFINI_STATUS_BAD_PARAM,
                                    "image %zu: option %s needs a register count from 1 to 255, not '%s'", image,
                                    token.c_str(), value.c_str());
            }
            options->set(CU_JIT_MAX_REGISTERS, optionValue(registers));
        } else if (token.size() == 3 && token[0] == '-' && token[1] == 'O' && token[2] >= '0' && token[2] <= '4') {
            options->set(CU_JIT_OPTIMIZATION_LEVEL, optionValue(static_cast<unsigned>(token[2] - '0')));
        } else if (token == "-lineinfo" || token == "--generate-line-info") {
            options->set(CU_JIT_GENERATE_LINE_INFO, optionValue(1));
        } else if (token == "-G" || token == "--device-debug") {
            options->set(CU_JIT_GENERATE_DEBUG_INFO, optionValue(1));
        } else {
            return common::fail(INFINI_STATUS_BAD_PARAM,
                                "image %zu: unknown JIT option '%s' (cuda takes -maxrregcount=N, -O0..-O4, -lineinfo "
                                "and -G)",
                                image, token.c_str());
        }
    }
    return INFINI_STATUS_SUCCESS;
}

/* An image ready for the driver: its input type, its bytes (PTX copied with a terminating NUL,
 * which the driver needs and the caller's text may lack) and its JIT options. */
struct Image {
    CUjitInputType type = CU_JIT_INPUT_PTX;
    const void *data = nullptr;
    size_t size = 0;
    std::string ptx;
    JitOptions options;
};

/* The driver reads cubins and fatbins without being told their size: an image that claims more
 * bytes than it has is refused here rather than read past its end. */
infiniStatus_t checkBinary(const infinirtModuleImage_t &image, size_t index) {
    const auto *bytes = static_cast<const unsigned char *>(image.data);
    if (image.format == INFINIRT_MODULE_FORMAT_CUBIN) {
        Elf64_Ehdr header;
        if (image.size < sizeof header || std::memcmp(bytes, ELFMAG, SELFMAG) != 0 || bytes[EI_CLASS] != ELFCLASS64) {
            return common::fail(INFINI_STATUS_BAD_PARAM,
                                "image %zu is named CUBIN but is not a 64-bit ELF file (%zu bytes)", index, image.size);
        }
        std::memcpy(&header, bytes, sizeof header);
        const uint64_t table_end = header.e_shoff + uint64_t(header.e_shnum) * header.e_shentsize;
        if (header.e_shoff > image.size || table_end > image.size) {
            return common::fail(INFINI_STATUS_BAD_PARAM, "image %zu (CUBIN) is cut short: its section headers end at "
                                "byte %llu of %zu", index, static_cast<unsigned long long>(table_end), image.size);
        }
        return INFINI_STATUS_SUCCESS;
    }
    /* FATBIN: {uint32 magic 0xBA55ED50, uint16 version, uint16 header size, uint64 payload size}. */
    uint32_t magic = 0;
    uint16_t header_size = 0;
    uint64_t payload = 0;
    if (image.size >= 16) {
        std::memcpy(&magic, bytes, 4);
        std::memcpy(&header_size, bytes + 6, 2);
        std::memcpy(&payload, bytes + 8, 8);
    }
    if (magic != 0xBA55ED50u) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "image %zu is named FATBIN but lacks the fatbin magic 0xBA55ED50 "
                            "(%zu bytes)", index, image.size);
    }
    if (payload > image.size || header_size + payload > image.size) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "image %zu (FATBIN) is cut short: its header says %llu bytes, "
                            "the image has %zu", index, static_cast<unsigned long long>(header_size + payload),
                            image.size);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t prepare(const infinirtModuleImage_t &source, size_t index, Image *image) {
    switch (source.format) {
    case INFINIRT_MODULE_FORMAT_PTX: {
        image->type = CU_JIT_INPUT_PTX;
        image->ptx.assign(static_cast<const char *>(source.data), source.size);
        while (!image->ptx.empty() && image->ptx.back() == '\0') {
            image->ptx.pop_back();
        }
        if (image->ptx.empty()) {
            return common::fail(INFINI_STATUS_BAD_PARAM, "image %zu (PTX) holds no text", index);
        }
        image->data = image->ptx.c_str();
        image->size = image->ptx.size() + 1; /* the linker wants the NUL counted */
        break;
    }
    case INFINIRT_MODULE_FORMAT_CUBIN:
    case INFINIRT_MODULE_FORMAT_FATBIN:
        if (infiniStatus_t status = checkBinary(source, index)) {
            return status;
        }
        image->type = source.format == INFINIRT_MODULE_FORMAT_CUBIN ? CU_JIT_INPUT_CUBIN : CU_JIT_INPUT_FATBINARY;
        image->data = source.data;
        image->size = source.size;
        break;
    default:
        return common::fail(INFINI_STATUS_BAD_PARAM, "cuda loads PTX, CUBIN and FATBIN images; image %zu is %s", index,
                            common::moduleFormatName(source.format));
    }
    return parseOptions(source.options, index, &image->options);
}

/* One image: cuModuleLoadDataEx with its options and the logs. */
infiniStatus_t loadOne(int device, Image &image, char *log, size_t log_size, CUmodule *module) {
    JitLog jit;
    jit.request(&image.options);
    CUmodule loaded = nullptr;
    CUresult rc = nativeApi().cuModuleLoadDataEx(&loaded, image.data, image.options.count, image.options.keys,
                                              image.options.values);
    common::copyString(log, log_size, jit.combined());
    if (rc) {
        char what[64];
        std::snprintf(what, sizeof what, "loading a %s image",
                      image.type == CU_JIT_INPUT_PTX     ? "PTX"
                      : image.type == CU_JIT_INPUT_CUBIN ? "CUBIN"
                                                         : "FATBIN");
        return loadFailure("cuModuleLoadDataEx", rc, device, what, jit);
    }
    *module = loaded;
    return INFINI_STATUS_SUCCESS;
}

/* Several images: the JIT linker, each image added with its type and options, and the linked
 * cubin loaded. The link state owns the cubin (and the log buffers must outlive it): it is
 * destroyed after the load, on every path. */
infiniStatus_t linkMany(int device, std::vector<Image> &images, char *log, size_t log_size, CUmodule *module) {
    const NativeApi &d = nativeApi();
    JitLog jit;
    JitOptions link_options;
    jit.request(&link_options);
    CUlinkState state = nullptr;
    if (CUresult rc = d.cuLinkCreate(link_options.count, link_options.keys, link_options.values, &state)) {
        common::copyString(log, log_size, jit.combined());
        return loadFailure("cuLinkCreate_v2", rc, device, "starting a link", jit);
    }
    struct Destroy {
        CUlinkState state;
        ~Destroy() { nativeApi().cuLinkDestroy(state); }
    } destroy{state};

    for (size_t i = 0; i < images.size(); ++i) {
        Image &image = images[i];
        const std::string name = "image" + std::to_string(i);
        /* A cubin takes no JIT options (CU_JIT_INPUT_CUBIN: "applicable options: none"). */
        const unsigned option_count = image.type == CU_JIT_INPUT_CUBIN ? 0 : image.options.count;
        if (CUresult rc = d.cuLinkAddData(state, image.type, const_cast<void *>(image.data), image.size, name.c_str(),
                                          option_count, image.options.keys, image.options.values)) {
            common::copyString(log, log_size, jit.combined());
            char what[64];
            std::snprintf(what, sizeof what, "adding image %zu to a link", i);
            return loadFailure("cuLinkAddData_v2", rc, device, what, jit);
        }
    }
    void *cubin = nullptr;
    size_t cubin_size = 0;
    if (CUresult rc = d.cuLinkComplete(state, &cubin, &cubin_size)) {
        common::copyString(log, log_size, jit.combined());
        return loadFailure("cuLinkComplete", rc, device, "linking images", jit);
    }
    common::copyString(log, log_size, jit.combined());
    CUmodule loaded = nullptr;
    if (CUresult rc = d.cuModuleLoadDataEx(&loaded, cubin, 0, nullptr, nullptr)) {
        return loadFailure("cuModuleLoadDataEx", rc, device, "loading the linked cubin", jit);
    }
    *module = loaded;
    return INFINI_STATUS_SUCCESS;
}

} // namespace

infiniStatus_t moduleLoad(int device, const infinirtModuleImage_t *images, size_t count, char *log, size_t log_size,
                          void **module) {
    common::copyString(log, log_size, "");
    std::vector<Image> prepared(count);
    for (size_t i = 0; i < count; ++i) {
        if (infiniStatus_t status = prepare(images[i], i, &prepared[i])) {
            return status;
        }
    }
    gpu::Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    CUmodule loaded = nullptr;
    infiniStatus_t status = count == 1 ? loadOne(device, prepared[0], log, log_size, &loaded)
                                       : linkMany(device, prepared, log, log_size, &loaded);
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    *module = loaded;
    return INFINI_STATUS_SUCCESS;
}

NativeStatus nativeModuleUnload(void *module) { return nativeApi().cuModuleUnload(moduleOf(module)); }

NativeStatus nativeModuleGetFunction(void **function, void *module, const char *name) {
    CUfunction f = nullptr;
    CUresult rc = nativeApi().cuModuleGetFunction(&f, moduleOf(module), name);
    *function = f;
    return rc;
}

NativeStatus nativeModuleGetGlobal(void **ptr, size_t *size, void *module, const char *name) {
    CUdeviceptr address = 0;
    size_t bytes = 0;
    CUresult rc = nativeApi().cuModuleGetGlobal(&address, &bytes, moduleOf(module), name);
    *ptr = reinterpret_cast<void *>(static_cast<uintptr_t>(address));
    *size = bytes;
    return rc;
}

/* The first kListedNames kernels of the module (CUDA 12.4+ drivers; NOT_SUPPORTED before). */
NativeStatus nativeModuleListFunctions(void *module, char *text, size_t capacity) {
    const NativeApi &d = nativeApi();
    if (!d.cuModuleGetFunctionCount || !d.cuModuleEnumerateFunctions || !d.cuFuncGetName) {
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    unsigned count = 0;
    if (CUresult rc = d.cuModuleGetFunctionCount(&count, moduleOf(module))) {
        return rc;
    }
    CUfunction functions[kListedNames] = {};
    const unsigned listed = count < kListedNames ? count : kListedNames;
    if (listed > 0) {
        if (CUresult rc = d.cuModuleEnumerateFunctions(functions, listed, moduleOf(module))) {
            return rc;
        }
    }
    std::string names;
    for (unsigned i = 0; i < listed; ++i) {
        const char *name = nullptr;
        if (d.cuFuncGetName(&name, functions[i]) == CUDA_SUCCESS && name) {
            names += (names.empty() ? "" : ", ") + std::string(name);
        }
    }
    if (count > listed) {
        names += ", ...";
    }
    common::copyString(text, capacity, names);
    return CUDA_SUCCESS;
}

NativeStatus nativeFunctionGetAttribute(int *value, int attr, void *function) {
    return nativeApi().cuFuncGetAttribute(value, static_cast<CUfunction_attribute>(attr), functionOf(function));
}

NativeStatus nativeFunctionSetAttribute(void *function, int attr, int value) {
    return nativeApi().cuFuncSetAttribute(functionOf(function), static_cast<CUfunction_attribute>(attr), value);
}

/* cuFuncGetParamInfo answers CUDA_ERROR_INVALID_VALUE for the first index past the last
 * parameter; without it (drivers before 12.4) the count is unknown. */
NativeStatus nativeFunctionParamCount(void *function, int *count) {
    const NativeApi &d = nativeApi();
    if (!d.cuFuncGetParamInfo) {
        *count = -1;
        return CUDA_SUCCESS;
    }
    for (size_t i = 0; i < kMaxParams; ++i) {
        size_t offset = 0, size = 0;
        CUresult rc = d.cuFuncGetParamInfo(functionOf(function), i, &offset, &size);
        if (rc == CUDA_ERROR_INVALID_VALUE) {
            *count = static_cast<int>(i);
            return CUDA_SUCCESS;
        }
        if (rc != CUDA_SUCCESS) {
            return rc;
        }
    }
    *count = -1;
    return CUDA_SUCCESS;
}

NativeStatus nativeDeviceGetAttribute(int *value, int attr, int device) {
    return nativeApi().cuDeviceGetAttribute(value, static_cast<CUdevice_attribute>(attr), nativeDevice(device));
}

namespace {

/* sm_90a / sm_100f: architecture-specific variants of sm_90 / sm_100. */
std::string withoutVariant(const std::string &arch) {
    if (arch.size() > 3 && (arch.back() == 'a' || arch.back() == 'f') && arch.compare(0, 3, "sm_") == 0) {
        return arch.substr(0, arch.size() - 1);
    }
    return arch;
}

/* "compute_80" or "sm_80" -> 80; -1 otherwise. */
int smNumber(const std::string &arch) {
    const std::string a = withoutVariant(arch);
    const size_t p = a.compare(0, 8, "compute_") == 0 ? 8 : a.compare(0, 3, "sm_") == 0 ? 3 : 0;
    if (p == 0 || p == a.size() || a.size() - p > 4) {
        return -1;
    }
    int n = 0;
    for (size_t i = p; i < a.size(); ++i) {
        if (a[i] < '0' || a[i] > '9') {
            return -1;
        }
        n = n * 10 + (a[i] - '0');
    }
    return n;
}

} // namespace

/* An exact-architecture cubin, then a fatbin, then a cubin built for "any" (nothing says it was
 * built for this device), then PTX (the newest the device can run first); a cubin of another
 * architecture, or PTX newer than the device, never loads. */
infiniStatus_t moduleRankImage(int device, infinirtModuleFormat_t format, const char *arch_text, int *rank, char *why,
                               size_t why_size) {
    infinirtDeviceProperties_t p;
    const infiniStatus_t st = common::deviceProperties(getDeviceProperties, device, p);
    if (st != INFINI_STATUS_SUCCESS) {
        return st;
    }
    const std::string arch = arch_text;
    const std::string device_arch = p.architecture;
    const bool any = common::imageForAnyDevice(arch_text);
    if (format == INFINIRT_MODULE_FORMAT_CUBIN) {
        if (any) {
            return common::imageFits(rank, 2999);
        }
        if (withoutVariant(arch) == device_arch) {
            return common::imageFits(rank, 4000);
        }
        return common::imageUnfit(rank, why, why_size,
                                  "a cubin for %s; the device is %s (a cubin loads only on its own architecture)",
                                  arch_text, device_arch.c_str());
    }
    if (format == INFINIRT_MODULE_FORMAT_FATBIN) {
        return any || withoutVariant(arch) == device_arch
                   ? common::imageFits(rank, 3000)
                   : common::imageUnfit(rank, why, why_size, "a fatbin for %s; the device is %s", arch_text,
                                        device_arch.c_str());
    }
    if (format == INFINIRT_MODULE_FORMAT_PTX) {
        if (any) {
            return common::imageFits(rank, 2000);
        }
        const int n = smNumber(arch);
        if (n < 0) {
            return common::imageUnfit(rank, why, why_size, "PTX for \"%s\", which is no compute_XY or sm_XY", arch_text);
        }
        const int cc = p.compute_capability_major * 10 + p.compute_capability_minor;
        if (n > cc) {
            return common::imageUnfit(rank, why, why_size,
                                      "PTX for %s needs compute capability %d.%d; the device has %d.%d", arch_text,
                                      n / 10, n % 10, cc / 10, cc % 10);
        }
        return common::imageFits(rank, 2000 + n);
    }
    return common::imageUnfit(rank, why, why_size, "the cuda backend loads PTX, CUBIN and FATBIN, not %s",
                              common::moduleFormatName(format));
}

} // namespace infinirt::cuda
