// A cpu module (cpu_module.cpp) and its kernels. A module is a host shared object (format
// HOST_SO) loaded from memory: the image is written to a memfd (or, without memfd, a private
// temporary file, unlinked once loaded) and dlopen'ed with RTLD_NOW | RTLD_LOCAL. Its kernels are
// exported functions of type infinirtCpuKernel_t, its globals exported data objects. What the
// object exports is read from the image's ELF dynamic symbol table, so that a name is only found
// if the object itself defines it (dlsym would also search its dependencies) and of the right
// kind, and so that a miss can list names that exist.
#ifndef INFINIRT_CPU_MODULE_H
#define INFINIRT_CPU_MODULE_H

#include "infinirt_cpu_kernel.h"

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace infinirt::cpu {

class Module;

// MAX_DYNAMIC_SHARED_BYTES of a kernel until kernel_set_attribute raises it, and the most it can
// be raised to (the per-worker scratch is host memory; this bounds what one launch reserves on
// every worker).
constexpr size_t kDefaultDynamicShared = 48 * 1024;
constexpr size_t kMaxDynamicShared = 1024 * 1024;

// An entry point of a module. Owned by its module; its address is the plugin's kernel object.
struct Kernel {
    Module *module = nullptr;
    infinirtCpuKernel_t function = nullptr;
    std::string name;
    std::atomic<size_t> max_dynamic_shared{kDefaultDynamicShared};
};

// What the image's ELF dynamic symbol table says about one defined, exported symbol.
struct ExportedSymbol {
    bool function = false; // STT_FUNC / STT_GNU_IFUNC; else a data object (STT_OBJECT / STT_COMMON)
    size_t size = 0;       // st_size
};

// Thread-safe. Owned through shared_ptr: by its handle (released by module_unload) and by every
// launch still queued from it; the object is dlclose'd when the last reference goes.
class Module : public std::enable_shared_from_this<Module> {
public:
    Module(int device, void *library, int fd, std::string path)
        : device_(device), library_(library), fd_(fd), path_(std::move(path)) {}
    Module(const Module &) = delete;
    Module &operator=(const Module &) = delete;
    // dlclose; then closes the memfd unless the object is still mapped (see cpu_module.cpp).
    ~Module();

    int device() const noexcept { return device_; }
    void *library() const noexcept { return library_; }

    // Makes `module`'s handle reference; release it with destroyHandle().
    static Module *adopt(std::shared_ptr<Module> module) noexcept;
    // Drops the handle's reference; the object lives on while launches from it are queued.
    void destroyHandle() noexcept;

    // Filled once by module_load, read-only afterwards. symbols_readable is false when the image
    // has no section headers (then any name dlsym finds is accepted).
    std::unordered_map<std::string, ExportedSymbol> symbols;
    std::vector<std::string> function_names; // sorted, for SYMBOL_NOT_FOUND messages
    bool symbols_readable = false;

    // The kernel for `name`, one per name. Throws std::bad_alloc.
    Kernel *kernel(const std::string &name, infinirtCpuKernel_t function);

private:
    const int device_;
    void *const library_;
    const int fd_;           // the memfd the object was loaded from, or -1
    const std::string path_; // the path dlopen was given
    std::shared_ptr<Module> owner_;
    std::mutex kernels_mutex_;
    std::unordered_map<std::string, std::unique_ptr<Kernel>> kernels_;
};

} // namespace infinirt::cpu

#endif // INFINIRT_CPU_MODULE_H
