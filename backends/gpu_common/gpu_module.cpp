/* gpu_module.cpp - modules and kernels after loading: unload, kernels and globals by name,
 * kernel attributes. Loading itself is the vendor's entry (VendorApi::module_load). */
#include "gpu_backend.h"

namespace infinirt::gpu {

namespace {

/* A native function attribute of `kernel`, over the bound context. */
infiniStatus_t functionAttribute(int device, void *kernel, int native_attr, const char *what, int *value) {
    int v = 0;
    if (NativeStatus rc = vendorTable().function_get_attribute.call(&v, native_attr, kernel)) {
        return nativeFailure(vendorTable().function_get_attribute.name, rc, "reading the %s of a kernel on %s:%d", what,
                             vendorTable().name, device);
    }
    *value = v;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t deviceAttribute(int device, int native_attr, const char *what, int *value) {
    int v = 0;
    if (NativeStatus rc = vendorTable().device_get_attribute.call(&v, native_attr, device)) {
        return nativeFailure(vendorTable().device_get_attribute.name, rc, "reading the %s of %s:%d", what, vendorTable().name, device);
    }
    *value = v;
    return INFINI_STATUS_SUCCESS;
}

/* The kernel's parameter count, or -1 when the vendor or its driver cannot tell (a failing
 * probe is logged, not an error: the loader then skips the argument-count check). */
int64_t paramCount(int device, void *kernel) {
    if (!vendorTable().function_param_count.call) {
        return -1;
    }
    int count = -1;
    if (NativeStatus rc = vendorTable().function_param_count.call(kernel, &count)) {
        common::logMessage(INFINIRT_LOG_INFO, "%s:%d: %s failed: %s (%d); the kernel's parameter count is unknown",
                           vendorTable().name, device, vendorTable().function_param_count.name, vendorTable().error_name(rc), rc);
        return -1;
    }
    return count;
}

} // namespace

/* The context frees the module's code at once: launches still queued that use it must have run
 * first, so the device is synchronized before (the loader defers unloads a live graph needs). */
infiniStatus_t moduleUnload(int device, void *module) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    if (NativeStatus rc = vendorTable().device_synchronize.call()) {
        return nativeFailure(vendorTable().device_synchronize.name, rc, "waiting for %s:%d before unloading a module",
                             vendorTable().name, device);
    }
    if (NativeStatus rc = vendorTable().module_unload.call(module)) {
        return nativeFailure(vendorTable().module_unload.name, rc, "unloading a module of %s:%d", vendorTable().name, device);
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t moduleGetKernel(int device, void *module, const char *name, void **kernel) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    void *function = nullptr;
    NativeStatus rc = vendorTable().module_get_function.call(&function, module, name);
    if (rc == vendorTable().not_found) {
        char names[256] = "";
        if (vendorTable().module_list_functions.call &&
            vendorTable().module_list_functions.call(module, names, sizeof names) == 0 && names[0] != '\0') {
            return common::fail(INFINI_STATUS_SYMBOL_NOT_FOUND, "no kernel '%s' in the module on %s:%d; it has %s",
                                name, vendorTable().name, device, names);
        }
        return common::fail(INFINI_STATUS_SYMBOL_NOT_FOUND, "no kernel '%s' in the module on %s:%d", name, vendorTable().name,
                            device);
    }
    if (rc) {
        return nativeFailure(vendorTable().module_get_function.name, rc, "looking up kernel '%s' on %s:%d", name, vendorTable().name,
                             device);
    }
    *kernel = function;
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t moduleGetGlobal(int device, void *module, const char *name, void **ptr, size_t *size) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    void *address = nullptr;
    size_t bytes = 0;
    NativeStatus rc = vendorTable().module_get_global.call(&address, &bytes, module, name);
    if (rc == vendorTable().not_found) {
        return common::fail(INFINI_STATUS_SYMBOL_NOT_FOUND, "no global '%s' in the module on %s:%d", name, vendorTable().name,
                            device);
    }
    if (rc) {
        return nativeFailure(vendorTable().module_get_global.name, rc, "looking up global '%s' on %s:%d", name, vendorTable().name,
                             device);
    }
    *ptr = address;
    if (size) {
        *size = bytes;
    }
    return INFINI_STATUS_SUCCESS;
}

infiniStatus_t kernelGetAttribute(int device, void *kernel, infinirtKernelAttribute_t attr, int64_t *value) {
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    const VendorApi &v = vendorTable();
    int native = 0;
    infiniStatus_t status = INFINI_STATUS_SUCCESS;
    switch (attr) {
    case INFINIRT_KERNEL_ATTR_MAX_THREADS_PER_BLOCK:
        status = functionAttribute(device, kernel, v.func_attr_max_threads_per_block, "max threads per block", &native);
        break;
    case INFINIRT_KERNEL_ATTR_STATIC_SHARED_BYTES:
        status = functionAttribute(device, kernel, v.func_attr_static_shared_bytes, "static shared memory", &native);
        break;
    case INFINIRT_KERNEL_ATTR_PRIVATE_BYTES_PER_THREAD:
        status = functionAttribute(device, kernel, v.func_attr_local_bytes_per_thread, "local memory per thread",
                                   &native);
        break;
    case INFINIRT_KERNEL_ATTR_NUM_REGISTERS:
        status = functionAttribute(device, kernel, v.func_attr_num_registers, "register count", &native);
        break;
    case INFINIRT_KERNEL_ATTR_PREFERRED_BLOCK_MULTIPLE:
        status = deviceAttribute(device, v.device_attr_warp_size, "warp size", &native);
        break;
    case INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES:
        status = functionAttribute(device, kernel, v.func_attr_max_dynamic_shared, "dynamic shared memory limit",
                                   &native);
        break;
    case INFINIRT_KERNEL_ATTR_NUM_PARAMS:
        *value = paramCount(device, kernel);
        return INFINI_STATUS_SUCCESS;
    default:
        return common::fail(INFINI_STATUS_BAD_PARAM, "kernel attribute %d is not one %s knows",
                            static_cast<int>(attr), v.name);
    }
    if (status != INFINI_STATUS_SUCCESS) {
        return status;
    }
    *value = native;
    return INFINI_STATUS_SUCCESS;
}

/* The dynamic shared memory a kernel may use is at most the device's opt-in limit per block
 * less the kernel's static shared memory (cuFuncSetAttribute's rule). */
infiniStatus_t kernelSetAttribute(int device, void *kernel, infinirtKernelAttribute_t attr, int64_t value) {
    if (attr != INFINIRT_KERNEL_ATTR_MAX_DYNAMIC_SHARED_BYTES) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "kernel attribute %d is not settable; only "
                            "MAX_DYNAMIC_SHARED_BYTES is", static_cast<int>(attr));
    }
    if (value < 0) {
        return common::fail(INFINI_STATUS_BAD_PARAM, "a dynamic shared memory limit of %lld bytes is negative",
                            static_cast<long long>(value));
    }
    Binding bound(device);
    if (!bound.ok()) {
        return bound.status();
    }
    int device_limit = 0, static_bytes = 0;
    if (infiniStatus_t status =
            deviceAttribute(device, vendorTable().device_attr_max_shared_per_block, "shared memory per block", &device_limit)) {
        return status;
    }
    if (infiniStatus_t status = functionAttribute(device, kernel, vendorTable().func_attr_static_shared_bytes,
                                                  "static shared memory", &static_bytes)) {
        return status;
    }
    const int64_t available = static_cast<int64_t>(device_limit) - static_bytes;
    if (value > available) {
        return common::fail(INFINI_STATUS_BAD_PARAM,
                            "%lld bytes of dynamic shared memory asked for a kernel on %s:%d: a block may use %d "
                            "bytes of shared memory, of which the kernel's static shared memory takes %d, leaving "
                            "%lld",
                            static_cast<long long>(value), vendorTable().name, device, device_limit, static_bytes,
                            static_cast<long long>(available));
    }
    if (vendorTable().function_set_attribute.call) {
        if (NativeStatus rc = vendorTable().function_set_attribute.call(kernel, vendorTable().func_attr_max_dynamic_shared,
                                                                static_cast<int>(value))) {
            return nativeFailure(vendorTable().function_set_attribute.name, rc,
                                 "raising a kernel's dynamic shared memory to %lld bytes on %s:%d",
                                 static_cast<long long>(value), vendorTable().name, device);
        }
    }
    return INFINI_STATUS_SUCCESS;
}

} // namespace infinirt::gpu
