// Modules: host shared objects loaded from memory, their kernels and globals, kernel attributes
// (see cpu_module.h).
#include "cpu_backend.h"
#include "cpu_module.h"

#include "common/host_services.hpp"
#include "common/module_rank.hpp"
#include "common/text.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U // Linux 6.3: executable memfd where vm.memfd_noexec would refuse it
#endif

namespace infinirt::cpu {

namespace {

// ---- the ELF dynamic symbol table of an image ------------------------------------------------
// Read from the bytes the caller gave (the loaded object's own tables are not reachable through a
// public interface). Every offset is bounds-checked: the image may be anything.

struct SymbolTable {
    bool readable = false;
    std::unordered_map<std::string, ExportedSymbol> symbols;
    std::vector<std::string> function_names; // sorted
};

// True if [offset, offset + length) lies within `size` bytes.
bool within(size_t size, uint64_t offset, uint64_t length) noexcept {
    return offset <= size && length <= size - offset;
}

SymbolTable readSymbolTable(const unsigned char *data, size_t size) {
    using Ehdr = ElfW(Ehdr);
    using Shdr = ElfW(Shdr);
    using Sym = ElfW(Sym);
    SymbolTable table;
    Ehdr header;
    if (size < sizeof header || std::memcmp(data, ELFMAG, SELFMAG) != 0) {
        return table;
    }
    std::memcpy(&header, data, sizeof header);
    const bool native_class = header.e_ident[EI_CLASS] == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32);
    if (!native_class || header.e_shoff == 0 || header.e_shentsize != sizeof(Shdr)) {
        return table;
    }
    auto section = [&](uint64_t index, Shdr *out) {
        if (header.e_shoff > size || index > (size - header.e_shoff) / sizeof(Shdr)) {
            return false;
        }
        const uint64_t offset = header.e_shoff + index * sizeof(Shdr);
        if (!within(size, offset, sizeof(Shdr))) {
            return false;
        }
        std::memcpy(out, data + offset, sizeof(Shdr));
        return true;
    };
    uint64_t count = header.e_shnum;
    Shdr first;
    if (count == 0 && section(0, &first)) {
        count = first.sh_size; // more than SHN_LORESERVE sections
    }
    for (uint64_t i = 0; i < count; ++i) {
        Shdr dynsym;
        Shdr strtab;
        if (!section(i, &dynsym)) {
            return table;
        }
        if (dynsym.sh_type != SHT_DYNSYM) {
            continue;
        }
        if (!section(dynsym.sh_link, &strtab) || !within(size, dynsym.sh_offset, dynsym.sh_size) ||
            !within(size, strtab.sh_offset, strtab.sh_size)) {
            return table;
        }
        const char *strings = reinterpret_cast<const char *>(data + strtab.sh_offset);
        for (uint64_t offset = 0; offset + sizeof(Sym) <= dynsym.sh_size; offset += sizeof(Sym)) {
            Sym sym;
            std::memcpy(&sym, data + dynsym.sh_offset + offset, sizeof sym);
            const unsigned bind = ELF64_ST_BIND(sym.st_info);
            const unsigned type = ELF64_ST_TYPE(sym.st_info);
            const bool exported = bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_GNU_UNIQUE;
            const bool function = type == STT_FUNC || type == STT_GNU_IFUNC;
            const bool object = type == STT_OBJECT || type == STT_COMMON;
            if (sym.st_shndx == SHN_UNDEF || !exported || (!function && !object) || sym.st_name >= strtab.sh_size) {
                continue;
            }
            const char *name = strings + sym.st_name;
            const size_t length = strnlen(name, strtab.sh_size - sym.st_name);
            if (length == 0 || length == strtab.sh_size - sym.st_name) {
                continue; // empty, or not terminated inside the table
            }
            std::string key(name, length);
            if (function && key[0] != '_') { // _init, _fini and other reserved names are not listed
                table.function_names.push_back(key);
            }
            table.symbols[std::move(key)] = ExportedSymbol{function, static_cast<size_t>(sym.st_size)};
        }
        std::sort(table.function_names.begin(), table.function_names.end());
        table.readable = true;
        return table;
    }
    return table;
}

// Why the image cannot be handed to dlopen, or "" if its ELF and program headers are sound: a
// shared object of this host's class, byte order and machine whose loadable segments lie within
// the image. dlopen maps segments as the headers say, so a truncated image would otherwise fault
// (SIGBUS) when the dynamic loader reads past its end. (An object crafted to pass these checks can
// still crash the process: loading it runs its code.)
std::string loadability(const unsigned char *data, size_t size) {
    using Ehdr = ElfW(Ehdr);
    using Phdr = ElfW(Phdr);
    Ehdr header;
    if (size < sizeof header || std::memcmp(data, ELFMAG, SELFMAG) != 0) {
        return "not an ELF object (no ELF magic number at its start)";
    }
    std::memcpy(&header, data, sizeof header);
    if (header.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)) {
        return sizeof(void *) == 8 ? "not a 64-bit ELF object" : "not a 32-bit ELF object";
    }
    const bool little = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
    if (header.e_ident[EI_DATA] != (little ? ELFDATA2LSB : ELFDATA2MSB)) {
        return "an ELF object of the other byte order";
    }
#if defined(__x86_64__)
    constexpr unsigned kMachine = EM_X86_64;
#elif defined(__aarch64__)
    constexpr unsigned kMachine = EM_AARCH64;
#elif defined(__i386__)
    constexpr unsigned kMachine = EM_386;
#else
    constexpr unsigned kMachine = 0; // not checked here; dlopen checks
#endif
    if (kMachine != 0 && header.e_machine != kMachine) {
        return "an ELF object for machine " + std::to_string(header.e_machine) + ", not this host's (" +
               std::to_string(kMachine) + ")";
    }
    if (header.e_type != ET_DYN) {
        return "an ELF object of type " + std::to_string(header.e_type) + ", not a shared object (ET_DYN)";
    }
    if (header.e_phentsize != sizeof(Phdr) || header.e_phnum == 0 ||
        !within(size, header.e_phoff, uint64_t{header.e_phnum} * sizeof(Phdr))) {
        return "its program headers are missing or lie outside the image's " + std::to_string(size) + " bytes";
    }
    for (unsigned i = 0; i < header.e_phnum; ++i) {
        Phdr segment;
        std::memcpy(&segment, data + header.e_phoff + i * sizeof(Phdr), sizeof segment);
        if ((segment.p_type == PT_LOAD || segment.p_type == PT_DYNAMIC) &&
            !within(size, segment.p_offset, segment.p_filesz)) {
            return "segment " + std::to_string(i) + " (bytes " + std::to_string(segment.p_offset) + " to " +
                   std::to_string(uint64_t{segment.p_offset} + segment.p_filesz) + ") lies outside the image's " +
                   std::to_string(size) + " bytes (truncated?)";
        }
    }
    return std::string();
}

