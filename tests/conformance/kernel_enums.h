// Kernel calls that pass values outside an enum's enumerators (module formats, attributes,
// argument kinds), converted in C as out_of_range_enums.h explains: in C++ the conversion is
// undefined, in C it is what a C caller does.
#ifndef INFINIRT_TESTS_KERNEL_ENUMS_H
#define INFINIRT_TESTS_KERNEL_ENUMS_H

#include <infinirt.h>

#ifdef __cplusplus
extern "C" {
#endif

/* infinirtModuleLoad of one image whose format field holds `format`. */
infiniStatus_t oorModuleLoadFormat(infinirtModule_t *module, infiniDevice_t device, int device_id, const void *data,
                                   size_t size, int format);
infiniStatus_t oorKernelGetAttribute(int64_t *value, int attr, infinirtKernel_t kernel);
infiniStatus_t oorKernelSetAttribute(infinirtKernel_t kernel, int attr, int64_t value);
/* infinirtLaunchKernel with args[index].kind replaced by `kind` (num_args <= 16). */
infiniStatus_t oorLaunchKernelArgKind(infinirtKernel_t kernel, const infinirtLaunchConfig_t *config,
                                      const infinirtKernelArg_t *args, uint32_t num_args, uint32_t index, int kind,
                                      infinirtStream_t stream);

#ifdef __cplusplus
}
#endif

#endif // INFINIRT_TESTS_KERNEL_ENUMS_H
