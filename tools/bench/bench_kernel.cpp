// bench_kernel.cpp - loads the empty kernel (the anchor's image or the tool's module file).
#include "bench_kernel.h"

#include "bench_share.h"

namespace infinirt_bench_tool {

infinirtKernel_t emptyKernel(const Anchor &anchor, infiniDevice_t type, int id, std::string *why) {
    infinirtModule_t module = nullptr;
    char log[4096] = "";
    infiniStatus_t st;
    std::string source;
    if (!anchor.image.empty()) {
        infinirtModuleImage_t image{};
        image.struct_size = sizeof image;
        image.format = anchor.image_format;
        image.data = anchor.image.data();
        image.size = anchor.image.size();
        image.options = anchor.image_options.empty() ? nullptr : anchor.image_options.c_str();
        st = infinirtModuleLoad(&module, type, id, &image, 1, log, sizeof log);
        source = "the anchor's image";
    } else {
        source = shareFile("infinirt-bench.irtm");
        st = infinirtModuleLoadFile(&module, type, id, source.c_str(), nullptr, log, sizeof log);
    }
    if (st != INFINI_STATUS_SUCCESS) {
        *why = "loading the empty kernel from " + source + " failed: " + infinirtGetErrorName(st) + ": " +
               infinirtGetLastErrorMessage();
        return nullptr;
    }
    infinirtKernel_t kernel = nullptr;
    if ((st = infinirtModuleGetKernel(&kernel, module, "empty")) != INFINI_STATUS_SUCCESS) {
        *why = std::string("infinirtModuleGetKernel(empty): ") + infinirtGetLastErrorMessage();
        return nullptr;
    }
    return kernel;
}

} // namespace infinirt_bench_tool