// ", it exports N functions: a, b, c, ..." for SYMBOL_NOT_FOUND messages (at most 8 names).
std::string exportList(const Module &module) {
    if (!module.symbols_readable) {
        return std::string(" (the image has no section headers to list its exports from)");
    }
    const std::vector<std::string> &names = module.function_names;
    if (names.empty()) {
        return std::string("; it exports no functions");
    }
    std::string text = "; it exports " + std::to_string(names.size()) + (names.size() == 1 ? " function: " : " functions: ");
    constexpr size_t kListed = 8;
    for (size_t i = 0; i < names.size() && i < kListed; ++i) {
        text += (i == 0 ? "" : ", ") + names[i];
    }
    if (names.size() > kListed) {
        text += ", ...";
    }
    return text;
}

// ---- loading ---------------------------------------------------------------------------------

// A failed system call while staging the image: OUT_OF_MEMORY when memory or space ran out,
// INTERNAL_ERROR otherwise.
infiniStatus_t stagingFailure(const char *call, int err, size_t size) noexcept {
    const infiniStatus_t status =
        err == ENOMEM || err == ENOSPC || err == EFBIG || err == EDQUOT ? INFINI_STATUS_OUT_OF_MEMORY
                                                                        : INFINI_STATUS_INTERNAL_ERROR;
    return common::fail(status, "module_load: cannot stage the %s image for dlopen: %s failed: %s (%d)",
                        sizeText(size).c_str(), call, std::strerror(err), err);
}

