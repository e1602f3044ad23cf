/* See kernel_enums.h: out-of-range enum values passed the way a C caller passes them. */
#include "kernel_enums.h"

#include <string.h>

infiniStatus_t oorModuleLoadFormat(infinirtModule_t *module, infiniDevice_t device, int device_id, const void *data,
                                   size_t size, int format) {
    infinirtModuleImage_t image;
    memset(&image, 0, sizeof image);
    image.struct_size = sizeof image;
    image.format = (infinirtModuleFormat_t)format;
    image.data = data;
    image.size = size;
    return infinirtModuleLoad(module, device, device_id, &image, 1, NULL, 0);
}

infiniStatus_t oorKernelGetAttribute(int64_t *value, int attr, infinirtKernel_t kernel) {
    return infinirtKernelGetAttribute(value, (infinirtKernelAttribute_t)attr, kernel);
}

infiniStatus_t oorKernelSetAttribute(infinirtKernel_t kernel, int attr, int64_t value) {
    return infinirtKernelSetAttribute(kernel, (infinirtKernelAttribute_t)attr, value);
}

infiniStatus_t oorLaunchKernelArgKind(infinirtKernel_t kernel, const infinirtLaunchConfig_t *config,
                                      const infinirtKernelArg_t *args, uint32_t num_args, uint32_t index, int kind,
                                      infinirtStream_t stream) {
    infinirtKernelArg_t copy[16];
    if (num_args > 16 || index >= num_args) {
        return INFINI_STATUS_INTERNAL_ERROR;
    }
    memcpy(copy, args, num_args * sizeof *args);
    copy[index].kind = (infinirtKernelArgKind_t)kind;
    return infinirtLaunchKernel(kernel, config, copy, num_args, stream);
}
