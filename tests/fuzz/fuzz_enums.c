/* The fuzz target's calls with enum arguments that may be out of range: in C an enum type is an
 * integer type, so the conversion is what a C caller makes (in C++ it would be undefined and
 * trip -fsanitize=enum). */
#include <infinirt.h>

infiniStatus_t fzSetDevice(int type, int id) { return infinirtSetDevice((infiniDevice_t)type, id); }

infiniStatus_t fzGetDeviceProperties(int type, int id, infinirtDeviceProperties_t *p) {
    return infinirtGetDeviceProperties((infiniDevice_t)type, id, p);
}

infiniStatus_t fzGetMemInfo(int type, int id, size_t *free_bytes, size_t *total) {
    return infinirtGetMemInfo((infiniDevice_t)type, id, free_bytes, total);
}

infiniStatus_t fzModuleLoad(infinirtModule_t *module, int type, int id, const infinirtModuleImage_t *images) {
    return infinirtModuleLoad(module, (infiniDevice_t)type, id, images, 1, 0, 0);
}

infiniStatus_t fzMemcpy(void *dst, const void *src, size_t size, int kind) {
    return infinirtMemcpy(dst, src, size, (infinirtMemcpyKind_t)kind);
}

infiniStatus_t fzMemcpyAsync(void *dst, const void *src, size_t size, int kind, infinirtStream_t stream) {
    return infinirtMemcpyAsync(dst, src, size, (infinirtMemcpyKind_t)kind, stream);
}

infiniStatus_t fzStreamBeginCapture(infinirtStream_t stream, int mode) {
    return infinirtStreamBeginCapture(stream, (infinirtStreamCaptureMode_t)mode);
}

void fzSetArgKind(infinirtKernelArg_t *arg, int kind) { arg->kind = (infinirtKernelArgKind_t)kind; }