// Writes all of `data` to `fd`; 0 or the errno.
int writeAll(int fd, const unsigned char *data, size_t size) noexcept {
    while (size > 0) {
        const ssize_t written = ::write(fd, data, size);
        if (written < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno;
        }
        data += written;
        size -= static_cast<size_t>(written);
    }
    return 0;
}

// Where the image was put for dlopen.
struct Staged {
    int fd = -1;      // kept open while the object is loaded (memfd), or -1
    std::string path; // what dlopen is given
    bool unlink = false;
};

// The image in a memfd ("/proc/self/fd/N"), or, where memfd_create is refused, in a private
// temporary file. The memfd stays open while the object is loaded: glibc recognises an object
// already loaded by its path name, so the number N must not be reused for another image meanwhile.
infiniStatus_t stage(const unsigned char *data, size_t size, Staged *out) {
    int fd = memfd_create("infinirt-cpu-module", MFD_CLOEXEC | MFD_EXEC);
    if (fd < 0 && errno == EINVAL) {
        fd = memfd_create("infinirt-cpu-module", MFD_CLOEXEC);
    }
    if (fd >= 0) {
        if (int err = writeAll(fd, data, size)) {
            ::close(fd);
            return stagingFailure("write to a memfd", err, size);
        }
        out->fd = fd;
        out->path = "/proc/self/fd/" + std::to_string(fd);
        return INFINI_STATUS_SUCCESS;
    }
    const char *dir = std::getenv("TMPDIR");
    std::string path = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/infinirt-cpu-module-XXXXXX";
    fd = mkostemp(&path[0], O_CLOEXEC);
    if (fd < 0) {
        return stagingFailure("mkostemp (memfd_create was refused too)", errno, size);
    }
    int err = writeAll(fd, data, size);
    ::close(fd);
    if (err != 0) {
        ::unlink(path.c_str());
        return stagingFailure("write to a temporary file", err, size);
    }
    out->path = std::move(path);
    out->unlink = true;
    return INFINI_STATUS_SUCCESS;
}

bool blank(const char *text) noexcept {
    for (; text != nullptr && *text != '\0'; ++text) {
        if (*text != ' ' && *text != '\t' && *text != '\n' && *text != '\r') {
            return false;
        }
    }
    return true;
}

} // namespace

// ---- Module ------------------------------------------------------------------------------------

Module::~Module() {
    dlclose(library_);
    if (fd_ < 0) {
        return;
    }
    // An object can outlive dlclose (it is still a dependency of another one, or marked NODELETE,
    // e.g. for STB_GNU_UNIQUE symbols). Then its path stays known to the dynamic loader, and a later
    // image staged under the same fd number would be taken for it: the fd is kept (leaked) instead.
    if (void *still = dlopen(path_.c_str(), RTLD_LAZY | RTLD_NOLOAD)) {
        dlclose(still);
        return;
    }
    ::close(fd_);
}

Module *Module::adopt(std::shared_ptr<Module> module) noexcept {
    Module *raw = module.get();
    raw->owner_ = std::move(module);
    return raw;
}

void Module::destroyHandle() noexcept {
    // Moved out first: dropping the last reference destroys *this, owner_ included.
    std::shared_ptr<Module> owner = std::move(owner_);
}

Kernel *Module::kernel(const std::string &name, infinirtCpuKernel_t function) {
    std::lock_guard<std::mutex> lock(kernels_mutex_);
    std::unique_ptr<Kernel> &slot = kernels_[name];
    if (slot == nullptr) {
        auto created = std::make_unique<Kernel>();
        created->module = this;
        created->function = function;
        created->name = name;
        slot = std::move(created);
    }
    return slot.get();
}

// ---- entries -----------------------------------------------------------------------------

