// infinicore::Module: device code loaded onto one device (RAII over infinirtModuleLoad).
//
// Ownership: owns its module; unloaded (whatever device is current) with the object, which also
// invalidates the Kernels taken from it. Move-only. Thread safety: kernel() and global() may be
// called from many threads at once. Failures throw infinicore::Error; a build failure's Error
// carries the build log after the C ABI's message.
#ifndef INFINICORE_MODULE_HPP
#define INFINICORE_MODULE_HPP

#include "../infinirt.h"
#include "device.hpp"
#include "kernel.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace infinicore {

class __export Module {
public:
    // One image; `format` AUTO sniffs it (infinirtModuleLoad). `options` "" for none.
    Module(Device device, const void *data, std::size_t size,
           infinirtModuleFormat_t format = INFINIRT_MODULE_FORMAT_AUTO, const std::string &options = "");
    // Several images linked into one module (each with struct_size set).
    Module(Device device, const std::vector<infinirtModuleImage_t> &images);
    ~Module();

    Module(const Module &) = delete;
    Module &operator=(const Module &) = delete;
    // The moved-from module holds nothing: using it throws, destroying it does nothing.
    Module(Module &&other) noexcept;
    Module &operator=(Module &&other) noexcept;

    // The kernel `name` (SYMBOL_NOT_FOUND throws). Valid while this module lives.
    Kernel kernel(const std::string &name) const;
    // A module-scope variable: its device address and size in bytes.
    struct Global {
        void *ptr;
        std::size_t size;
    };
    Global global(const std::string &name) const;

    // The build/JIT log of the load ("" when the backend gave none).
    const std::string &log() const { return log_; }
    Device device() const { return device_; }
    infinirtModule_t get() const { return module_; }

private:
    void load(const infinirtModuleImage_t *images, std::size_t count);
    void release() noexcept;

    infinirtModule_t module_ = nullptr;
    Device device_;
    std::string log_;
};

} // namespace infinicore

#endif // INFINICORE_MODULE_HPP
