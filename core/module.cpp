#include "infinicore/module.hpp"

#include "check.hpp"
#include "infinicore/error.hpp"

#include <cstring>
#include <utility>

namespace infinicore {

namespace {
constexpr std::size_t kLogBytes = 64 * 1024;

void requireLoaded(infinirtModule_t module, const char *call) {
    if (module == nullptr) {
        throw Error(INFINI_STATUS_INVALID_HANDLE, call, "the Module was moved from");
    }
}
} // namespace

Module::Module(Device device, const void *data, std::size_t size, infinirtModuleFormat_t format,
               const std::string &options)
    : device_(device) {
    infinirtModuleImage_t image{};
    image.struct_size = sizeof image;
    image.format = format;
    image.data = data;
    image.size = size;
    image.options = options.empty() ? nullptr : options.c_str();
    load(&image, 1);
}

Module::Module(Device device, const std::vector<infinirtModuleImage_t> &images) : device_(device) {
    load(images.data(), images.size());
}

void Module::load(const infinirtModuleImage_t *images, std::size_t count) {
    std::string log(kLogBytes, '\0');
    const infiniStatus_t st = infinirtModuleLoad(&module_, device_.cType(), static_cast<int>(device_.getIndex()),
                                                 images, count, &log[0], log.size());
    log.resize(std::strlen(log.c_str()));
    if (st != INFINI_STATUS_SUCCESS) {
        std::string detail = infinirtGetLastErrorMessage();
        if (!log.empty()) {
            detail += "\nbuild log:\n" + log;
        }
        throw Error(st, "infinirtModuleLoad(" + device_.toString() + ")", detail);
    }
    log_ = std::move(log);
}

Module::~Module() { release(); }

void Module::release() noexcept {
    if (module_ != nullptr) {
        (void)infinirtModuleUnload(module_); // a failure has nowhere to go from a destructor
        module_ = nullptr;
    }
}

Module::Module(Module &&other) noexcept
    : module_(std::exchange(other.module_, nullptr)), device_(other.device_), log_(std::move(other.log_)) {}

Module &Module::operator=(Module &&other) noexcept {
    if (this != &other) {
        release();
        module_ = std::exchange(other.module_, nullptr);
        device_ = other.device_;
        log_ = std::move(other.log_);
    }
    return *this;
}

Kernel Module::kernel(const std::string &name) const {
    requireLoaded(module_, "Module::kernel");
    infinirtKernel_t k = nullptr;
    detail::check(infinirtModuleGetKernel(&k, module_, name.c_str()), "infinirtModuleGetKernel");
    return Kernel(k, device_);
}

Module::Global Module::global(const std::string &name) const {
    requireLoaded(module_, "Module::global");
    Global g{nullptr, 0};
    detail::check(infinirtModuleGetGlobal(&g.ptr, &g.size, module_, name.c_str()), "infinirtModuleGetGlobal");
    return g;
}

} // namespace infinicore