infiniStatus_t moduleLoad(int device, const infinirtModuleImage_t *images, size_t count, char *log, size_t log_size,
                          void **module) {
    common::copyString(log, log_size, "");
    if (count != 1) {
        return common::fail(INFINI_STATUS_BAD_PARAM,
                            "module_load: %zu images given; the cpu backend loads one HOST_SO image per module "
                            "(linking several is not supported)",
                            count);
    }
    const infinirtModuleImage_t &image = images[0];
    if (image.format != INFINIRT_MODULE_FORMAT_HOST_SO) {
        return common::fail(INFINI_STATUS_BAD_PARAM,
                            "module_load: format %s (%d) is not loaded by the cpu backend; it loads "
                            "HOST_SO (%d, a host ELF shared object) only",
                            common::moduleFormatName(image.format), static_cast<int>(image.format),
                            static_cast<int>(INFINIRT_MODULE_FORMAT_HOST_SO));
    }
    if (!blank(image.options)) {
        return common::fail(INFINI_STATUS_BAD_PARAM,
                            "module_load: options \"%.200s\" given; the cpu backend takes no build options "
                            "(the object is already built: pass NULL or \"\")",
                            image.options);
    }
    const auto *bytes = static_cast<const unsigned char *>(image.data);
    if (const std::string why = loadability(bytes, image.size); !why.empty()) {
        common::copyString(log, log_size, why);
        return common::fail(INFINI_STATUS_BUILD_FAILED, "module_load: the %s HOST_SO image cannot be loaded: %s",
                            sizeText(image.size).c_str(), why.c_str());
    }
    SymbolTable table = readSymbolTable(bytes, image.size);
    Staged staged;
    if (infiniStatus_t status = stage(bytes, image.size, &staged); status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    void *library = dlopen(staged.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    const char *error = library == nullptr ? dlerror() : nullptr;
    if (staged.unlink) {
        ::unlink(staged.path.c_str());
    }
    if (library == nullptr) {
        if (staged.fd >= 0) {
            ::close(staged.fd);
        }
        const char *why = error != nullptr ? error : "no reason given";
        common::copyString(log, log_size, why);
        common::logMessage(INFINIRT_LOG_ERROR, "module_load: cpu:%d: dlopen of a %s HOST_SO image failed: %s", device,
                           sizeText(image.size).c_str(), why);
        return common::fail(INFINI_STATUS_BUILD_FAILED, "module_load: dlopen of the %s HOST_SO image failed: %s",
                            sizeText(image.size).c_str(), why);
    }
    std::shared_ptr<Module> created;
    try {
        created = std::make_shared<Module>(device, library, staged.fd, std::move(staged.path));
    } catch (...) {
        dlclose(library);
        if (staged.fd >= 0) {
            ::close(staged.fd);
        }
        throw;
    }
    created->symbols = std::move(table.symbols);
    created->function_names = std::move(table.function_names);
    created->symbols_readable = table.readable;
    *module = Module::adopt(std::move(created));
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t moduleUnload(int, void *module) {
    static_cast<Module *>(module)->destroyHandle();
    return INFINI_STATUS_SUCCESS;
}

namespace {

// The address of the exported symbol `name` of the wanted kind, or nullptr after setting
// SYMBOL_NOT_FOUND's detail. *size gets the symbol's st_size (0 when unknown).
void *findSymbol(const char *entry, Module &module, const char *name, bool function, size_t *size) {
    const char *wanted = function ? "function" : "data object";
    if (module.symbols_readable) {
        auto it = module.symbols.find(name);
        if (it == module.symbols.end()) {
            common::fail(INFINI_STATUS_SYMBOL_NOT_FOUND, "%s: the module exports no %s \"%s\"%s", entry, wanted, name,
                         exportList(module).c_str());
            return nullptr;
        }
        if (it->second.function != function) {
            common::fail(INFINI_STATUS_SYMBOL_NOT_FOUND, "%s: \"%s\" is a %s of the module, not a %s%s", entry, name,
                         function ? "data object" : "function", wanted, exportList(module).c_str());
            return nullptr;
        }
        *size = it->second.size;
    } else {
        *size = 0;
    }
    dlerror();
    void *address = dlsym(module.library(), name);
    if (address == nullptr) {
        const char *error = dlerror();
        common::fail(INFINI_STATUS_SYMBOL_NOT_FOUND, "%s: dlsym found no %s \"%s\": %s%s", entry, wanted, name,
                     error != nullptr ? error : "NULL address", exportList(module).c_str());
    }
    return address;
}

} // namespace

infiniStatus_t moduleGetKernel(int, void *module, const char *name, void **kernel) {
    Module &owner = *static_cast<Module *>(module);
    size_t size = 0;
    void *address = findSymbol("module_get_kernel", owner, name, true, &size);
    if (address == nullptr) {
        return INFINI_STATUS_SYMBOL_NOT_FOUND;
    }
    infinirtCpuKernel_t function;
    static_assert(sizeof function == sizeof address, "function and data pointers differ in size");
    std::memcpy(&function, &address, sizeof function);
    *kernel = owner.kernel(name, function);
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t moduleGetGlobal(int, void *module, const char *name, void **ptr, size_t *size) {
    size_t found_size = 0;
    void *address = findSymbol("module_get_global", *static_cast<Module *>(module), name, false, &found_size);
    if (address == nullptr) {
        return INFINI_STATUS_SYMBOL_NOT_FOUND;
    }
    *ptr = address;
    if (size != nullptr) {
        *size = found_size;
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t kernelGetAttribute(int, void *kernel, infinirtKernelAttribute_t attr, int64_t *value) {
    const Kernel &k = *static_cast<const Kernel *>(kernel);
    int64_t answer = 0;
    switch (attr) {
    case INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK:
        answer = config().max_threads_per_block;
        break;
    case INFINIRT_KERNEL_ATTR_STATIC_SHARED_BYTES:
    case INFINIRT_KERNEL_ATTR_PRIVATE_BYTES_PER_THREAD:
        answer = 0;
        break;
    case INFINIRT_KERNEL_ATTR_NUM_REGISTERS:
    case INFINIRT_KERNEL_ATTR_NUM_PARAMS:
        answer = -1; // a C function's parameters are not recorded in the object
        break;
    case INFINIRT_KERNEL_ATTR_PREFERRED_BLOCK_MULTIPLE:
        answer = config().simd_lanes;
        break;
    case INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES:
        answer = static_cast<int64_t>(k.max_dynamic_shared.load(std::memory_order_relaxed));
        break;
    default:
        return common::fail(INFINI_STATUS_BAD_PARAM, "kernel_get_attribute: unknown attribute %d",
                            static_cast<int>(attr));
    }
    *value = answer;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t kernelSetAttribute(int device, void *kernel, infinirtKernelAttribute_t attr, int64_t value) {
    Kernel &k = *static_cast<Kernel *>(kernel);
    if (attr != INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES) {
        return common::fail(INFINI_STATUS_BAD_PARAM,
                            "kernel_set_attribute: attribute %d is not settable (only MAX_DYNAMIC_SHARED_BYTES is)",
                            static_cast<int>(attr));
    }
    if (value < 0 || static_cast<uint64_t>(value) > kMaxDynamicShared) {
        return common::fail(INFINI_STATUS_BAD_PARAM,
                            "kernel_set_attribute: MAX_DYNAMIC_SHARED_BYTES of kernel %s = %lld is over cpu:%d's "
                            "limit of %s",
                            k.name.c_str(), static_cast<long long>(value), device, sizeText(kMaxDynamicShared).c_str());
    }
    k.max_dynamic_shared.store(static_cast<size_t>(value), std::memory_order_relaxed);
    return INFINI_STATUS_SUCCESS;
}

// A HOST_SO image built for "any" host or for this host's machine (uname -m) loads; nothing else.
infiniStatus_t moduleRankImage(int, infinirtModuleFormat_t format, const char *arch, int *rank, char *why,
                               size_t why_size) {
    if (format != INFINIRT_MODULE_FORMAT_HOST_SO) {
        return common::imageUnfit(rank, why, why_size, "the cpu backend loads HOST_SO, not %s",
                                  common::moduleFormatName(format));
    }
    const std::string &host = config().architecture;
    if (common::imageForAnyDevice(arch) || host == arch) {
        return common::imageFits(rank, 1);
    }
    return common::imageUnfit(rank, why, why_size, "a shared object for %s; the host is %s", arch,
                              host.empty() ? "unknown" : host.c_str());
}

} // namespace infinirt::cpu
