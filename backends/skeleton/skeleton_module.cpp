// skeleton_module.cpp - loading device code: the entries a vendor fills with its module API
// (contracts in skeleton_backend.h). Until then each answers NOT_IMPLEMENTED, naming itself.
#include "skeleton_backend.h"

namespace infinirt::skeleton {

infiniStatus_t moduleLoad(int, const infinirtModuleImage_t *, size_t, char *, size_t, void **) {
    return notImplemented("module_load");
}

infiniStatus_t moduleUnload(int, void *) { return notImplemented("module_unload"); }

infiniStatus_t moduleGetKernel(int, void *, const char *, void **) { return notImplemented("module_get_kernel"); }

infiniStatus_t moduleGetGlobal(int, void *, const char *, void **, size_t *) {
    return notImplemented("module_get_global");
}

infiniStatus_t kernelGetAttribute(int, void *, infinirtKernelAttribute_t, int64_t *) {
    return notImplemented("kernel_get_attribute");
}

infiniStatus_t kernelSetAttribute(int, void *, infinirtKernelAttribute_t, int64_t) {
    return notImplemented("kernel_set_attribute");
}

} // namespace infinirt::skeleton
